-- Full-text search of the episode list's `q` (GET /v1/episodes?q=): a trigram FTS5 index over
-- exactly the columns `q` searches with LIKE (EPISODE_QUERY_FIELDS.textColumns in
-- server/episodes/list.query.ts). LIKE folds the case of ASCII letters only and stops reading
-- a value at a NUL, so the index holds each value as LIKE reads it: cut at its first NUL and
-- lowered by SQLite's lower() (ASCII only), through this view; the tokenizer folds nothing
-- more (case_sensitive 1). A phrase of a lowered term then matches exactly the rows LIKE
-- finds. The view is the index's external content: the text itself is stored once, in
-- episodes.
CREATE VIEW episodes_fts_source AS
  SELECT rowid AS rid,
    lower(CASE WHEN instr(episode_id, char(0)) > 0 THEN substr(episode_id, 1, instr(episode_id, char(0)) - 1) ELSE episode_id END) AS episode_id,
    lower(CASE WHEN instr(service, char(0)) > 0 THEN substr(service, 1, instr(service, char(0)) - 1) ELSE service END) AS service,
    lower(CASE WHEN instr(alerts, char(0)) > 0 THEN substr(alerts, 1, instr(alerts, char(0)) - 1) ELSE alerts END) AS alerts,
    lower(CASE WHEN instr(confirmed, char(0)) > 0 THEN substr(confirmed, 1, instr(confirmed, char(0)) - 1) ELSE confirmed END) AS confirmed,
    lower(CASE WHEN instr(note, char(0)) > 0 THEN substr(note, 1, instr(note, char(0)) - 1) ELSE note END) AS note,
    lower(CASE WHEN instr(fix, char(0)) > 0 THEN substr(fix, 1, instr(fix, char(0)) - 1) ELSE fix END) AS fix,
    lower(CASE WHEN instr(diagnosis, char(0)) > 0 THEN substr(diagnosis, 1, instr(diagnosis, char(0)) - 1) ELSE diagnosis END) AS diagnosis
  FROM episodes;

CREATE VIRTUAL TABLE episodes_fts USING fts5(
  episode_id, service, alerts, confirmed, note, fix, diagnosis,
  content = 'episodes_fts_source', content_rowid = 'rid',
  tokenize = 'trigram case_sensitive 1'
);

-- The index follows every write of the table, in its transaction. A row is taken out of the
-- index only when the index has it (a docsize row), so that a rebuild, which empties the
-- index before the table, never deletes from an index that lacks the row (FTS5 would take
-- such a delete for corruption); updates that leave the text as it was leave the index be.
CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN
  INSERT INTO episodes_fts (rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = new.rowid;
END;
CREATE TRIGGER episodes_fts_delete BEFORE DELETE ON episodes
  WHEN EXISTS (SELECT 1 FROM episodes_fts_docsize WHERE id = old.rowid)
BEGIN
  INSERT INTO episodes_fts (episodes_fts, rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT 'delete', rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = old.rowid;
END;
CREATE TRIGGER episodes_fts_update_before BEFORE UPDATE OF episode_id, service, alerts, confirmed, note, fix, diagnosis ON episodes
  WHEN (old.episode_id IS NOT new.episode_id OR old.service IS NOT new.service
    OR old.alerts IS NOT new.alerts OR old.confirmed IS NOT new.confirmed OR old.note IS NOT new.note
    OR old.fix IS NOT new.fix OR old.diagnosis IS NOT new.diagnosis)
    AND EXISTS (SELECT 1 FROM episodes_fts_docsize WHERE id = old.rowid)
BEGIN
  INSERT INTO episodes_fts (episodes_fts, rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT 'delete', rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = old.rowid;
END;
CREATE TRIGGER episodes_fts_update_after AFTER UPDATE OF episode_id, service, alerts, confirmed, note, fix, diagnosis ON episodes
  WHEN old.episode_id IS NOT new.episode_id OR old.service IS NOT new.service
    OR old.alerts IS NOT new.alerts OR old.confirmed IS NOT new.confirmed OR old.note IS NOT new.note
    OR old.fix IS NOT new.fix OR old.diagnosis IS NOT new.diagnosis
BEGIN
  INSERT INTO episodes_fts (rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = new.rowid;
END;

-- Rows written before this migration.
INSERT INTO episodes_fts (episodes_fts) VALUES ('rebuild');

-- Incidents: related episodes (the root episode plus those grouped with it), with a status
-- derived from their episodes and the history of that status. A projection of incident.*.
CREATE TABLE incidents (
  incident_id     TEXT PRIMARY KEY,
  root_episode_id TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('open', 'mitigating', 'monitoring', 'resolved')),
  group_key       TEXT,            -- canonical JSON of the grouping values; NULL: never joined
  t_open          TEXT NOT NULL,
  t_resolved      TEXT,
  services        TEXT NOT NULL,   -- JSON array, in order of joining
  history         TEXT NOT NULL,   -- JSON array of {at, seq, from, to, why}
  first_seq       INTEGER NOT NULL,
  last_seq        INTEGER NOT NULL
);
CREATE INDEX incidents_status ON incidents (status, t_open);
CREATE INDEX incidents_grouping ON incidents (group_key, t_open) WHERE status <> 'resolved';

-- What the episode list filters, sorts and counts on, beside the episode itself.
ALTER TABLE episodes ADD COLUMN incident_id TEXT;
ALTER TABLE episodes ADD COLUMN relation TEXT NOT NULL DEFAULT 'root';  -- root | related
ALTER TABLE episodes ADD COLUMN confidence TEXT NOT NULL DEFAULT 'unproven';
ALTER TABLE episodes ADD COLUMN restore_s INTEGER;       -- open until its alerts ended
ALTER TABLE episodes ADD COLUMN suppressed TEXT NOT NULL DEFAULT '[]';  -- JSON array
ALTER TABLE episodes ADD COLUMN verdict TEXT;            -- the team's: same | advice | other | none
ALTER TABLE episodes ADD COLUMN verdict_detail TEXT;
ALTER TABLE episodes ADD COLUMN note TEXT;               -- investigation text, searched by q
ALTER TABLE episodes ADD COLUMN diagnosis TEXT;
ALTER TABLE episodes ADD COLUMN fix TEXT;
CREATE INDEX episodes_incident ON episodes (incident_id);
-- The list's in-memory index catches up on closed episodes changed after the seq it holds.
CREATE INDEX episodes_changed ON episodes (last_seq) WHERE status = 'closed';
-- The closer's 15-second look for quiet episodes must not scan every closed one.
CREATE INDEX episodes_quiet ON episodes (t_quiet) WHERE status = 'quiet';

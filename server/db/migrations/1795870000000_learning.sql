-- What the service learns from labelled outcomes (GET /v1/learning, /v1/learned): projections
-- of the learning.* events. One row per episode: its latest label counts, earlier ones stay in
-- the ledger. Each label carries what the service said when it was given, so that precision
-- never depends on a diagnosis that changed later.
CREATE TABLE learning_labels (
  episode_id TEXT PRIMARY KEY,
  seq        INTEGER NOT NULL,   -- the ledger seq of the label
  correct    INTEGER NOT NULL CHECK (correct IN (0, 1)),
  source     TEXT NOT NULL,      -- team (a verdict) or the outside source that labelled it
  cause      TEXT,               -- the leading cause when labelled (null: none)
  pack       TEXT,
  confidence TEXT NOT NULL,      -- the leading cause's confidence (unproven: no cause)
  service    TEXT NOT NULL,
  alerts     TEXT NOT NULL,      -- JSON array of alert names, sorted
  fix        TEXT,               -- the fix the cause named first (null: none)
  by_actor   TEXT NOT NULL,
  at         TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX learning_labels_cause ON learning_labels (cause, seq);

-- A cause no longer allowed to reach proven on its own evidence (below the precision bar).
CREATE TABLE learning_demotions (
  cause     TEXT PRIMARY KEY,
  precision REAL NOT NULL,
  labels    INTEGER NOT NULL,
  since     TEXT NOT NULL
) WITHOUT ROWID;

-- Recurring (alerts, service, cause, fix) patterns mined from labelled episodes.
CREATE TABLE learned_patterns (
  pattern_id TEXT PRIMARY KEY,
  service    TEXT NOT NULL,
  cause      TEXT NOT NULL,
  fix        TEXT,
  alerts     TEXT NOT NULL,      -- JSON array, sorted
  state      TEXT NOT NULL CHECK (state IN ('proposed', 'promoted', 'rejected', 'disabled')),
  found_at   TEXT NOT NULL,
  changed_by TEXT,
  changed_at TEXT
) WITHOUT ROWID;

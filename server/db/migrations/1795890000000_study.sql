-- What studies learned (GET /v1/study): projections of the study.* events. A study running
-- when the process dies stays `running` here until the next start appends study.interrupted.
CREATE TABLE study_runs (
  study_id   TEXT PRIMARY KEY,
  seq        INTEGER NOT NULL,   -- the ledger seq of study.started: the newest is the last
  minutes    INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  ends_at    TEXT NOT NULL,      -- the deadline
  by_actor   TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('running', 'finished', 'stopped', 'interrupted')),
  ended_at   TEXT,
  why        TEXT,               -- done, deadline, or why it was interrupted
  services   TEXT NOT NULL,      -- JSON array: the services it set out to walk
  relations_method TEXT,         -- lagged_correlation or causal_service, once related
  relations_note   TEXT          -- why the causal service was not used, when it is set
) WITHOUT ROWID;

-- The last study's findings per service: a service a later study did not reach keeps its own.
CREATE TABLE study_services (
  service   TEXT PRIMARY KEY,
  study_id  TEXT NOT NULL,
  at        TEXT NOT NULL,
  win       TEXT NOT NULL,       -- JSON {from, to, step_s}: the readings' window
  baseline  TEXT NOT NULL,       -- JSON array of readings with their normal range
  obstacles TEXT NOT NULL,       -- JSON array of {what, reason, fix}
  causes    TEXT NOT NULL,       -- JSON array of causes with their readable checks
  complete  INTEGER NOT NULL CHECK (complete IN (0, 1))
) WITHOUT ROWID;

-- The last relations step's relations, replaced whole by each one (estate suggestions).
CREATE TABLE study_relations (
  from_service TEXT NOT NULL,
  to_service   TEXT NOT NULL,
  study_id     TEXT NOT NULL,
  lag          INTEGER NOT NULL,
  strength     REAL NOT NULL,
  score        REAL NOT NULL,
  readings     TEXT NOT NULL,
  method       TEXT NOT NULL,
  step_s       REAL NOT NULL,      -- the readings' step: lag × step_s is the lead in seconds
  at           TEXT NOT NULL,
  PRIMARY KEY (from_service, to_service)
) WITHOUT ROWID;

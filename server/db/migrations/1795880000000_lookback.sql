-- The last lookback report (GET/POST /v1/lookback): a projection of lookback.reported.
CREATE TABLE lookback_reports (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  report TEXT NOT NULL,    -- JSON: days, since, until, total, connections (counts only)
  run_by TEXT NOT NULL,
  run_at TEXT NOT NULL,
  seq    INTEGER NOT NULL  -- the ledger event it projects
);

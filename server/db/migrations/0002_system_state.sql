-- Projections of system events; rebuilt from the ledger by `svc-core rebuild`.
CREATE TABLE install_state (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  installed_at  TEXT NOT NULL,
  instance      TEXT NOT NULL,
  key_fingerprint TEXT NOT NULL,
  starts        INTEGER NOT NULL DEFAULT 0,
  last_start_at TEXT,
  last_version  TEXT
);
CREATE TABLE licence_state (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  kind        TEXT NOT NULL,       -- trial
  tier        TEXT NOT NULL,
  services    INTEGER NOT NULL,
  install_limit INTEGER NOT NULL,
  started_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  grace_days  INTEGER NOT NULL,
  fingerprint TEXT
);

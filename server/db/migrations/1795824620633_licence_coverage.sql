-- Service coverage and usage statements (licence.md §3.8, §3.10): projections of signal.* and
-- licence.* events, rebuilt from the ledger.
-- A service seen on a day (a signal fired or resolved for it): a service is counted while it
-- was seen in the last 30 days; first_seq orders services by when they were first seen.
CREATE TABLE licence_service_days (
  service   TEXT NOT NULL,
  day       TEXT NOT NULL,     -- YYYY-MM-DD (UTC) of the event
  first_seq INTEGER NOT NULL,  -- the first event of that service on that day
  PRIMARY KEY (service, day)
) WITHOUT ROWID;
CREATE INDEX licence_service_days_day ON licence_service_days (day);
-- Services always covered (PUT /v1/licence/services).
CREATE TABLE licence_pins (
  service   TEXT PRIMARY KEY,
  pinned_at TEXT NOT NULL
);
-- The newest usage statement (its SHA-256 is the next one's prev) and the last day coverage
-- was recorded exceeded (licence.coverage_exceeded, at most daily).
CREATE TABLE licence_usage_state (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  last_sha256    TEXT,
  last_to        TEXT,
  statements     INTEGER NOT NULL,
  exceeded_day   TEXT
);

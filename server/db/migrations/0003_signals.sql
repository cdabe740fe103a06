-- Projection of signal.* events: the latest state of every alert instance, by source and
-- fingerprint (raw ids of two sources may collide).
CREATE TABLE signals (
  source       TEXT NOT NULL,
  fingerprint  TEXT NOT NULL,
  name         TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('firing', 'resolved')),
  severity     TEXT NOT NULL,
  service      TEXT NOT NULL,
  resource     TEXT,
  started_at   TEXT NOT NULL,
  ended_at     TEXT,
  summary      TEXT NOT NULL,
  labels       TEXT NOT NULL,   -- canonical JSON object
  link         TEXT,
  fired        INTEGER NOT NULL, -- times it started firing (flapping shows here)
  first_seq    INTEGER NOT NULL,
  last_seq     INTEGER NOT NULL,
  PRIMARY KEY (source, fingerprint)
);
CREATE INDEX signals_service ON signals (service, status);
CREATE INDEX signals_status ON signals (status);

-- Signed licences (licence.md §3.3): projections of licence.* events, rebuilt from the ledger.
-- The licence text itself lives in SVC_DATA/licence.json (or the mounted SVC_LICENCE file);
-- the ledger records its SHA-256 and headline fields.
CREATE TABLE licence_current (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  source       TEXT NOT NULL,      -- api, file, redeem, grant
  licence_id   TEXT NOT NULL,
  serial       INTEGER NOT NULL,
  sha256       TEXT NOT NULL,
  tier         TEXT NOT NULL,
  installed_at TEXT NOT NULL,
  stage        TEXT,               -- the last stage recorded (licence.expiring, grace_entered, lapsed)
  warned_days  INTEGER            -- the last warning threshold recorded
);
-- The highest serial seen per licence: a lower one is a rollback and refused.
CREATE TABLE licence_serials (
  licence_id TEXT PRIMARY KEY,
  serial     INTEGER NOT NULL
);
-- One local trial per fingerprint, kept when the licence is removed.
CREATE TABLE trial_history (
  fingerprint TEXT PRIMARY KEY,
  started_at  TEXT NOT NULL,
  verified    INTEGER NOT NULL
);
-- The revocation list in force (its text is SVC_DATA/revocations.json) and licence verdicts.
CREATE TABLE licence_trust (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  revocations_seq  INTEGER NOT NULL,
  revoked          TEXT,           -- licence_id revoked, when the current licence is
  superseded_since TEXT            -- when the current serial was learnt superseded
);

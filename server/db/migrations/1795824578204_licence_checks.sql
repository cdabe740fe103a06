-- Confirmation with the licence authority (licence.md §3.6) and trial codes redeemed here
-- (§3.4): projections of licence.check and licence.trial_redeemed, rebuilt from the ledger.
CREATE TABLE licence_check (
  id                INTEGER PRIMARY KEY CHECK (id = 1),
  last_checked_at   TEXT NOT NULL,
  last_result       TEXT NOT NULL,  -- ok, revoked, superseded, unknown_install, unreachable, ...
  last_confirmed_at TEXT,           -- the last check whose answer confirmed the licence
  authority_time    TEXT            -- the authority's time in that answer
);
-- Trial codes redeemed on this install: the same trial (or company) twice is trial_used.
CREATE TABLE trial_redeemed (
  trial_id    TEXT PRIMARY KEY,
  company_key TEXT NOT NULL,
  fingerprint TEXT,
  redeemed_at TEXT NOT NULL
);
CREATE INDEX trial_redeemed_company ON trial_redeemed (company_key);

-- Sign-in by e-mailed code and by password, and the mail settings (issue 6). Operational
-- state, not ledger projections: the events (auth.signed_in, auth.sign_in_failed,
-- auth.password_set, config.mail_set) carry no secret, and nothing here can be rebuilt
-- from them. Codes and passwords are stored only as hashes.

-- At most one live code per address: a new request replaces the old one.
CREATE TABLE signin_codes (
  email      TEXT PRIMARY KEY,                -- lower-cased
  code_hash  TEXT NOT NULL,                   -- SHA-256 hex of salt || code
  salt       TEXT NOT NULL,                   -- 16 random bytes, hex
  tries      INTEGER NOT NULL DEFAULT 0,      -- wrong codes so far; dead at 5
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL                    -- created_at + 10 minutes
);
CREATE INDEX signin_codes_expiry ON signin_codes (expires_at);

CREATE TABLE signin_passwords (
  user_id    TEXT PRIMARY KEY,                -- usr-<hex>
  hash       TEXT NOT NULL,                   -- scrypt$<N>$<r>$<p>$<salt b64>$<key b64>
  updated_at TEXT NOT NULL
);

-- The one mail settings document (secrets as {file} or {env} references only).
CREATE TABLE mail_settings (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  document   TEXT NOT NULL,                   -- canonical JSON
  updated_at TEXT NOT NULL
);

-- Console sessions. Operational state, not a ledger projection: sign-in and sign-out are
-- recorded as auth.signed_in / auth.signed_out events, but nothing a token could be derived
-- from ever enters the ledger. Only the SHA-256 (hex) of a session token is stored here.
CREATE TABLE sessions (
  id              TEXT PRIMARY KEY,          -- ses-<hex>: safe to log and show, not a credential
  token_hash      TEXT NOT NULL UNIQUE,      -- SHA-256 hex of the svs_… token
  user_id         TEXT NOT NULL,
  name            TEXT NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('viewer', 'responder', 'admin', 'owner')),
  method          TEXT NOT NULL,             -- admin-token; later code, password, sso, ldap
  created_at      TEXT NOT NULL,
  last_seen_at    TEXT NOT NULL,             -- updated at most once a minute
  idle_expires_at TEXT NOT NULL,             -- min(last_seen_at + 12 h, expires_at)
  expires_at      TEXT NOT NULL,             -- created_at + 7 days
  ended_at        TEXT,
  ended_why       TEXT                       -- logout | expired
);
CREATE INDEX sessions_open ON sessions (idle_expires_at) WHERE ended_at IS NULL;
CREATE INDEX sessions_ended ON sessions (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX sessions_user ON sessions (user_id) WHERE ended_at IS NULL;

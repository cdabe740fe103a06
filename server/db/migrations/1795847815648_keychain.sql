-- The keychain (design/keychain.md): this install's place in one, its roster, the authority
-- log and the site keys a home issued are projections of keychain.* events; the peer nonces
-- and the last word heard from each member are operational state, not rebuilt.
CREATE TABLE keychain_state (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  keychain_id TEXT NOT NULL,
  role        TEXT NOT NULL CHECK (role IN ('home', 'member')),
  epoch       INTEGER NOT NULL,
  home_fp     TEXT NOT NULL,
  label       TEXT NOT NULL,        -- this install's own label in the roster
  via         TEXT NOT NULL,        -- genesis, or how it joined (site_key:<id>)
  since       TEXT NOT NULL,
  carried     TEXT NOT NULL DEFAULT '[]', -- on a member: the parts its home carries (JSON)
  skip        TEXT NOT NULL DEFAULT '[]', -- on the home: parts it does not carry (scope)
  owned       TEXT NOT NULL DEFAULT '[]'  -- on a member: parts it keeps its own copy of (own)
);

-- Carried parts: on the home the version last published of each, on a member the version
-- last applied (a part's version only grows; the whole part is the unit).
CREATE TABLE keychain_parts (
  part    TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  sha256  TEXT NOT NULL,
  epoch   INTEGER NOT NULL,
  at      TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE keychain_members (
  fingerprint TEXT PRIMARY KEY,
  label       TEXT NOT NULL,
  role        TEXT NOT NULL CHECK (role IN ('home', 'member')),
  sig_pub     TEXT NOT NULL,
  kx_pub      TEXT NOT NULL,
  address     TEXT,
  via         TEXT NOT NULL,
  added_at    TEXT NOT NULL,
  health      TEXT NOT NULL DEFAULT 'ok' CHECK (health IN ('ok', 'silent', 'gone')),
  removed_at  TEXT                  -- a tombstone: the install gets 403 member_removed
) WITHOUT ROWID;

-- The authority log (genesis, member_add, …), hash-chained by prev, each record signed.
CREATE TABLE keychain_log (
  seq    INTEGER PRIMARY KEY,
  epoch  INTEGER NOT NULL,
  type   TEXT NOT NULL,
  record TEXT NOT NULL,             -- canonical JSON, as signed
  hash   TEXT NOT NULL              -- SHA-256 of the canonical record, hex
);

CREATE TABLE keychain_site_keys (
  id              TEXT PRIMARY KEY,
  label           TEXT NOT NULL,
  purpose         TEXT NOT NULL,
  licence         INTEGER NOT NULL,
  created_by      TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  secret_hash     TEXT NOT NULL,    -- SHA-256 of skc1 ‖ secret: the secret is never stored
  used_at         TEXT,
  used_by_fp      TEXT,
  revoked_at      TEXT,
  revoked_reason  TEXT,
  failed_attempts INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- Nonces of verified peer requests until they can no longer pass the clock check.
CREATE TABLE keychain_nonces (
  fingerprint TEXT NOT NULL,
  nonce       TEXT NOT NULL,
  expires_at  INTEGER NOT NULL,     -- ms since the epoch
  PRIMARY KEY (fingerprint, nonce)
) WITHOUT ROWID;
CREATE INDEX keychain_nonces_expiry ON keychain_nonces (expires_at);

-- When this install last heard an authenticated word from each member (home) or the home.
CREATE TABLE keychain_contact (
  fingerprint TEXT PRIMARY KEY,
  heard_at    TEXT NOT NULL
) WITHOUT ROWID;

-- Sealed files: the last one made here (kind made) and the last applied here per keychain
-- (kind applied), so that a file applies once per version and never goes back.
CREATE TABLE keychain_sealed (
  kind            TEXT NOT NULL CHECK (kind IN ('made', 'applied')),
  keychain_id     TEXT NOT NULL,
  content_version INTEGER NOT NULL,
  sha256          TEXT NOT NULL,
  at              TEXT NOT NULL,
  PRIMARY KEY (kind, keychain_id)
) WITHOUT ROWID;

-- Witnesses: the ledger head each peer last showed us (on the home, each member's; on a
-- member, the home's, and under its own fingerprint the seq the home holds of it). A peer
-- whose ledger went back or was rewritten is caught against this; mismatch keeps the evidence.
CREATE TABLE keychain_witness (
  fingerprint TEXT PRIMARY KEY,
  seq         INTEGER NOT NULL,
  hash        TEXT NOT NULL,
  at          TEXT NOT NULL,
  mismatch    TEXT,                -- what was caught, kept until the peer is removed
  mismatch_at TEXT
) WITHOUT ROWID;

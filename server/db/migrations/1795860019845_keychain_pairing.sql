-- Pairing with a six-digit code (design/keychain.md §2.4). Windows and requests are
-- operational and short-lived (10 minutes): a request holds the nonces its code comes from,
-- which never go into the ledger; every change to them is also a keychain.* event.
CREATE TABLE keychain_windows (
  id         TEXT PRIMARY KEY,
  opened_at  TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  failures   INTEGER NOT NULL DEFAULT 0,  -- requests ended by a wrong code: three close it
  closed_at  TEXT
) WITHOUT ROWID;

CREATE TABLE keychain_pairing (
  request_id   TEXT PRIMARY KEY,
  side         TEXT NOT NULL CHECK (side IN ('home', 'joiner')),
  window_id    TEXT,                 -- on the home
  keychain_id  TEXT NOT NULL,
  peer_fp      TEXT NOT NULL,        -- the other side: the joiner on the home, the home on it
  peer_sig_pub TEXT NOT NULL,
  peer_kx_pub  TEXT NOT NULL,
  peer_label   TEXT NOT NULL,
  own_label    TEXT,                 -- on the joiner: the label it asked to be known by
  address      TEXT,                 -- on the joiner: the home's URL; on the home: the joiner's
  commit_hash  TEXT NOT NULL,
  home_nonce   TEXT,                 -- on the home from the start; on the joiner once revealed
  joiner_nonce TEXT,
  state        TEXT NOT NULL CHECK (state IN ('open', 'added', 'failed', 'cancelled')),
  reason       TEXT,
  home_confirmed   INTEGER NOT NULL DEFAULT 0,
  joiner_confirmed INTEGER NOT NULL DEFAULT 0,
  created_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX keychain_pairing_window ON keychain_pairing (window_id);

-- A member paired by code holds no licence seat until an admin approves it (joins/approve).
ALTER TABLE keychain_members ADD COLUMN licensed INTEGER NOT NULL DEFAULT 1;

-- Handover offers on the home (design §2.7): the six digits shown here and typed on the
-- member never go into a ledger; the record, once accepted, is answered again to a retry.
CREATE TABLE keychain_handover (
  offer_id   TEXT PRIMARY KEY,
  to_fp      TEXT NOT NULL,
  epoch      INTEGER NOT NULL,
  prev       TEXT NOT NULL,
  code       TEXT NOT NULL,
  state      TEXT NOT NULL CHECK (state IN ('open', 'accepted', 'cancelled')),
  reason     TEXT,
  record     TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) WITHOUT ROWID;

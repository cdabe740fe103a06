-- The install exchange (licence.md §3.7). licence_requests: requests asked here (side asked,
-- on a new install N) and requests looked at, vouched or refused here (side received, on an
-- existing install E): the replay guard, wrong codes, outcomes and the seats offline grants
-- hold. licence_install_removals: installs removed here, so their seats are free and their
-- grants no longer count, until a later serial says otherwise. licence_vouched: the grant this install runs under, until a licence
-- serial lists it.
CREATE TABLE licence_requests (
  req_id TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('asked', 'received')),
  fingerprint TEXT NOT NULL,
  purpose TEXT NOT NULL,
  label TEXT,
  nonce TEXT,
  install_pub TEXT,
  code TEXT,
  licence_id TEXT,
  -- open (asked, or only wrong codes so far) | granted | pending | manual | burned
  state TEXT NOT NULL,
  mismatches INTEGER NOT NULL DEFAULT 0,
  via TEXT,
  why TEXT,
  role TEXT,
  valid_until TEXT,
  polled_state TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (req_id, side)
) WITHOUT ROWID;

CREATE TABLE licence_install_removals (
  fingerprint TEXT PRIMARY KEY,
  licence_id TEXT NOT NULL,
  -- the serial in force when removed: a later serial is the vendor's word, and wins
  licence_serial INTEGER NOT NULL,
  -- on_licence, or grant (then the grant's request, which the vendor may withdraw)
  was TEXT NOT NULL,
  req_id TEXT,
  removed_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE licence_vouched (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  req_id TEXT NOT NULL,
  -- the install the grant is for: a copy of this data folder on another host is not it
  fingerprint TEXT NOT NULL,
  licence_id TEXT NOT NULL,
  licence_serial INTEGER NOT NULL,
  granted_by TEXT NOT NULL,
  role TEXT NOT NULL,
  valid_until TEXT NOT NULL,
  accepted_at TEXT NOT NULL
);

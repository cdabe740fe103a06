CREATE INDEX approval_requests_episode ON approval_requests (episode_id) WHERE episode_id IS NOT NULL;
CREATE INDEX approval_requests_pending ON approval_requests (expires_at) WHERE status = 'pending';
CREATE INDEX approval_requests_requested_at ON approval_requests (requested_at);
CREATE INDEX episode_signals_by_signal ON episode_signals (source, fingerprint);
CREATE INDEX episodes_changed ON episodes (last_seq) WHERE status = 'closed';
CREATE INDEX episodes_incident ON episodes (incident_id);
CREATE INDEX episodes_open ON episodes (service) WHERE status <> 'closed';
CREATE INDEX episodes_quiet ON episodes (t_quiet) WHERE status = 'quiet';
CREATE INDEX episodes_t_open ON episodes (t_open);
CREATE INDEX incidents_grouping ON incidents (group_key, t_open) WHERE status <> 'resolved';
CREATE INDEX incidents_status ON incidents (status, t_open);
CREATE INDEX investigations_request ON investigations (request_id) WHERE request_id IS NOT NULL;
CREATE INDEX investigations_status ON investigations (status) WHERE status IN ('running', 'waiting');
CREATE INDEX keychain_nonces_expiry ON keychain_nonces (expires_at);
CREATE INDEX keychain_pairing_window ON keychain_pairing (window_id);
CREATE INDEX learning_labels_cause ON learning_labels (cause, seq);
CREATE INDEX ledger_actor ON ledger (actor);
CREATE INDEX ledger_category ON ledger (category);
CREATE INDEX ledger_trace ON ledger (trace_id) WHERE trace_id IS NOT NULL;
CREATE INDEX ledger_ts ON ledger (ts);
CREATE INDEX ledger_type ON ledger (type);
CREATE INDEX licence_service_days_day ON licence_service_days (day);
CREATE INDEX people_role ON people (role) WHERE disabled = 0;
CREATE INDEX sessions_ended ON sessions (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX sessions_open ON sessions (idle_expires_at) WHERE ended_at IS NULL;
CREATE INDEX sessions_user ON sessions (user_id) WHERE ended_at IS NULL;
CREATE INDEX signals_service ON signals (service, status);
CREATE INDEX signals_status ON signals (status);
CREATE INDEX signin_codes_expiry ON signin_codes (expires_at);
CREATE UNIQUE INDEX signin_identities_user ON signin_identities (provider, user_id);
CREATE INDEX snapshot_changes_at ON snapshot_changes (at);
CREATE INDEX team_members_user ON team_members (user_id);
CREATE INDEX trial_redeemed_company ON trial_redeemed (company_key);
CREATE TABLE access_settings (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  document TEXT NOT NULL,                      -- canonical JSON
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL
);
CREATE TABLE approval_links (
  token_id   TEXT PRIMARY KEY,
  request_id TEXT NOT NULL,
  channel    TEXT NOT NULL,
  step       INTEGER NOT NULL
);
CREATE TABLE approval_requests (
  request_id     TEXT PRIMARY KEY,              -- ap-<UTC timestamp>-<hex>
  kind           TEXT NOT NULL CHECK (kind IN ('action', 'autonomy', 'fix_mode')),
  status         TEXT NOT NULL
                 CHECK (status IN ('pending', 'approved', 'denied', 'withdrawn', 'expired')),
  title          TEXT NOT NULL,
  summary        TEXT NOT NULL,
  service        TEXT,
  risk           TEXT NOT NULL CHECK (risk IN ('low', 'medium', 'high')),
  episode_id     TEXT,
  subject        TEXT NOT NULL,                 -- canonical JSON: what is approved, exactly
  subject_sha256 TEXT NOT NULL,                 -- hex SHA-256 of subject
  quorum         INTEGER NOT NULL CHECK (quorum >= 1),
  approver_role  TEXT NOT NULL CHECK (approver_role IN ('responder', 'admin')),
  requested_by   TEXT NOT NULL,
  requested_at   TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  decisions      TEXT NOT NULL DEFAULT '[]',    -- JSON [{by, decision, at, via, reason}]
  channels       TEXT NOT NULL DEFAULT '[]',    -- JSON [{channel, step, at, ok, detail}]
  closed_at      TEXT,
  reason         TEXT,                          -- why it was withdrawn, denied or expired
  seq            INTEGER NOT NULL               -- the last ledger event that changed the row
, requested_by_id TEXT);
CREATE TABLE autonomy_levels (
  service    TEXT PRIMARY KEY,
  level      TEXT NOT NULL CHECK (level IN ('off', 'shadow', 'L1', 'L2')),
  set_by     TEXT NOT NULL,
  set_at     TEXT NOT NULL,
  request_id TEXT,                              -- the approval request of a raise
  seq        INTEGER NOT NULL
);
CREATE TABLE autonomy_state (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  fix_mode         TEXT NOT NULL DEFAULT 'advise' CHECK (fix_mode IN ('advise', 'draft')),
  fix_mode_set_by  TEXT,
  fix_mode_set_at  TEXT,
  fix_mode_request TEXT,
  halted           INTEGER NOT NULL DEFAULT 0 CHECK (halted IN (0, 1)),
  halt_reason      TEXT,
  halted_by        TEXT,
  halted_at        TEXT,
  seq              INTEGER NOT NULL
);
CREATE TABLE branding_state (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  document TEXT NOT NULL,   -- canonical JSON of the whole document (defaults filled in)
  sha256   TEXT NOT NULL,   -- hex SHA-256 of document
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL -- the ledger event this row comes from
);
CREATE TABLE channel_link_uses (
  request_id TEXT PRIMARY KEY,
  decision   TEXT NOT NULL CHECK (decision IN ('approve', 'deny')),
  token_id   TEXT NOT NULL,   -- the first 32 hex digits of the used token's MAC
  used_at    TEXT NOT NULL    -- ISO-8601 UTC
);
CREATE TABLE connectors (
  name     TEXT PRIMARY KEY,
  kind     TEXT NOT NULL,
  document TEXT NOT NULL,   -- canonical JSON {kind, settings, max_in_flight?, timeout_s?}
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL -- the ledger event this row comes from
);
CREATE TABLE episode_signals (
  episode_id  TEXT NOT NULL,
  source      TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  name        TEXT NOT NULL,
  PRIMARY KEY (episode_id, source, fingerprint)
);
CREATE TABLE episodes (
  episode_id TEXT PRIMARY KEY,
  service    TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('open', 'quiet', 'closed')),
  step       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  t_open     TEXT NOT NULL,
  t_quiet    TEXT,            -- when its last firing signal resolved (the flap hold starts)
  t_close    TEXT,
  alerts     TEXT NOT NULL,   -- JSON array of alert names, in order of arrival
  firing     INTEGER NOT NULL,
  decision   TEXT,
  outcome    TEXT,
  result     TEXT,
  action     TEXT NOT NULL DEFAULT '',
  handover_s INTEGER,
  autonomy   TEXT NOT NULL,
  confirmed  TEXT NOT NULL DEFAULT '[]',
  first_seq  INTEGER NOT NULL,
  last_seq   INTEGER NOT NULL
, incident_id TEXT, relation TEXT NOT NULL DEFAULT 'root', confidence TEXT NOT NULL DEFAULT 'unproven', restore_s INTEGER, suppressed TEXT NOT NULL DEFAULT '[]', verdict TEXT, verdict_detail TEXT, note TEXT, diagnosis TEXT, fix TEXT);
CREATE VIRTUAL TABLE episodes_fts USING fts5(
  episode_id, service, alerts, confirmed, note, fix, diagnosis,
  content = 'episodes_fts_source', content_rowid = 'rid',
  tokenize = 'trigram case_sensitive 1'
);
CREATE TABLE 'episodes_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE 'episodes_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
CREATE TABLE 'episodes_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
CREATE TABLE 'episodes_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
CREATE TABLE estate_connectors (
  connector TEXT PRIMARY KEY,
  status    TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  at        TEXT NOT NULL,
  detail    TEXT,
  found_at  TEXT            -- the last successful discovery; NULL when none
);
CREATE TABLE estate_links (
  connector    TEXT NOT NULL,
  from_service TEXT NOT NULL,
  to_service   TEXT NOT NULL,
  origin       TEXT NOT NULL, -- JSON {connector, how}
  PRIMARY KEY (connector, from_service, to_service)
);
CREATE TABLE estate_observations (
  connector TEXT PRIMARY KEY,
  document  TEXT NOT NULL,  -- canonical JSON {listen, connect, probes, candidates}
  at        TEXT NOT NULL
);
CREATE TABLE estate_overrides (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  document TEXT NOT NULL,   -- canonical JSON of the overrides document
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL
);
CREATE TABLE estate_services (
  connector TEXT NOT NULL,   -- the connector that found it
  name      TEXT NOT NULL,
  kind      TEXT,            -- NULL when the connector does not say
  hosts     TEXT NOT NULL,   -- JSON array of host names or addresses
  origins   TEXT NOT NULL,   -- JSON array of {connector, how}
  last_seen TEXT NOT NULL,   -- ISO time of the event
  PRIMARY KEY (connector, name)
);
CREATE TABLE estate_suggestions (
  id           TEXT PRIMARY KEY,
  from_service TEXT NOT NULL,
  to_service   TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('confirmed', 'dismissed')),
  evidence     TEXT NOT NULL,
  reason       TEXT,            -- why it was dismissed, when given
  actor        TEXT NOT NULL,
  at           TEXT NOT NULL
);
CREATE TABLE impact_figures (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  figures TEXT NOT NULL,   -- canonical JSON object of the specification's fields
  set_by  TEXT NOT NULL,
  set_at  TEXT NOT NULL
);
CREATE TABLE incidents (
  incident_id     TEXT PRIMARY KEY,
  root_episode_id TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('open', 'mitigating', 'monitoring', 'resolved')),
  group_key       TEXT,            -- canonical JSON of the grouping values; NULL: never joined
  t_open          TEXT NOT NULL,
  t_resolved      TEXT,
  services        TEXT NOT NULL,   -- JSON array, in order of joining
  history         TEXT NOT NULL,   -- JSON array of {at, seq, from, to, why}
  first_seq       INTEGER NOT NULL,
  last_seq        INTEGER NOT NULL
);
CREATE TABLE install_state (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  installed_at  TEXT NOT NULL,
  instance      TEXT NOT NULL,
  key_fingerprint TEXT NOT NULL,
  starts        INTEGER NOT NULL DEFAULT 0,
  last_start_at TEXT,
  last_version  TEXT
);
CREATE TABLE investigations (
  episode_id   TEXT PRIMARY KEY,
  service      TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('running', 'waiting', 'done', 'skipped', 'again')),  -- again: a signal joined after it ended
  step         TEXT NOT NULL,
  packs        TEXT NOT NULL DEFAULT '[]',   -- JSON array of pack ids
  changes      TEXT NOT NULL DEFAULT '[]',   -- JSON array: what changed in the hour before
  findings     TEXT NOT NULL DEFAULT '[]',   -- JSON array of Finding
  hypotheses   TEXT NOT NULL DEFAULT '[]',   -- JSON array of Hypothesis, best first
  decision     TEXT,                         -- JSON {decision, why, next, fix}
  actions      TEXT NOT NULL DEFAULT '[]',   -- JSON array, one entry per fix tried
  request_id   TEXT,                         -- the approval request it waits on
  result       TEXT,                         -- JSON {decision, outcome, result, action} at the end
  t_start      TEXT NOT NULL,
  t_diagnosed  TEXT,
  t_handover   TEXT,
  t_end        TEXT,
  first_seq    INTEGER NOT NULL,
  last_seq     INTEGER NOT NULL
);
CREATE TABLE keychain_contact (
  fingerprint TEXT PRIMARY KEY,
  heard_at    TEXT NOT NULL
) WITHOUT ROWID;
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
CREATE TABLE keychain_log (
  seq    INTEGER PRIMARY KEY,
  epoch  INTEGER NOT NULL,
  type   TEXT NOT NULL,
  record TEXT NOT NULL,             -- canonical JSON, as signed
  hash   TEXT NOT NULL              -- SHA-256 of the canonical record, hex
);
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
, licensed INTEGER NOT NULL DEFAULT 1) WITHOUT ROWID;
CREATE TABLE keychain_nonces (
  fingerprint TEXT NOT NULL,
  nonce       TEXT NOT NULL,
  expires_at  INTEGER NOT NULL,     -- ms since the epoch
  PRIMARY KEY (fingerprint, nonce)
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
CREATE TABLE keychain_parts (
  part    TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  sha256  TEXT NOT NULL,
  epoch   INTEGER NOT NULL,
  at      TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE keychain_sealed (
  kind            TEXT NOT NULL CHECK (kind IN ('made', 'applied')),
  keychain_id     TEXT NOT NULL,
  content_version INTEGER NOT NULL,
  sha256          TEXT NOT NULL,
  at              TEXT NOT NULL,
  PRIMARY KEY (kind, keychain_id)
) WITHOUT ROWID;
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
CREATE TABLE keychain_windows (
  id         TEXT PRIMARY KEY,
  opened_at  TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  failures   INTEGER NOT NULL DEFAULT 0,  -- requests ended by a wrong code: three close it
  closed_at  TEXT
) WITHOUT ROWID;
CREATE TABLE keychain_witness (
  fingerprint TEXT PRIMARY KEY,
  seq         INTEGER NOT NULL,
  hash        TEXT NOT NULL,
  at          TEXT NOT NULL,
  mismatch    TEXT,                -- what was caught, kept until the peer is removed
  mismatch_at TEXT
) WITHOUT ROWID;
CREATE TABLE learned_patterns (
  pattern_id TEXT PRIMARY KEY,
  service    TEXT NOT NULL,
  cause      TEXT NOT NULL,
  fix        TEXT,
  alerts     TEXT NOT NULL,      -- JSON array, sorted
  state      TEXT NOT NULL CHECK (state IN ('proposed', 'promoted', 'rejected', 'disabled')),
  found_at   TEXT NOT NULL,
  changed_by TEXT,
  changed_at TEXT
) WITHOUT ROWID;
CREATE TABLE learning_demotions (
  cause     TEXT PRIMARY KEY,
  precision REAL NOT NULL,
  labels    INTEGER NOT NULL,
  since     TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE learning_labels (
  episode_id TEXT PRIMARY KEY,
  seq        INTEGER NOT NULL,   -- the ledger seq of the label
  correct    INTEGER NOT NULL CHECK (correct IN (0, 1)),
  source     TEXT NOT NULL,      -- team (a verdict) or the outside source that labelled it
  cause      TEXT,               -- the leading cause when labelled (null: none)
  pack       TEXT,
  confidence TEXT NOT NULL,      -- the leading cause's confidence (unproven: no cause)
  service    TEXT NOT NULL,
  alerts     TEXT NOT NULL,      -- JSON array of alert names, sorted
  fix        TEXT,               -- the fix the cause named first (null: none)
  by_actor   TEXT NOT NULL,
  at         TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE ledger (
  seq      INTEGER PRIMARY KEY,
  ts       TEXT    NOT NULL,
  type     TEXT    NOT NULL,
  category TEXT    NOT NULL,  -- the type's prefix before the first dot, for counts
  actor    TEXT    NOT NULL,
  data     TEXT    NOT NULL,  -- canonical JSON object
  reason   TEXT,
  trace_id TEXT,
  hash     BLOB    NOT NULL   -- SHA-256(previous hash || canonical event)
);
CREATE TABLE ledger_segments (
  segment    INTEGER PRIMARY KEY,   -- 1, 2, 3 … without gaps
  first_seq  INTEGER NOT NULL,
  last_seq   INTEGER NOT NULL,
  digest     BLOB    NOT NULL,      -- RFC 6962 Merkle tree hash of the segment's event hashes
  checkpoint TEXT    NOT NULL,      -- C2SP signed note: origin, size, root, extensions, signature
  algorithm  TEXT    NOT NULL,      -- ed25519 or ecdsa-p256
  sealed_at  TEXT    NOT NULL
);
CREATE TABLE licence_check (
  id                INTEGER PRIMARY KEY CHECK (id = 1),
  last_checked_at   TEXT NOT NULL,
  last_result       TEXT NOT NULL,  -- ok, revoked, superseded, unknown_install, unreachable, ...
  last_confirmed_at TEXT,           -- the last check whose answer confirmed the licence
  authority_time    TEXT            -- the authority's time in that answer
);
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
CREATE TABLE licence_pins (
  service   TEXT PRIMARY KEY,
  pinned_at TEXT NOT NULL
);
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
CREATE TABLE licence_serials (
  licence_id TEXT PRIMARY KEY,
  serial     INTEGER NOT NULL
);
CREATE TABLE licence_service_days (
  service   TEXT NOT NULL,
  day       TEXT NOT NULL,     -- YYYY-MM-DD (UTC) of the event
  first_seq INTEGER NOT NULL,  -- the first event of that service on that day
  PRIMARY KEY (service, day)
) WITHOUT ROWID;
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
CREATE TABLE licence_trust (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  revocations_seq  INTEGER NOT NULL,
  revoked          TEXT,           -- licence_id revoked, when the current licence is
  superseded_since TEXT            -- when the current serial was learnt superseded
);
CREATE TABLE licence_usage_state (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  last_sha256    TEXT,
  last_to        TEXT,
  statements     INTEGER NOT NULL,
  exceeded_day   TEXT
, clock_backwards INTEGER NOT NULL DEFAULT 0, clock_backwards_reported INTEGER NOT NULL DEFAULT 0);
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
CREATE TABLE lookback_reports (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  report TEXT NOT NULL,    -- JSON: days, since, until, total, connections (counts only)
  run_by TEXT NOT NULL,
  run_at TEXT NOT NULL,
  seq    INTEGER NOT NULL  -- the ledger event it projects
);
CREATE TABLE mail_settings (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  document   TEXT NOT NULL,                   -- canonical JSON
  updated_at TEXT NOT NULL
);
CREATE TABLE people (
  id         TEXT PRIMARY KEY,                 -- usr-<hex>
  email      TEXT NOT NULL UNIQUE,             -- lower-cased
  name       TEXT NOT NULL,
  role       TEXT NOT NULL CHECK (role IN ('viewer', 'responder', 'admin', 'owner')),
  handles    TEXT NOT NULL DEFAULT '{}',       -- canonical JSON {slack?, mattermost?, teams?, phone?}
  disabled   INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  seq        INTEGER NOT NULL                  -- the last ledger event that changed the row
);
CREATE TABLE people_sign_ins (
  user_id         TEXT PRIMARY KEY,
  last_sign_in_at TEXT NOT NULL
);
CREATE TABLE policy_state (
  source   TEXT PRIMARY KEY CHECK (source IN ('api', 'file')),
  document TEXT NOT NULL,   -- canonical JSON of the whole document (defaults filled in)
  file     TEXT,            -- the file's path; NULL for 'api'
  sha256   TEXT NOT NULL,   -- hex SHA-256 of document
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL -- the ledger event this row comes from
);
CREATE TABLE schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL);
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
CREATE TABLE signin_codes (
  email      TEXT PRIMARY KEY,                -- lower-cased
  code_hash  TEXT NOT NULL,                   -- SHA-256 hex of salt || code
  salt       TEXT NOT NULL,                   -- 16 random bytes, hex
  tries      INTEGER NOT NULL DEFAULT 0,      -- wrong codes so far; dead at 5
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL                    -- created_at + 10 minutes
);
CREATE TABLE signin_identities (
  provider TEXT NOT NULL,                   -- 'ldap', or 'oidc:<issuer>'
  subject  TEXT NOT NULL,                   -- the DN (lower-cased), or the ID token's sub
  user_id  TEXT NOT NULL,                   -- usr-<hex>
  bound_at TEXT NOT NULL,
  PRIMARY KEY (provider, subject)
);
CREATE TABLE signin_passwords (
  user_id    TEXT PRIMARY KEY,                -- usr-<hex>
  hash       TEXT NOT NULL,                   -- scrypt$<N>$<r>$<p>$<salt b64>$<key b64>
  updated_at TEXT NOT NULL
);
CREATE TABLE snapshot_changes (
  seq       INTEGER PRIMARY KEY, -- the snapshot.changed event
  connector TEXT NOT NULL,
  at        TEXT NOT NULL,       -- its ts
  diff      TEXT NOT NULL        -- canonical JSON {added, removed, changed, first?}
);
CREATE TABLE snapshot_facts (
  connector  TEXT PRIMARY KEY,
  facts      TEXT NOT NULL,   -- canonical JSON {key: value}, values already clipped
  changed_at TEXT NOT NULL,   -- ts of the event that last changed them
  seq        INTEGER NOT NULL -- that event
);
CREATE TABLE snapshot_reads (
  connector  TEXT PRIMARY KEY,
  status     TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  attempt_at TEXT NOT NULL,   -- the last read, whatever its outcome
  ok_at      TEXT,            -- the last successful read; NULL when none
  detail     TEXT             -- why the last read failed; NULL when it did not
);
CREATE TABLE sso_groups_seen (
  value         TEXT PRIMARY KEY,            -- a value of the groups claim, as sent
  first_seen_at TEXT NOT NULL,
  last_seen_at  TEXT NOT NULL,
  sign_ins      INTEGER NOT NULL DEFAULT 0   -- callbacks that carried it
);
CREATE TABLE sso_settings (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  settings TEXT NOT NULL,                    -- canonical JSON, references only
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL
);
CREATE TABLE study_relations (
  from_service TEXT NOT NULL,
  to_service   TEXT NOT NULL,
  study_id     TEXT NOT NULL,
  lag          INTEGER NOT NULL,
  strength     REAL NOT NULL,
  score        REAL NOT NULL,
  readings     TEXT NOT NULL,
  method       TEXT NOT NULL,
  step_s       REAL NOT NULL,      -- the readings' step: lag × step_s is the lead in seconds
  at           TEXT NOT NULL,
  PRIMARY KEY (from_service, to_service)
) WITHOUT ROWID;
CREATE TABLE study_runs (
  study_id   TEXT PRIMARY KEY,
  seq        INTEGER NOT NULL,   -- the ledger seq of study.started: the newest is the last
  minutes    INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  ends_at    TEXT NOT NULL,      -- the deadline
  by_actor   TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('running', 'finished', 'stopped', 'interrupted')),
  ended_at   TEXT,
  why        TEXT,               -- done, deadline, or why it was interrupted
  services   TEXT NOT NULL,      -- JSON array: the services it set out to walk
  relations_method TEXT,         -- lagged_correlation or causal_service, once related
  relations_note   TEXT          -- why the causal service was not used, when it is set
) WITHOUT ROWID;
CREATE TABLE study_services (
  service   TEXT PRIMARY KEY,
  study_id  TEXT NOT NULL,
  at        TEXT NOT NULL,
  win       TEXT NOT NULL,       -- JSON {from, to, step_s}: the readings' window
  baseline  TEXT NOT NULL,       -- JSON array of readings with their normal range
  obstacles TEXT NOT NULL,       -- JSON array of {what, reason, fix}
  causes    TEXT NOT NULL,       -- JSON array of causes with their readable checks
  complete  INTEGER NOT NULL CHECK (complete IN (0, 1))
) WITHOUT ROWID;
CREATE TABLE team_members (
  team_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  lead    INTEGER NOT NULL DEFAULT 0 CHECK (lead IN (0, 1)),
  PRIMARY KEY (team_id, user_id)
);
CREATE TABLE teams (
  id         TEXT PRIMARY KEY,                 -- team-<hex>
  name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  seq        INTEGER NOT NULL
);
CREATE TABLE trial_history (
  fingerprint TEXT PRIMARY KEY,
  started_at  TEXT NOT NULL,
  verified    INTEGER NOT NULL
);
CREATE TABLE trial_redeemed (
  trial_id    TEXT PRIMARY KEY,
  company_key TEXT NOT NULL,
  fingerprint TEXT,
  redeemed_at TEXT NOT NULL
);
CREATE TRIGGER episodes_fts_delete BEFORE DELETE ON episodes
  WHEN EXISTS (SELECT 1 FROM episodes_fts_docsize WHERE id = old.rowid)
BEGIN
  INSERT INTO episodes_fts (episodes_fts, rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT 'delete', rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = old.rowid;
END;
CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN
  INSERT INTO episodes_fts (rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = new.rowid;
END;
CREATE TRIGGER episodes_fts_update_after AFTER UPDATE OF episode_id, service, alerts, confirmed, note, fix, diagnosis ON episodes
  WHEN old.episode_id IS NOT new.episode_id OR old.service IS NOT new.service
    OR old.alerts IS NOT new.alerts OR old.confirmed IS NOT new.confirmed OR old.note IS NOT new.note
    OR old.fix IS NOT new.fix OR old.diagnosis IS NOT new.diagnosis
BEGIN
  INSERT INTO episodes_fts (rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = new.rowid;
END;
CREATE TRIGGER episodes_fts_update_before BEFORE UPDATE OF episode_id, service, alerts, confirmed, note, fix, diagnosis ON episodes
  WHEN (old.episode_id IS NOT new.episode_id OR old.service IS NOT new.service
    OR old.alerts IS NOT new.alerts OR old.confirmed IS NOT new.confirmed OR old.note IS NOT new.note
    OR old.fix IS NOT new.fix OR old.diagnosis IS NOT new.diagnosis)
    AND EXISTS (SELECT 1 FROM episodes_fts_docsize WHERE id = old.rowid)
BEGIN
  INSERT INTO episodes_fts (episodes_fts, rowid, episode_id, service, alerts, confirmed, note, fix, diagnosis)
    SELECT 'delete', rid, episode_id, service, alerts, confirmed, note, fix, diagnosis
    FROM episodes_fts_source WHERE rid = old.rowid;
END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_segments_no_delete BEFORE DELETE ON ledger_segments
BEGIN SELECT RAISE(ABORT, 'ledger seals are append-only'); END;
CREATE TRIGGER ledger_segments_no_update BEFORE UPDATE ON ledger_segments
BEGIN SELECT RAISE(ABORT, 'ledger seals are append-only'); END;
CREATE VIEW episodes_fts_source AS
  SELECT rowid AS rid,
    lower(CASE WHEN instr(episode_id, char(0)) > 0 THEN substr(episode_id, 1, instr(episode_id, char(0)) - 1) ELSE episode_id END) AS episode_id,
    lower(CASE WHEN instr(service, char(0)) > 0 THEN substr(service, 1, instr(service, char(0)) - 1) ELSE service END) AS service,
    lower(CASE WHEN instr(alerts, char(0)) > 0 THEN substr(alerts, 1, instr(alerts, char(0)) - 1) ELSE alerts END) AS alerts,
    lower(CASE WHEN instr(confirmed, char(0)) > 0 THEN substr(confirmed, 1, instr(confirmed, char(0)) - 1) ELSE confirmed END) AS confirmed,
    lower(CASE WHEN instr(note, char(0)) > 0 THEN substr(note, 1, instr(note, char(0)) - 1) ELSE note END) AS note,
    lower(CASE WHEN instr(fix, char(0)) > 0 THEN substr(fix, 1, instr(fix, char(0)) - 1) ELSE fix END) AS fix,
    lower(CASE WHEN instr(diagnosis, char(0)) > 0 THEN substr(diagnosis, 1, instr(diagnosis, char(0)) - 1) ELSE diagnosis END) AS diagnosis
  FROM episodes;

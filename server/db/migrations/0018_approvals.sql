-- Approval requests (issue 7): an action of an episode, a raise of autonomy, or fix mode
-- draft, waiting for people. A projection of approval.requested, approval.decided,
-- approval.closed and approval.sent; `svc-core rebuild` recreates it from the ledger.
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
);
CREATE INDEX approval_requests_pending ON approval_requests (expires_at) WHERE status = 'pending';
CREATE INDEX approval_requests_requested_at ON approval_requests (requested_at);
CREATE INDEX approval_requests_episode ON approval_requests (episode_id) WHERE episode_id IS NOT NULL;

-- Which channel each approve/deny link went out on (from approval.sent), so that a link
-- used counts as `channel:<connector>`. token_id: the first 32 hex digits of the link's MAC
-- (server/channels/links.ts), never the token itself.
CREATE TABLE approval_links (
  token_id   TEXT PRIMARY KEY,
  request_id TEXT NOT NULL,
  channel    TEXT NOT NULL,
  step       INTEGER NOT NULL
);

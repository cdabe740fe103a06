-- Single-use approve and deny links of the approval channels (docs/channels.md). One row per
-- approval request whose link was used: the first link used wins, so a replay of the same
-- link, or the other decision's link of that request, is refused, across restarts too.
-- Operational state, not a projection: the approvals domain records the decision itself in
-- the ledger; `svc-core rebuild` leaves this table alone.
CREATE TABLE channel_link_uses (
  request_id TEXT PRIMARY KEY,
  decision   TEXT NOT NULL CHECK (decision IN ('approve', 'deny')),
  token_id   TEXT NOT NULL,   -- the first 32 hex digits of the used token's MAC
  used_at    TEXT NOT NULL    -- ISO-8601 UTC
);

-- Approvers and requesters are counted by person id, not by display name (issue 16): a
-- rename (PUT /v1/me) between approvals must not make a second approver. The decisions
-- JSON carries by_id; the requester's id gets a column. NULL for requests opened before
-- this migration (their requested_by is then compared as it was).
ALTER TABLE approval_requests ADD COLUMN requested_by_id TEXT;

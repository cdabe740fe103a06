-- The policy document (GET/PUT /v1/policy): a projection of policy.set (PUT through the API)
-- and policy.loaded (the SVC_POLICY file read at start). One row per source, the last
-- document of each, so that removing the file hands the policy back to the last document
-- set through the API; seq tells which of the two the ledger recorded last.
CREATE TABLE policy_state (
  source   TEXT PRIMARY KEY CHECK (source IN ('api', 'file')),
  document TEXT NOT NULL,   -- canonical JSON of the whole document (defaults filled in)
  file     TEXT,            -- the file's path; NULL for 'api'
  sha256   TEXT NOT NULL,   -- hex SHA-256 of document
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL -- the ledger event this row comes from
);

-- Branding (GET/PUT /v1/branding): a projection of config.branding_set. One row, the last
-- document set; no row means the defaults.
CREATE TABLE branding_state (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  document TEXT NOT NULL,   -- canonical JSON of the whole document (defaults filled in)
  sha256   TEXT NOT NULL,   -- hex SHA-256 of document
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL -- the ledger event this row comes from
);

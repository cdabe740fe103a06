-- Connectors (PUT/DELETE /v1/connectors/<name>): a projection of config.connector_set and
-- config.connector_removed. The document holds secret settings only as references
-- ({file} or {env}); a typed-in secret was written to a 0600 file before the event.
CREATE TABLE connectors (
  name     TEXT PRIMARY KEY,
  kind     TEXT NOT NULL,
  document TEXT NOT NULL,   -- canonical JSON {kind, settings, max_in_flight?, timeout_s?}
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL -- the ledger event this row comes from
);

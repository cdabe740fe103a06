-- The estate (GET /v1/estate): a projection of estate.discovered (what one connector found,
-- replacing what it found before), estate.discover_failed (a connector that could not be
-- read; its earlier findings stay, marked stale) and config.estate_overrides (hand-made
-- services, placed links and ignored names, replaced whole).
CREATE TABLE estate_services (
  connector TEXT NOT NULL,   -- the connector that found it
  name      TEXT NOT NULL,
  kind      TEXT,            -- NULL when the connector does not say
  hosts     TEXT NOT NULL,   -- JSON array of host names or addresses
  origins   TEXT NOT NULL,   -- JSON array of {connector, how}
  last_seen TEXT NOT NULL,   -- ISO time of the event
  PRIMARY KEY (connector, name)
);

CREATE TABLE estate_links (
  connector    TEXT NOT NULL,
  from_service TEXT NOT NULL,
  to_service   TEXT NOT NULL,
  origin       TEXT NOT NULL, -- JSON {connector, how}
  PRIMARY KEY (connector, from_service, to_service)
);

-- The last discovery attempt of each connector.
CREATE TABLE estate_connectors (
  connector TEXT PRIMARY KEY,
  status    TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  at        TEXT NOT NULL,
  detail    TEXT,
  found_at  TEXT            -- the last successful discovery; NULL when none
);

CREATE TABLE estate_overrides (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  document TEXT NOT NULL,   -- canonical JSON of the overrides document
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL
);

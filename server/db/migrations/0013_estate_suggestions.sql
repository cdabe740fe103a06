-- What discovery saw beside services and links, per connector (listening ports, outgoing
-- connections, probed URLs, candidate units), replaced by each estate.discovered: links and
-- suggestions that join two connectors' findings are made from it when the estate is read.
CREATE TABLE estate_observations (
  connector TEXT PRIMARY KEY,
  document  TEXT NOT NULL,  -- canonical JSON {listen, connect, probes, candidates}
  at        TEXT NOT NULL
);

-- Suggested links a person decided on: confirmed (a placed link) or dismissed (hidden for
-- good). A projection of estate.suggestion_confirmed and estate.suggestion_dismissed.
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

-- The caller's own impact figures (GET/PUT /v1/impact): a projection of config.impact_set.
CREATE TABLE impact_figures (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  figures TEXT NOT NULL,   -- canonical JSON object of the specification's fields
  set_by  TEXT NOT NULL,
  set_at  TEXT NOT NULL
);

-- People, teams and who may sign in (issue 6). people, teams, team_members and
-- access_settings are projections of access.* ledger events; people_sign_ins is
-- operational state (last sign-in per person, no ledger event: the sessions record
-- auth.signed_in) and is left alone by a rebuild.
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
CREATE INDEX people_role ON people (role) WHERE disabled = 0;

CREATE TABLE teams (
  id         TEXT PRIMARY KEY,                 -- team-<hex>
  name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  seq        INTEGER NOT NULL
);

-- Everyone in a team; `lead` marks those who lead it (and may change or delete it).
CREATE TABLE team_members (
  team_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  lead    INTEGER NOT NULL DEFAULT 0 CHECK (lead IN (0, 1)),
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);

-- GET/PUT /v1/settings/access: one row, the last document set; no row means the defaults.
CREATE TABLE access_settings (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  document TEXT NOT NULL,                      -- canonical JSON
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL,
  seq      INTEGER NOT NULL
);

CREATE TABLE people_sign_ins (
  user_id         TEXT PRIMARY KEY,
  last_sign_in_at TEXT NOT NULL
);

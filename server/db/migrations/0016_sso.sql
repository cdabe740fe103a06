-- Single sign-on (OIDC) settings, a projection of config.sso_set (the client secret only as
-- a {file} or {env} reference), and the group values seen in SSO sign-ins, operational
-- state that GET /v1/settings/sso/groups searches (OIDC has no standard group listing).
CREATE TABLE sso_settings (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  settings TEXT NOT NULL,                    -- canonical JSON, references only
  set_by   TEXT NOT NULL,
  set_at   TEXT NOT NULL
);

CREATE TABLE sso_groups_seen (
  value         TEXT PRIMARY KEY,            -- a value of the groups claim, as sent
  first_seen_at TEXT NOT NULL,
  last_seen_at  TEXT NOT NULL,
  sign_ins      INTEGER NOT NULL DEFAULT 0   -- callbacks that carried it
);

-- Episodes: one line of investigation per service, opened by a signal, joined by later
-- signals of the service while open. A projection of episode.* and signal.resolved events.
CREATE TABLE episodes (
  episode_id TEXT PRIMARY KEY,
  service    TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('open', 'quiet', 'closed')),
  step       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  t_open     TEXT NOT NULL,
  t_quiet    TEXT,            -- when its last firing signal resolved (the flap hold starts)
  t_close    TEXT,
  alerts     TEXT NOT NULL,   -- JSON array of alert names, in order of arrival
  firing     INTEGER NOT NULL,
  decision   TEXT,
  outcome    TEXT,
  result     TEXT,
  action     TEXT NOT NULL DEFAULT '',
  handover_s INTEGER,
  autonomy   TEXT NOT NULL,
  confirmed  TEXT NOT NULL DEFAULT '[]',
  first_seq  INTEGER NOT NULL,
  last_seq   INTEGER NOT NULL
);
CREATE INDEX episodes_open ON episodes (service) WHERE status <> 'closed';
CREATE INDEX episodes_t_open ON episodes (t_open);

CREATE TABLE episode_signals (
  episode_id  TEXT NOT NULL,
  source      TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  name        TEXT NOT NULL,
  PRIMARY KEY (episode_id, source, fingerprint)
);
CREATE INDEX episode_signals_by_signal ON episode_signals (source, fingerprint);

-- Investigations: one row per investigated episode, what its live view shows (step,
-- findings, hypotheses, decision, actions) and what its close reads. A projection of
-- investigation.*, check.ran, decision.made and action.* events, plus the approval.requested
-- of an episode's action (the moment a person owns it: handover) and episode.joined (a signal
-- that joins after a round ended starts another round).
CREATE TABLE investigations (
  episode_id   TEXT PRIMARY KEY,
  service      TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('running', 'waiting', 'done', 'skipped', 'again')),  -- again: a signal joined after it ended
  step         TEXT NOT NULL,
  packs        TEXT NOT NULL DEFAULT '[]',   -- JSON array of pack ids
  changes      TEXT NOT NULL DEFAULT '[]',   -- JSON array: what changed in the hour before
  findings     TEXT NOT NULL DEFAULT '[]',   -- JSON array of Finding
  hypotheses   TEXT NOT NULL DEFAULT '[]',   -- JSON array of Hypothesis, best first
  decision     TEXT,                         -- JSON {decision, why, next, fix}
  actions      TEXT NOT NULL DEFAULT '[]',   -- JSON array, one entry per fix tried
  request_id   TEXT,                         -- the approval request it waits on
  result       TEXT,                         -- JSON {decision, outcome, result, action} at the end
  t_start      TEXT NOT NULL,
  t_diagnosed  TEXT,
  t_handover   TEXT,
  t_end        TEXT,
  first_seq    INTEGER NOT NULL,
  last_seq     INTEGER NOT NULL
);
CREATE INDEX investigations_status ON investigations (status) WHERE status IN ('running', 'waiting');
CREATE INDEX investigations_request ON investigations (request_id) WHERE request_id IS NOT NULL;

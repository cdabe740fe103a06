-- What-changed snapshots (docs/snapshots.md). snapshot_facts and snapshot_changes are a
-- projection of snapshot.changed: the newest setup facts of each connector, and every change
-- with its diff, so that "what changed since T" is one indexed query and `svc-core rebuild`
-- recreates both from the ledger.
CREATE TABLE snapshot_facts (
  connector  TEXT PRIMARY KEY,
  facts      TEXT NOT NULL,   -- canonical JSON {key: value}, values already clipped
  changed_at TEXT NOT NULL,   -- ts of the event that last changed them
  seq        INTEGER NOT NULL -- that event
);

CREATE TABLE snapshot_changes (
  seq       INTEGER PRIMARY KEY, -- the snapshot.changed event
  connector TEXT NOT NULL,
  at        TEXT NOT NULL,       -- its ts
  diff      TEXT NOT NULL        -- canonical JSON {added, removed, changed, first?}
);
CREATE INDEX snapshot_changes_at ON snapshot_changes (at);

-- Operational state, not a projection: a read that finds no change writes no event, yet its
-- time must survive a restart for the doctor's freshness. Rebuild leaves it alone; losing it
-- only makes the doctor wait for the next read.
CREATE TABLE snapshot_reads (
  connector  TEXT PRIMARY KEY,
  status     TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  attempt_at TEXT NOT NULL,   -- the last read, whatever its outcome
  ok_at      TEXT,            -- the last successful read; NULL when none
  detail     TEXT             -- why the last read failed; NULL when it did not
);

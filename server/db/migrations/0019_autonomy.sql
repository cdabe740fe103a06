-- Autonomy levels, fix mode and halt (issue 7). A projection of autonomy.set, fix_mode.set,
-- system.halt and system.resume; `svc-core rebuild` recreates it from the ledger.

-- One row per service with its own level; service '*' is the default (absent: shadow).
CREATE TABLE autonomy_levels (
  service    TEXT PRIMARY KEY,
  level      TEXT NOT NULL CHECK (level IN ('off', 'shadow', 'L1', 'L2')),
  set_by     TEXT NOT NULL,
  set_at     TEXT NOT NULL,
  request_id TEXT,                              -- the approval request of a raise
  seq        INTEGER NOT NULL
);

-- Fix mode and halt: one row, absent until the first change (advise, not halted).
CREATE TABLE autonomy_state (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  fix_mode         TEXT NOT NULL DEFAULT 'advise' CHECK (fix_mode IN ('advise', 'draft')),
  fix_mode_set_by  TEXT,
  fix_mode_set_at  TEXT,
  fix_mode_request TEXT,
  halted           INTEGER NOT NULL DEFAULT 0 CHECK (halted IN (0, 1)),
  halt_reason      TEXT,
  halted_by        TEXT,
  halted_at        TEXT,
  seq              INTEGER NOT NULL
);

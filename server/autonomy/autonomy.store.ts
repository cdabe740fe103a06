// Autonomy levels, fix mode and halt in SQLite: a projection of autonomy.set, fix_mode.set,
// system.halt and system.resume (the ledger is the record; `svc-core rebuild` recreates it).
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { AutonomyEvents } from './autonomy.events.js';
import { FIX_MODES, LEVELS, type AutonomyLevel, type FixMode } from './autonomy.schemas.js';

/** {service ('*' = default), level, from, request_id?, approved_by?} */
export const AUTONOMY_SET = 'autonomy.set';
/** {service, level, from, request_id}: a raise waits for its approvers. */
export const AUTONOMY_RAISE_REQUESTED = 'autonomy.raise_requested';
/** {mode, from, request_id?, approved_by?} */
export const FIX_MODE_SET = 'fix_mode.set';
/** {reason}; the event's reason too. */
export const SYSTEM_HALT = 'system.halt';
/** {reason?} */
export const SYSTEM_RESUME = 'system.resume';

export const AUTONOMY_EVENTS = [
  AUTONOMY_SET,
  AUTONOMY_RAISE_REQUESTED,
  FIX_MODE_SET,
  SYSTEM_HALT,
  SYSTEM_RESUME,
] as const;

export interface LevelRow {
  readonly service: string;
  readonly level: AutonomyLevel;
  readonly set_by: string;
  readonly set_at: string;
  readonly request_id: string | null;
}

export interface StateRow {
  readonly fix_mode: FixMode;
  readonly fix_mode_set_by: string | null;
  readonly fix_mode_set_at: string | null;
  readonly halted: boolean;
  readonly halt_reason: string | null;
  readonly halted_by: string | null;
  readonly halted_at: string | null;
}

const DEFAULT_STATE: StateRow = {
  fix_mode: 'advise',
  fix_mode_set_by: null,
  fix_mode_set_at: null,
  halted: false,
  halt_reason: null,
  halted_by: null,
  halted_at: null,
};

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const textOrNull = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function createAutonomyStore(db: Database) {
  const levels = db.prepare<[], LevelRow>(
    'SELECT service, level, set_by, set_at, request_id FROM autonomy_levels ORDER BY service',
  );
  const level = db.prepare<[string], LevelRow>(
    'SELECT service, level, set_by, set_at, request_id FROM autonomy_levels WHERE service = ?',
  );
  const lastSet = db.prepare<[], { at: string | null }>(
    'SELECT max(set_at) AS at FROM autonomy_levels',
  );
  const putLevel = db.prepare<[string, string, string, string, string | null, number]>(
    `INSERT INTO autonomy_levels (service, level, set_by, set_at, request_id, seq)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (service) DO UPDATE SET level = excluded.level, set_by = excluded.set_by,
       set_at = excluded.set_at, request_id = excluded.request_id, seq = excluded.seq`,
  );
  const state = db.prepare<
    [],
    {
      fix_mode: FixMode;
      fix_mode_set_by: string | null;
      fix_mode_set_at: string | null;
      halted: number;
      halt_reason: string | null;
      halted_by: string | null;
      halted_at: string | null;
    }
  >(
    `SELECT fix_mode, fix_mode_set_by, fix_mode_set_at, halted, halt_reason, halted_by, halted_at
     FROM autonomy_state WHERE id = 1`,
  );
  const ensureState = db.prepare<[number]>(
    'INSERT OR IGNORE INTO autonomy_state (id, seq) VALUES (1, ?)',
  );
  const putFixMode = db.prepare<[string, string, string, string | null, number]>(
    `UPDATE autonomy_state SET fix_mode = ?, fix_mode_set_by = ?, fix_mode_set_at = ?,
       fix_mode_request = ?, seq = ? WHERE id = 1`,
  );
  const putHalt = db.prepare<[number, string | null, string | null, string | null, number]>(
    `UPDATE autonomy_state SET halted = ?, halt_reason = ?, halted_by = ?, halted_at = ?, seq = ?
     WHERE id = 1`,
  );

  return {
    /** Every level set: per service, and '*' for the default. */
    levels: (): LevelRow[] => levels.all(),
    level: (service: string): LevelRow | null => level.get(service) ?? null,
    /** When any level last changed (null: never). */
    lastLevelChange: (): string | null => lastSet.get()?.at ?? null,
    state(): StateRow {
      const r = state.get();
      return r === undefined ? DEFAULT_STATE : { ...r, halted: r.halted === 1 };
    },
    projection: projectionOf<AutonomyEvents>({
      name: 'autonomy',
      tables: ['autonomy_levels', 'autonomy_state'],
      reserves: [AUTONOMY_RAISE_REQUESTED],
      on: {
        [AUTONOMY_SET]: (data, e) => {
          const service = text(data.service);
          const lvl = LEVELS.find((l) => l === data.level);
          if (service === '' || lvl === undefined) return;
          putLevel.run(service, lvl, e.actor, e.ts, textOrNull(data.request_id), e.seq);
        },
        [FIX_MODE_SET]: (data, e) => {
          const mode = FIX_MODES.find((m) => m === data.mode);
          if (mode === undefined) return;
          ensureState.run(e.seq);
          putFixMode.run(mode, e.actor, e.ts, textOrNull(data.request_id), e.seq);
        },
        [SYSTEM_HALT]: (data, e) => {
          ensureState.run(e.seq);
          putHalt.run(1, text(data.reason) || e.reason || '', e.actor, e.ts, e.seq);
        },
        [SYSTEM_RESUME]: (_data, e) => {
          ensureState.run(e.seq);
          putHalt.run(0, null, null, null, e.seq);
        },
      },
    }),
  };
}
export type AutonomyStore = ReturnType<typeof createAutonomyStore>;

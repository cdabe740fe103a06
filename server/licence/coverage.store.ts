// Service coverage's tables (licence.md §3.8, §3.10), written only by this projection: the
// days each service was seen (from the signal events, which intake's own projection keeps),
// the pinned services, and the state of the usage statements (the chain's last hash, the last
// day coverage was recorded exceeded).
import type { Database } from 'better-sqlite3';
import { projectionOf, reactionTo, type LedgerEvent } from '../ledger/index.js';
import type { LicenceEvents } from './licence.events.js';

export interface UsageStateRow {
  readonly last_sha256: string | null;
  readonly last_to: string | null;
  readonly statements: number;
  readonly exceeded_day: string | null;
  /** licence.clock_backwards events not yet reported by a usage statement */
  readonly clock_backwards: number;
}

/** A service and the ledger seq it was first seen at. */
export interface SeenService {
  readonly service: string;
  readonly first_seq: number;
}

/** The signal event types whose data carries the service (named by the composition root). */
export interface CoverageInputs {
  readonly signals: readonly string[];
}

const dayOf = (iso: string): string => iso.slice(0, 10);

export function createCoverageStore(db: Database, inputs: CoverageInputs) {
  const seen = db.prepare<[string, string, number]>(
    `INSERT OR IGNORE INTO licence_service_days (service, day, first_seq) VALUES (?, ?, ?)`,
  );
  // Services seen on or after a day, each with the seq it was first seen at ever.
  const since = db.prepare<[string], SeenService>(
    `SELECT r.service AS service,
            (SELECT min(first_seq) FROM licence_service_days x WHERE x.service = r.service) AS first_seq
     FROM (SELECT DISTINCT service FROM licence_service_days WHERE day >= ?) r
     ORDER BY first_seq, service`,
  );
  // Services seen per day in [from, to]: the days behind max_daily.
  const perDay = db.prepare<[string, string], { service: string; day: string }>(
    `SELECT service, day FROM licence_service_days WHERE day >= ? AND day <= ? ORDER BY day`,
  );
  const firstSeqOf = db.prepare<[string], { first_seq: number | null }>(
    `SELECT min(first_seq) AS first_seq FROM licence_service_days WHERE service = ?`,
  );
  const pinsQ = db.prepare<[], { service: string }>(
    `SELECT service FROM licence_pins ORDER BY service`,
  );
  const clearPins = db.prepare(`DELETE FROM licence_pins`);
  const putPin = db.prepare<[string, string]>(
    `INSERT OR REPLACE INTO licence_pins (service, pinned_at) VALUES (?, ?)`,
  );
  const stateQ = db.prepare<[], UsageStateRow>(
    `SELECT last_sha256, last_to, statements, exceeded_day,
            clock_backwards - clock_backwards_reported AS clock_backwards
     FROM licence_usage_state WHERE id = 1`,
  );
  const ensureState = db.prepare(
    `INSERT OR IGNORE INTO licence_usage_state (id, last_sha256, last_to, statements, exceeded_day) VALUES (1, NULL, NULL, 0, NULL)`,
  );
  const setExported = db.prepare<[string, string]>(
    `UPDATE licence_usage_state SET last_sha256 = ?, last_to = ?, statements = statements + 1,
       clock_backwards_reported = clock_backwards WHERE id = 1`,
  );
  const countBackwards = db.prepare(
    `UPDATE licence_usage_state SET clock_backwards = clock_backwards + 1 WHERE id = 1`,
  );
  const setExceeded = db.prepare<[string]>(
    `UPDATE licence_usage_state SET exceeded_day = ? WHERE id = 1`,
  );

  // Bumped whenever a service is seen on a new day or pins change: what readers cache
  // against (a rolled-back bump costs one extra read, never a stale answer).
  let generation = 0;

  const onSignal = (data: { readonly service?: unknown }, e: LedgerEvent): void => {
    if (typeof data.service !== 'string' || data.service === '') return;
    if (seen.run(data.service, dayOf(e.ts), e.seq).changes > 0) generation += 1;
  };

  return {
    generation: (): number => generation,
    /** A read inside an open transaction is never cached: a rollback would leave it behind. */
    cacheable: (): boolean => !db.inTransaction,
    /** Services seen on `day` (YYYY-MM-DD) or later, ordered by when each was first seen. */
    seenSince: (day: string): SeenService[] => since.all(day),
    /** The services seen on each day from `from` to `to` (YYYY-MM-DD, both included). */
    seenPerDay: (from: string, to: string): Map<string, string[]> => {
      const out = new Map<string, string[]>();
      for (const r of perDay.iterate(from, to)) {
        const list = out.get(r.day);
        if (list === undefined) out.set(r.day, [r.service]);
        else list.push(r.service);
      }
      return out;
    },
    /** The seq a service was first seen at, or null for one never seen. */
    firstSeen: (service: string): number | null => firstSeqOf.get(service)?.first_seq ?? null,
    pins: (): string[] => pinsQ.all().map((r) => r.service),
    usageState: (): UsageStateRow =>
      stateQ.get() ?? {
        last_sha256: null,
        last_to: null,
        statements: 0,
        exceeded_day: null,
        clock_backwards: 0,
      },
    projection: projectionOf<LicenceEvents>({
      name: 'licence_coverage',
      tables: ['licence_service_days', 'licence_pins', 'licence_usage_state'],
      on: {
        'licence.services_pinned': (d, e) => {
          generation += 1;
          clearPins.run();
          for (const s of d.pinned) if (typeof s === 'string') putPin.run(s, e.ts);
        },
        'licence.coverage_exceeded': (d) => {
          ensureState.run();
          setExceeded.run(String(d.day));
        },
        'licence.clock_backwards': () => {
          ensureState.run();
          countBackwards.run();
        },
        'licence.usage_exported': (d) => {
          ensureState.run();
          setExported.run(String(d.sha256), String(d.to));
        },
      },
      // Intake's projection keeps the signals; coverage only notes the day each service was seen.
      reacts: inputs.signals.map((type) =>
        reactionTo<{ readonly service?: unknown }>(type, onSignal),
      ),
    }),
  };
}
export type CoverageStore = ReturnType<typeof createCoverageStore>;

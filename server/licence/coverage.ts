// Service coverage (licence.md §3.8): limits without lock-out. A service is counted while it
// had a signal in the last 30 days, or is pinned; the covered set is the pinned services and
// then the earliest-first-seen counted ones, up to the licence's services (null: unlimited).
// Signals of an uncovered service are recorded as any other, only not investigated.
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { ConflictError, InvalidInputError } from '../shared/errors.js';
import type { CoverageStore, SeenService } from './coverage.store.js';
import type { LicenceEvents } from './licence.events.js';

const DAY_MS = 86_400_000;
/** A service is counted while it had a signal on one of the last 30 days (today included). */
export const COUNTED_DAYS = 30;
/** The most pins one call may send, whatever the licence. */
export const MAX_PINS = 10_000;
/** Service names as intake keeps them (intake.service.ts SAFE_SERVICE). */
const SERVICE_NAME = /^[A-Za-z0-9._:/-]{1,128}$/;
/** The uncovered services named in licence.coverage_exceeded. */
const NAMED_UNCOVERED = 50;

export interface CoverageState {
  /** the licensed number of services, null for unlimited */
  readonly limit: number | null;
  readonly pinned: readonly string[];
  /** counted services: pinned first, then by first seen */
  readonly counted: readonly string[];
  readonly covered: ReadonlySet<string>;
  /** counted services beyond the limit, by first seen */
  readonly uncovered: readonly string[];
}

interface Deps {
  readonly store: CoverageStore;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly writer: Writer;
  /** effective time (licence.effectiveNow) */
  readonly now: () => number;
  /** the licence's services, null for unlimited (or no licence: nothing to limit) */
  readonly limit: () => number | null;
}

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The first day still inside the counting window that ends on `ms`'s day. */
export const windowStart = (ms: number): string => dayOf(ms - (COUNTED_DAYS - 1) * DAY_MS);

/** Pinned ∪ the earliest-first-seen counted services, up to `limit`. */
export function coverageOf(
  pinned: readonly string[],
  seen: readonly SeenService[],
  limit: number | null,
): CoverageState {
  const pins = new Set(pinned);
  const others = seen.filter((s) => !pins.has(s.service)).map((s) => s.service);
  const room = limit === null ? others.length : Math.max(0, limit - pins.size);
  const covered = new Set([...pins, ...others.slice(0, room)]);
  return {
    limit,
    pinned: [...pins],
    counted: [...pins, ...others],
    covered,
    uncovered: others.slice(room),
  };
}

export function createCoverage(deps: Deps) {
  const { store, ledger, writer } = deps;
  let seenCache: { key: string; pins: string[]; seen: SeenService[]; used: number } | null = null;
  let cache: { seen: SeenService[]; limit: number | null; state: CoverageState } | null = null;

  /** Pins and services seen in the window; read on every status, so cached until one moves. */
  function seenNow(): { pins: string[]; seen: SeenService[]; used: number } {
    const from = windowStart(deps.now());
    const key = `${String(store.generation())}|${from}`;
    if (seenCache?.key === key) return seenCache;
    const pins = store.pins();
    const seen = store.seenSince(from);
    const pinSet = new Set(pins);
    const used = pins.length + seen.filter((s) => !pinSet.has(s.service)).length;
    const read = { key, pins, seen, used };
    seenCache = store.cacheable() ? read : null;
    return read;
  }

  /** The coverage now (the licence's limit applied to what is counted). */
  function state(): CoverageState {
    const { pins, seen } = seenNow();
    const limit = deps.limit();
    if (cache?.seen !== seen || cache.limit !== limit)
      cache = { seen, limit, state: coverageOf(pins, seen, limit) };
    return cache.state;
  }

  return {
    state,
    /** Whether the service's signals are investigated. */
    covered: (service: string): boolean => state().covered.has(service),
    /**
     * How many services count against the licence now (status `services_used`), limit aside:
     * the licence view reads it, so it never calls back into the view.
     */
    used: (): number => seenNow().used,

    /** PUT /v1/licence/services: the pinned services, replaced whole; audited when changed. */
    async pin(
      pinned: readonly string[],
      actor: string,
    ): Promise<{ pinned: string[]; added: string[]; removed: string[] }> {
      const bad = pinned.find((s) => !SERVICE_NAME.test(s));
      if (bad !== undefined) {
        throw new InvalidInputError(
          'invalid_service',
          `${JSON.stringify(bad.slice(0, 200))} is not a service name (letters, digits and . _ : / -, at most 128)`,
          { field: 'pinned' },
        );
      }
      const next = [...new Set(pinned)].sort();
      const limit = deps.limit();
      if (limit !== null && next.length > limit) {
        const over = next.length - limit;
        const why = `${String(over)} ${over === 1 ? 'pin' : 'pins'} over the ${String(limit)}-service limit`;
        throw new ConflictError(
          'too_many_pins',
          `cannot pin ${String(next.length)} services: ${why}`,
          {
            why,
            limit,
          },
        );
      }
      return writer.transact(() => {
        const before = new Set(store.pins());
        const added = next.filter((s) => !before.has(s));
        const removed = [...before].filter((s) => !next.includes(s)).sort();
        if (added.length > 0 || removed.length > 0) {
          ledger.append({
            type: 'licence.services_pinned',
            actor,
            data: { pinned: next, added, removed },
          });
        }
        return { pinned: next, added, removed };
      });
    },

    /** Every minute: coverage exceeded is recorded at most once a day, while it is. */
    async tick(): Promise<void> {
      const s = state();
      if (s.limit === null || s.uncovered.length === 0) return;
      const day = dayOf(deps.now());
      if (store.usageState().exceeded_day === day) return;
      await writer.transact(() => {
        if (store.usageState().exceeded_day === day) return;
        ledger.append({
          type: 'licence.coverage_exceeded',
          actor: 'system',
          data: {
            day,
            limit: s.limit ?? 0,
            counted: s.counted.length,
            uncovered: s.uncovered.length,
            services: s.uncovered.slice(0, NAMED_UNCOVERED),
          },
          reason: `${String(s.uncovered.length)} services beyond the licence's ${String(s.limit)}: their signals are recorded but not investigated`,
        });
      });
    },
  };
}
export type Coverage = ReturnType<typeof createCoverage>;

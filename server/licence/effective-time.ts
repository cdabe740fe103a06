// Effective time for every licence decision (licence.md §3.8): the latest of the wall clock,
// a persisted high-water mark and the newest ledger event, so turning the clock back cannot
// extend a licence. A clock that runs backwards past the tolerance is reported, never punished:
// a dead RTC battery is commoner than fraud.
import { readFileSync } from 'node:fs';
import { writeSecretFile } from '../secrets/index.js';
import type { Clock } from '../shared/clock.js';

export interface EffectiveTime {
  /** max(wall clock, high-water mark), in ms; the mark starts at least at the newest event */
  now(): number;
  /** the high-water mark as persisted */
  hwm(): number;
  /**
   * Moves the mark to the wall clock when that is later and persists it; returns how far the
   * wall clock is behind the mark in seconds when that is beyond the tolerance, else null.
   */
  advance(): number | null;
  /**
   * Sets the mark back to `toMs` (forward-jump recovery, §3.8: signed authority time earlier
   * than the mark by more than the tolerance) and persists it; the wall clock still counts.
   */
  reset(toMs: number): void;
  /** The tolerance in ms for a clock behind the mark (SVC_CLOCK_TOLERANCE_S). */
  readonly toleranceMs: number;
}

export function createEffectiveTime(deps: {
  readonly clock: Clock;
  /** SVC_DATA/licence-clock.json */
  readonly file: string;
  readonly toleranceS: number;
  /** the newest ledger event's time at start, in ms (0 for an empty ledger): hash-chained and
   * sealed, so rolling it back breaks verify */
  readonly newestEventMs: number;
}): EffectiveTime {
  let mark = Math.max(readClockMark(deps.file), deps.newestEventMs);
  return {
    now() {
      return Math.max(deps.clock.now(), mark);
    },
    hwm: () => mark,
    advance() {
      const wall = deps.clock.now();
      if (wall > mark) {
        mark = wall;
        writeSecretFile(deps.file, `${JSON.stringify({ hwm: new Date(mark).toISOString() })}\n`);
        return null;
      }
      const behindS = Math.floor((mark - wall) / 1000);
      return behindS > deps.toleranceS ? behindS : null;
    },
    reset(toMs) {
      mark = toMs;
      writeSecretFile(deps.file, `${JSON.stringify({ hwm: new Date(mark).toISOString() })}\n`);
    },
    toleranceMs: deps.toleranceS * 1000,
  };
}

/** The persisted high-water mark in ms; 0 when there is none or it cannot be read. */
export function readClockMark(file: string): number {
  try {
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { hwm?: unknown }).hwm;
    const t = typeof v === 'string' ? Date.parse(v) : NaN;
    return Number.isNaN(t) ? 0 : t;
  } catch {
    return 0; // first start, or an unreadable file: the ledger's newest event still bounds it
  }
}

// Reading and verifying the ledger for GET /v1/ledger and GET /v1/ledger/verify.
import type { KeyObject } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { InvalidInputError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import { parseQuery } from '../shared/query-language.js';
import type { LedgerListStore } from './ledger-list.store.js';
import type { LedgerQuery } from './ledger.schemas.js';
import type { LedgerStore } from './ledger.store.js';
import {
  checkCheckpoint,
  verifyLedger,
  verifySpan,
  type SpanRunner,
  type VerifyFailure,
  type VerifyReport,
} from './verify.js';
import { readSavedCheckpoint, savedCheckpointFailure } from './checkpoint-file.js';
import { parseCheckpoint } from './checkpoint.js';

interface Deps {
  readonly store: LedgerStore;
  readonly list: LedgerListStore;
  readonly clock: Clock;
  readonly keyFor: (algorithm: string) => KeyObject | null;
  readonly keyName: string;
  readonly algorithm: string;
  readonly keyFingerprint: string;
  /** Verifies spans of a large ledger on other threads. */
  readonly runner?: SpanRunner;
  /** The newest seal saved beside the database (checkpoint-file.ts), checked on every verify. */
  readonly checkpointFile?: string;
}

/**
 * A date alone means its midnight UTC, a timestamp without an offset is UTC too (never the
 * host's zone); anything else must parse as a timestamp on a real calendar day (Date.parse
 * rolls 2026-02-30 over to March, so the day is checked first).
 */
export function normaliseTime(value: string, field: string): string {
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  const [y, m, d] = day === null ? [0, 0, 0] : [Number(day[1]), Number(day[2]), Number(day[3])];
  const realDay =
    day !== null && m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? `${value}T00:00:00.000Z`
    : /(Z|[+-]\d{2}:?\d{2})$/i.test(value)
      ? value
      : `${value}Z`;
  const ms = Date.parse(iso);
  if (!realDay || Number.isNaN(ms))
    throw new InvalidInputError('invalid_input', `${field} is not a valid date or timestamp`, {
      field,
    });
  return new Date(ms).toISOString();
}

/** How often the doctor's ledger check re-verifies everything, not only what is new. */
export const FULL_VERIFY_EVERY_MS = 60 * 60 * 1000;

/** How long a full verify's report answers again while the head has not moved. */
export const VERIFY_KEEP_MS = 5_000;

/** A verify report as the API and CLI show it. */
export type LedgerVerifyReport = VerifyReport & {
  readonly algorithm: string;
  readonly key_fingerprint: string;
  /** When the chain was last recomputed; a report is reused until the head moves. */
  readonly verified_at: string;
};

export interface VerifyRequest {
  /** A checkpoint saved elsewhere (C2SP signed note) the ledger must still contain. */
  readonly checkpoint?: string;
  /** Recompute even if the head has not moved (the doctor's hourly full verify). */
  readonly fresh?: boolean;
}

export function createLedgerReader(deps: Deps) {
  const { store, list, clock } = deps;
  const verifyDeps = {
    store,
    keyFor: deps.keyFor,
    keyName: deps.keyName,
    keyFingerprint: deps.keyFingerprint,
  };
  // The doctor's check: a full verify at most hourly, in between only the segments sealed
  // since and the unsealed tail, so a console polling the doctor never re-reads a large
  // ledger every 15 s. GET /v1/ledger/verify and svc-core ledger-verify are always full.
  let lastFull: { at: number; sealedThrough: number; segments: number } | null = null;
  // One full verify at a time: callers arriving meanwhile share it, and its report is reused
  // while the head has not moved, for at most VERIFY_KEEP_MS, so many viewers polling verify
  // cost one read of the ledger every few seconds. Not longer: a row changed behind the
  // service's back leaves the head as it was, and a person who asks again must see it.
  let running: Promise<LedgerVerifyReport> | null = null;
  let kept: LedgerVerifyReport | null = null;
  let keptAt = -Infinity;

  function runOnce(): Promise<LedgerVerifyReport> {
    if (running !== null) return running;
    const run = (async () => {
      try {
        const report = await verifyLedger(verifyDeps, {
          pause: () => yieldToLoop(),
          ...(deps.runner !== undefined && { runner: deps.runner }),
        });
        if (report.ok) {
          lastFull = {
            at: clock.now(),
            sealedThrough: report.sealed_through,
            segments: report.segments,
          };
        }
        keptAt = clock.now();
        kept = {
          ...report,
          algorithm: deps.algorithm,
          key_fingerprint: deps.keyFingerprint,
          verified_at: clock.nowIso(),
        };
        return kept;
      } finally {
        running = null;
      }
    })();
    running = run;
    return run;
  }

  async function chainReport(fresh: boolean): Promise<LedgerVerifyReport> {
    if (running !== null) {
      const shared = await running;
      if (!fresh) return shared;
    }
    const head = store.head();
    // The last report while the head has not moved (same seq and hash), for a few seconds.
    if (
      !fresh &&
      kept !== null &&
      clock.now() - keptAt < VERIFY_KEEP_MS &&
      kept.head.seq === head.seq &&
      kept.head.hash === (head.hash?.toString('hex') ?? null)
    )
      return kept;
    return runOnce();
  }

  async function verify(options: VerifyRequest = {}): Promise<LedgerVerifyReport> {
    if (options.checkpoint !== undefined) {
      try {
        parseCheckpoint(options.checkpoint);
      } catch (err) {
        throw new InvalidInputError(
          'invalid_input',
          `checkpoint is not a signed ledger checkpoint: ${(err as Error).message}`,
          { field: 'checkpoint' },
        );
      }
    }
    const report = await chainReport(options.fresh === true);
    if (report.failure !== null) return report;
    const failure = checkpointFailure(options.checkpoint, report.head.seq);
    return failure === null ? report : { ...report, ok: false, failure };
  }

  /** The given checkpoint, then the one saved beside the database: cheap, so never cached. */
  function checkpointFailure(given: string | undefined, headSeq: number): VerifyFailure | null {
    if (given !== undefined) {
      const failure = checkCheckpoint(verifyDeps, given, headSeq);
      if (failure !== null) return failure;
    }
    const file = deps.checkpointFile;
    const saved = file === undefined ? null : readSavedCheckpoint(file);
    if (file === undefined || saved === null) return null;
    return savedCheckpointFailure(verifyDeps, file, saved, headSeq);
  }

  return {
    list(q: LedgerQuery) {
      const now = clock.now();
      const types = (q.type ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      const filter = {
        types,
        ...(q.trace !== undefined && { trace: q.trace }),
        ...(q.actor !== undefined && { actor: q.actor }),
        ...(q.q !== undefined && { q: q.q }),
        ...(q.query !== undefined && q.query.trim() !== '' && { query: parseQuery(q.query) }),
        ...(q.since !== undefined && { since: normaliseTime(q.since, 'since') }),
        ...(q.until !== undefined && { until: normaliseTime(q.until, 'until') }),
        ...(q.before_seq !== undefined && { beforeSeq: q.before_seq }),
        ...(q.after_seq !== undefined && { afterSeq: q.after_seq }),
      };
      const page = list.page(
        filter,
        {
          order: q.order ?? 'desc',
          limit: q.limit ?? 100,
          offset: q.offset ?? 0,
          ...(q.latest !== undefined && { latest: q.latest }),
        },
        now,
      );
      const head = store.head();
      return {
        ...page,
        counts: list.counts(filter, now),
        head: { seq: head.seq, hash: head.hash?.toString('hex') ?? null },
        checkpoint: store.lastSegment()?.checkpoint ?? null,
      };
    },
    verify,
    /** For the doctor: everything hourly, else what was added since the last full verify. */
    async verifyRecent(): Promise<VerifyReport & { full: boolean; full_at: string | null }> {
      const full = lastFull;
      if (full === null || clock.now() - full.at >= FULL_VERIFY_EVERY_MS) {
        const report = await verify({ fresh: true });
        return { ...report, full: true, full_at: clock.nowIso() };
      }
      const started = performance.now();
      const head = store.head();
      const segments = store.segments();
      const span = {
        after: full.sealedThrough,
        to: head.seq,
        segIndex: full.segments,
        isLast: true,
      };
      const result = await verifySpan(verifyDeps, segments, span, {
        pause: () => yieldToLoop(),
      });
      const ms = performance.now() - started;
      const last = segments[segments.length - 1];
      if (result.failure === null && last !== undefined) {
        lastFull = { ...full, sealedThrough: last.last_seq, segments: segments.length };
      }
      return {
        ok: result.failure === null,
        checked: result.checked,
        head: { seq: head.seq, hash: head.hash?.toString('hex') ?? null },
        segments: segments.length,
        sealed_through: last?.last_seq ?? 0,
        failure: result.failure,
        duration_ms: Math.round(ms),
        events_per_s: ms > 0 ? Math.round((result.checked / ms) * 1000) : 0,
        full: false,
        full_at: new Date(full.at).toISOString(),
      };
    },
  };
}
export type LedgerReader = ReturnType<typeof createLedgerReader>;

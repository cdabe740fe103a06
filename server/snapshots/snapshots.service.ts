// What-changed snapshots: every SVC_SNAPSHOT_S each connector whose kind has the `setup`
// operation is asked for its setup facts; a difference from its last facts (or a first
// read) becomes a snapshot.changed event with the diff. Reads that change nothing write no
// event but their time, so the doctor can say how fresh the snapshots are.
import type { Logger } from 'pino';
import { createLimiter } from '../connectors/index.js';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { InvalidInputError } from '../shared/errors.js';
import { withTimeout } from '../shared/timeout.js';
import { diffFacts, isEmptyDiff, normaliseFacts, type Facts } from './snapshots.diff.js';
import {
  SNAPSHOT_CHANGED,
  SNAPSHOT_FAILED,
  SNAPSHOT_RECOVERED,
  type SnapshotsStore,
  type StoredChange,
} from './snapshots.store.js';
import type { SnapshotEvents } from './snapshots.events.js';
import { messageOf } from '../shared/values.js';

/** A configured connector whose kind lists `setup`; `problem` set means it could not be built. */
export interface SnapshotSource {
  readonly name: string;
  readonly kind: string;
  readonly problem?: string | null;
}

export interface SnapshotsDeps {
  readonly store: SnapshotsStore;
  readonly ledger: DomainLedger<SnapshotEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  /** The connectors to read now (those whose kind has the `setup` operation). */
  readonly sources: () => readonly SnapshotSource[];
  /** One connector operation through the connectors runtime (its limiter and timeout). */
  readonly call: (
    name: string,
    op: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
  /** SVC_SNAPSHOT_S */
  readonly intervalS: number;
  /** Delay of the first run after start(); default 5 s, so start-up is not slowed. */
  readonly firstDelayMs?: number;
  /** How often connectors never read yet are looked for (default CATCH_UP_MS). */
  readonly catchUpMs?: number;
  /** Connectors read at once; default 4. */
  readonly workers?: number;
  /**
   * A backstop for one read when `call` does not bound itself; default 300 s. The runtime's
   * per-connector timeout normally answers long before.
   */
  readonly backstopS?: number;
  readonly log: Pick<Logger, 'warn' | 'info' | 'debug'>;
}

/** A read older than this is stale (the doctor's "read within 30 minutes"). */
export const FRESH_MS = 30 * 60 * 1000;
/** At most this many changes per changesSince answer. */
export const CHANGES_LIMIT = 1000;
const ACTOR = 'system';
const DETAIL_MAX = 300;

export interface ConnectorFreshness {
  readonly connector: string;
  readonly kind: string;
  /** 'never' until the first read finished */
  readonly status: 'ok' | 'failed' | 'never';
  /** the last successful read; null when none */
  readonly ok_at: string | null;
  /** the last read, whatever its outcome */
  readonly attempt_at: string | null;
  /** ms since ok_at; null when never read successfully */
  readonly age_ms: number | null;
  readonly fresh: boolean;
  /** why the last read failed */
  readonly detail: string | null;
}

export interface Freshness {
  readonly max_age_ms: number;
  readonly connectors: readonly ConnectorFreshness[];
}

/** What one connector's setup did since a time, for "what changed". */
export type SnapshotChange = StoredChange;

type Outcome = 'first' | 'changed' | 'unchanged' | 'failed';

const clip = (s: string): string => (s.length > DETAIL_MAX ? `${s.slice(0, DETAIL_MAX - 1)}…` : s);

/** Connectors added after a run are read this soon, not a whole interval later. */
export const CATCH_UP_MS = 15_000;

export function createSnapshotsService(deps: SnapshotsDeps) {
  const { store, ledger, writer, clock, log } = deps;
  const limit = createLimiter(deps.workers ?? 4, 10_000);
  const backstopS = deps.backstopS ?? 300;
  let first: NodeJS.Timeout | null = null;
  let timer: NodeJS.Timeout | null = null;
  let catchUp: NodeJS.Timeout | null = null;
  let running: Promise<Record<string, Outcome>> | null = null;
  let stopped = false;

  /** Compare and record inside one writer job, so the read time and its event commit together. */
  function record(name: string, facts: Facts | null, error: string | null): Promise<Outcome> {
    return writer.transact((): Outcome => {
      const at = clock.nowIso();
      const before = store.read(name);
      if (facts === null) {
        const detail = clip(error ?? 'no answer');
        store.recordRead(name, at, false, detail);
        // Only the turn from working (or never read) to failing is an event: no flood.
        if (before?.status !== 'failed')
          ledger.append({ type: SNAPSHOT_FAILED, actor: ACTOR, data: { connector: name, detail } });
        return 'failed';
      }
      store.recordRead(name, at, true, null);
      const old = store.facts(name);
      const diff = diffFacts(old, facts);
      if (old === null || !isEmptyDiff(diff)) {
        ledger.append({
          type: SNAPSHOT_CHANGED,
          actor: ACTOR,
          data: { connector: name, ...diff, ...(old === null && { first: true }) },
        });
        return old === null ? 'first' : 'changed';
      }
      if (before?.status === 'failed')
        ledger.append({ type: SNAPSHOT_RECOVERED, actor: ACTOR, data: { connector: name } });
      return 'unchanged';
    });
  }

  async function readOne(s: SnapshotSource): Promise<Outcome> {
    let facts: Facts | null = null;
    let error: string | null = null;
    try {
      if (s.problem !== undefined && s.problem !== null)
        throw new Error(`connector ${s.name} cannot be used: ${s.problem}`);
      facts = normaliseFacts(
        await withTimeout(
          deps.call(s.name, 'setup', {}),
          backstopS,
          `connector ${s.name}: setup did not answer within ${String(backstopS)} s`,
        ),
      );
    } catch (err) {
      error = messageOf(err);
    }
    const outcome = await record(s.name, facts, error);
    if (outcome === 'failed') log.debug({ connector: s.name, detail: error }, 'setup read failed');
    else if (outcome !== 'unchanged') log.info({ connector: s.name }, 'setup changed');
    return outcome;
  }

  function listSources(): readonly SnapshotSource[] {
    try {
      return deps.sources();
    } catch (err) {
      log.warn({ err: messageOf(err) }, 'listing connectors for snapshots failed');
      return [];
    }
  }

  async function tick(only?: (s: SnapshotSource) => boolean): Promise<Record<string, Outcome>> {
    const outcomes: Record<string, Outcome> = {};
    const sources = listSources().filter((s) => only?.(s) ?? true);
    await Promise.all(
      sources.map((s) =>
        limit
          .run(() => readOne(s))
          .then((o) => {
            outcomes[s.name] = o;
          })
          .catch((err: unknown) => {
            // Only storage can fail here (the read's own failure is an outcome).
            log.warn({ connector: s.name, err: messageOf(err) }, 'recording a snapshot failed');
          }),
      ),
    );
    return outcomes;
  }

  return {
    /**
     * Read every source now; a run already under way is shared, never overlapped. Resolves
     * to each connector's outcome (for tests and the first run).
     */
    runNow(): Promise<Record<string, Outcome>> {
      running ??= tick().finally(() => {
        running = null;
      });
      return running;
    },
    /** First run after firstDelayMs, then every intervalS; the timers never hold the process. */
    start(): void {
      if (stopped || timer !== null) return;
      const run = (): void => {
        if (!stopped) void this.runNow();
      };
      first = setTimeout(run, deps.firstDelayMs ?? 5000);
      first.unref();
      timer = setInterval(run, deps.intervalS * 1000);
      timer.unref();
      // A connector added between runs is read within CATCH_UP_MS, not an interval later.
      catchUp = setInterval(() => {
        if (stopped || running !== null) return;
        if (!listSources().some((s) => store.read(s.name) === null)) return;
        running = tick((s) => store.read(s.name) === null).finally(() => {
          running = null;
        });
      }, deps.catchUpMs ?? CATCH_UP_MS);
      catchUp.unref();
    },
    /** Stop the timers and wait for a run under way (before the writer closes). */
    async stop(): Promise<void> {
      stopped = true;
      if (first !== null) clearTimeout(first);
      if (timer !== null) clearInterval(timer);
      if (catchUp !== null) clearInterval(catchUp);
      first = null;
      timer = null;
      catchUp = null;
      await running;
    },
    /**
     * Setup changes at or after `iso`, oldest first (at most CHANGES_LIMIT): what the
     * investigation asks at intake ("what changed in the last hour").
     */
    changesSince(iso: string): SnapshotChange[] {
      const ms = Date.parse(iso);
      if (Number.isNaN(ms))
        throw new InvalidInputError('invalid_input', 'since must be an ISO-8601 time', {
          field: 'since',
        });
      return store.changesSince(new Date(ms).toISOString(), CHANGES_LIMIT);
    },
    /** How fresh each source's facts are, for the doctor. */
    freshness(): Freshness {
      const now = clock.now();
      const reads = new Map(store.reads().map((r) => [r.connector, r] as const));
      return {
        max_age_ms: FRESH_MS,
        connectors: deps.sources().map((s) => {
          const r = reads.get(s.name);
          const age = r?.ok_at ? Math.max(0, now - Date.parse(r.ok_at)) : null;
          return {
            connector: s.name,
            kind: s.kind,
            status: r?.status ?? 'never',
            ok_at: r?.ok_at ?? null,
            attempt_at: r?.attempt_at ?? null,
            age_ms: age,
            fresh: age !== null && age <= FRESH_MS,
            detail: r?.detail ?? null,
          };
        }),
      };
    },
  };
}
export type SnapshotsService = ReturnType<typeof createSnapshotsService>;

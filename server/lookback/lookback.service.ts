// Lookback: resolved incidents over the last 7 to 365 days, counted by each connection that
// keeps history (paging and ticketing tools). Counts only: no incident is read or kept. A
// connection that fails is reported with why, beside the others' counts; the report is
// one ledger event, and the last one is kept for GET.
import { RESOLVED_COUNT } from '../connectors/index.js';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { LOOKBACK_REPORTED, type LookbackEvents } from './lookback.events.js';
import {
  MAX_DAYS,
  MIN_DAYS,
  type HistoryConnection,
  type LookbackReport,
  type LookbackView,
} from './lookback.schemas.js';
import type { LookbackStore } from './lookback.store.js';
import { messageOf } from '../shared/values.js';

const DAY_MS = 86_400_000;

interface Deps {
  readonly store: LookbackStore;
  readonly ledger: DomainLedger<LookbackEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  /** The kinds whose capabilities include history. */
  readonly kinds: () => readonly string[];
  /** Configured connections (name, kind, problem, last health). */
  readonly connections: () => readonly HistoryConnection[];
  /** One connector call, through its limiter and timeout. */
  readonly call: (
    name: string,
    op: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
}

function countOf(answer: unknown): { count: number; detail: string | null } {
  const a = (answer ?? {}) as { count?: unknown; detail?: unknown };
  if (typeof a.count !== 'number' || !Number.isInteger(a.count) || a.count < 0)
    throw new Error('the connection answered without a count');
  return { count: a.count, detail: typeof a.detail === 'string' ? a.detail : null };
}

export function createLookbackService(deps: Deps) {
  const { store, ledger, writer, clock } = deps;

  function historyConnections(): HistoryConnection[] {
    const kinds = new Set(deps.kinds());
    return deps
      .connections()
      .filter((c) => kinds.has(c.kind))
      .map((c) => ({
        name: c.name,
        kind: c.kind,
        problem: c.problem,
        last_health:
          c.last_health === null
            ? null
            : { ok: c.last_health.ok, detail: c.last_health.detail, at: c.last_health.at },
      }));
  }

  /** The history connections; 409 `no_history_connection` when there is none. */
  function requireHistory(): HistoryConnection[] {
    const connections = historyConnections();
    if (connections.length === 0)
      throw new ConflictError(
        'no_history_connection',
        'no connection keeps history: add a paging or ticketing connection first',
        {
          why: `lookback reads resolved incidents from connections of kind ${deps.kinds().join(', ')}; none is configured`,
        },
      );
    return connections;
  }

  let inFlight: { days: number; report: Promise<LookbackReport> } | null = null;

  function last(): LookbackReport | null {
    const row = store.last();
    if (row === null) return null;
    const { via: _via, ...report } = row.report;
    return { ...report, run_by: row.run_by, run_at: row.run_at, seq: row.seq };
  }

  return {
    /** GET /v1/lookback */
    view(): LookbackView {
      return {
        report: last(),
        connections: historyConnections(),
        kinds: [...deps.kinds()],
        days: { minimum: MIN_DAYS, maximum: MAX_DAYS },
      };
    },
    /** POST /v1/lookback: count over the last `days` days, report and record it. */
    requireHistory,
    /** One count at a time: a second run while one is under way gets its report, so two
     * admins never double the calls to every vendor (whose limits are per account). */
    run(days: number, actor: Actor): Promise<LookbackReport> {
      if (inFlight !== null && inFlight.days === days) return inFlight.report;
      const report = count(days, actor).finally(() => {
        inFlight = null;
      });
      inFlight = { days, report };
      return report;
    },
  };

  async function count(days: number, actor: Actor): Promise<LookbackReport> {
    const connections = requireHistory();
    const now = clock.now();
    const until = new Date(now).toISOString();
    const since = new Date(now - days * DAY_MS).toISOString();
    // All at once, each within its own connector's timeout: one slow tool delays only itself.
    const counted = await Promise.all(
      connections.map(async (c) => {
        try {
          const { count, detail } = countOf(
            await deps.call(c.name, RESOLVED_COUNT, { since, until }),
          );
          return { name: c.name, kind: c.kind, count, error: null, detail };
        } catch (err) {
          return { name: c.name, kind: c.kind, count: null, error: messageOf(err), detail: null };
        }
      }),
    );
    const total = counted.reduce((sum, c) => sum + (c.count ?? 0), 0);
    await writer.transact(() =>
      ledger.append({
        type: LOOKBACK_REPORTED,
        actor: actor.name,
        data: {
          days,
          since,
          until,
          total,
          connections: counted,
          ...(actor.via !== undefined && { via: actor.via }),
        },
      }),
    );
    const report = last();
    if (report === null) throw new Error('the lookback report was not projected');
    return report;
  }
}
export type LookbackService = ReturnType<typeof createLookbackService>;

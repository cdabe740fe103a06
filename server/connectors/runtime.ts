// The connectors in use: one client per connector, built from its document with secrets
// resolved; every call bounded (a per-connector limiter) and timed (an AbortController),
// so a connector that stops answering holds only its own slots, never the others'.
import type { Logger } from 'pino';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import type { ConnectorClient, ConnectorKind, HealthResult } from './kind.js';
import { ConnectorProblem, resolveSettings, timeoutOf, type SecretRef } from './document.js';
import { createLimiter, DEFAULT_QUEUE_LIMIT, QueueFullError, type Limiter } from './limiter.js';
import type { Registry } from './registry.js';
import type {
  ConnectorDocument,
  ConnectorView,
  HealthView,
  LastHealth,
} from './connectors.schemas.js';
import { messageOf } from '../shared/values.js';

/** One configured connector, from the store or from the SVC_CONNECTORS file. */
export interface ConnectorEntry {
  readonly name: string;
  readonly document: ConnectorDocument;
  readonly set_by: string | null;
  readonly set_at: string | null;
}

export type ConnectorCallErrorCode =
  | 'not_found' // no connector of that name
  | 'problem' // the connector could not be built (see its problem)
  | 'unknown_operation' // its kind has no such operation
  | 'busy' // too many calls already wait for it
  | 'timeout' // no answer within timeout_s
  | 'failed'; // the client answered with an error

/** A call to a connector did not give an answer; `message` is safe to show and to log. */
export class ConnectorCallError extends Error {
  override readonly name = 'ConnectorCallError';
  readonly code: ConnectorCallErrorCode;
  readonly connector: string;
  constructor(code: ConnectorCallErrorCode, connector: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.connector = connector;
  }
}

interface Built {
  entry: ConnectorEntry;
  /** Canonical JSON of the document: an unchanged document keeps its client. */
  readonly key: string;
  readonly kind: ConnectorKind | null;
  readonly client: ConnectorClient | null;
  readonly problem: string | null;
  readonly limiter: Limiter;
  readonly timeoutS: number;
  lastHealth: LastHealth | null;
  /** A health check of this client has succeeded at least once. */
  everOk: boolean;
}

export interface ConnectorRuntimeDeps {
  readonly registry: Registry;
  /** The configured connectors, read at every rebuild. */
  readonly source: () => readonly ConnectorEntry[];
  /** Where {env} references are resolved: the process environment, handed in by the app. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Why a connector's secret reference may not be used (server/secrets/refs.ts), or null. The
   * connectors service always passes it; tests that build a runtime alone may leave it out.
   */
  readonly refProblem?: (connector: string, setting: string, ref: SecretRef) => string | null;
  /** SVC_CONNECTOR_CONCURRENCY: calls in flight per connector without its own max_in_flight. */
  readonly defaultConcurrency: number;
  readonly log: Logger;
  readonly clock: Clock;
  /** Calls that may wait per connector before further ones fail at once (1000). */
  readonly queueLimit?: number;
}

/**
 * Run `work` with an AbortSignal that fires after `timeoutS`. The answer is abandoned at
 * that moment even when the client ignores the signal, so the caller's slot is freed.
 */
async function withTimeout<T>(
  name: string,
  timeoutS: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  const timeout = new ConnectorCallError(
    'timeout',
    name,
    `connector ${name}: timed out after ${String(timeoutS)} s`,
  );
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(timeout);
      ac.abort(timeout);
    }, timeoutS * 1000);
  });
  const running = (async () => work(ac.signal))();
  running.catch(() => undefined); // an answer after the timeout is dropped, not unhandled
  try {
    return await Promise.race([running, expired]);
  } catch (err) {
    if (ac.signal.aborted) throw timeout;
    if (err instanceof ConnectorCallError) throw err;
    throw new ConnectorCallError('failed', name, `connector ${name}: ${messageOf(err)}`, err);
  } finally {
    clearTimeout(timer);
  }
}

export function createConnectorRuntime(deps: ConnectorRuntimeDeps) {
  const { registry, log, clock } = deps;
  const queueLimit = deps.queueLimit ?? DEFAULT_QUEUE_LIMIT;
  let current = new Map<string, Built>();
  const background = new Set<Promise<unknown>>();
  let closed = false;

  const refsOf = (name: string) => {
    const check = deps.refProblem;
    return check === undefined
      ? undefined
      : (setting: string, ref: SecretRef) => check(name, setting, ref);
  };

  const track = <T>(p: Promise<T>): Promise<T> => {
    background.add(p);
    void p.finally(() => background.delete(p)).catch(() => undefined);
    return p;
  };

  function build(entry: ConnectorEntry): Built {
    const timeoutS = timeoutOf(entry.document);
    const limiter = createLimiter(
      entry.document.max_in_flight ?? deps.defaultConcurrency,
      queueLimit,
    );
    const base = {
      entry,
      key: canonicalJson(entry.document),
      limiter,
      timeoutS,
      lastHealth: null,
      everOk: false,
    };
    const kind = registry.get(entry.document.kind) ?? null;
    if (kind === null) {
      return {
        ...base,
        kind,
        client: null,
        problem: `kind ${entry.document.kind} is not known to this version`,
      };
    }
    try {
      const client = kind.create(
        resolveSettings(kind, entry.document, deps.env, refsOf(entry.name)),
      );
      return { ...base, kind, client, problem: null };
    } catch (err) {
      const problem =
        err instanceof ConnectorProblem ? err.message : `cannot be built: ${messageOf(err)}`;
      log.warn({ connector: entry.name, kind: kind.kind, problem }, 'connector not built');
      return { ...base, kind, client: null, problem };
    }
  }

  /** Close a client once its calls have finished, or after its timeout at the latest. */
  function retire(b: Built): Promise<void> {
    const client = b.client;
    if (client === null) return Promise.resolve();
    return track(
      (async () => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          b.limiter.idle(),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, b.timeoutS * 1000 + 1000);
            timer.unref();
          }),
        ]);
        clearTimeout(timer);
        try {
          await client.close?.();
        } catch (err) {
          log.warn({ connector: b.entry.name, err: messageOf(err) }, 'closing a connector failed');
        }
      })(),
    );
  }

  async function runHealth(b: Built): Promise<HealthView> {
    const started = performance.now();
    let result: HealthView;
    if (b.client === null) {
      result = { ok: false, detail: b.problem ?? 'not built', duration_ms: 0 };
    } else {
      const client = b.client;
      try {
        const r: HealthResult = await b.limiter.run(() =>
          withTimeout(b.entry.name, b.timeoutS, (signal) => client.health(signal)),
        );
        result = {
          ok: r.ok,
          detail: r.detail,
          duration_ms: Math.max(0, Math.round(r.duration_ms)),
        };
      } catch (err) {
        result = {
          ok: false,
          detail: messageOf(err),
          duration_ms: Math.round(performance.now() - started),
        };
      }
    }
    const was = b.lastHealth?.ok;
    b.lastHealth = { ...result, at: clock.nowIso() };
    if (result.ok) b.everOk = true;
    if (was !== result.ok) {
      const fields = { connector: b.entry.name, ok: result.ok, detail: result.detail };
      if (result.ok) log.info(fields, 'connector healthy');
      else log.warn(fields, 'connector health check failed');
    }
    return result;
  }

  function find(name: string): Built {
    const b = current.get(name);
    if (b === undefined)
      throw new ConnectorCallError('not_found', name, `no connector named ${name}`);
    return b;
  }

  function view(b: Built): ConnectorView {
    const { entry } = b;
    return {
      name: entry.name,
      kind: entry.document.kind,
      settings: entry.document.settings,
      max_in_flight: entry.document.max_in_flight ?? null,
      timeout_s: b.timeoutS,
      problem: b.problem,
      last_health: b.lastHealth,
      in_flight: b.limiter.active(),
      queued: b.limiter.queued(),
      set_by: entry.set_by,
      set_at: entry.set_at,
    };
  }

  return {
    /**
     * Build the connectors the source lists now. A connector whose document is unchanged and
     * that was built keeps its client (its calls in flight go on) unless `force`; the others
     * are built anew, their old clients closed once idle, and a health check of each runs in
     * the background (await `settled()` to wait for it).
     */
    rebuild(options: { force?: boolean } = {}): void {
      if (closed) return;
      const next = new Map<string, Built>();
      const fresh: Built[] = [];
      for (const entry of deps.source()) {
        const prev = current.get(entry.name);
        const key = canonicalJson(entry.document);
        if (prev?.key === key && prev.problem === null && options.force !== true) {
          prev.entry = entry; // same client, limiter and health; set_by/set_at may be new
          next.set(entry.name, prev);
          continue;
        }
        const b = build(entry);
        if (prev !== undefined && prev.key === key) {
          b.lastHealth = prev.lastHealth;
          b.everOk = prev.everOk && b.problem === null;
        }
        next.set(entry.name, b);
        fresh.push(b);
      }
      const old = current;
      current = next;
      for (const [name, b] of old) if (next.get(name) !== b) void retire(b);
      for (const b of fresh) void track(runHealth(b));
    },
    /** Every background health check and client close started so far has finished. */
    async settled(): Promise<void> {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
    /** Configured connectors, in name order; secret settings only as references. */
    list: (): ConnectorView[] =>
      [...current.values()].sort((a, b) => a.entry.name.localeCompare(b.entry.name)).map(view),
    get: (name: string): ConnectorView | null => {
      const b = current.get(name);
      return b === undefined ? null : view(b);
    },
    /** The kind of a connector, or null when there is no such connector. */
    kindOf: (name: string): ConnectorKind | null => current.get(name)?.kind ?? null,
    /** One operation through the connector's limiter and timeout. */
    async call(name: string, op: string, args: Readonly<Record<string, unknown>> = {}) {
      const b = find(name);
      const client = b.client;
      if (client === null) {
        throw new ConnectorCallError(
          'problem',
          name,
          `connector ${name} cannot be used: ${b.problem ?? 'not built'}`,
        );
      }
      if (b.kind !== null && !b.kind.operations.includes(op)) {
        throw new ConnectorCallError(
          'unknown_operation',
          name,
          `connector ${name} (${b.kind.kind}) has no operation ${op}`,
        );
      }
      try {
        return await b.limiter.run(() =>
          withTimeout(name, b.timeoutS, (signal) => client.call(op, args, signal)),
        );
      } catch (err) {
        if (err instanceof QueueFullError) {
          throw new ConnectorCallError('busy', name, `connector ${name}: ${err.message}`);
        }
        throw err;
      }
    },
    /** A health check through the same path as calls; records the result. Never throws for a failure. */
    health: (name: string): Promise<HealthView> => runHealth(find(name)),
    /** Health of a throwaway client built from `document` ({value} secrets in memory only). */
    async probe(name: string, document: ConnectorDocument): Promise<HealthView> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const kind = registry.get(document.kind);
      if (kind === undefined)
        return { ok: false, detail: `kind ${document.kind} is not known`, duration_ms: 0 };
      let client: ConnectorClient;
      try {
        client = kind.create(resolveSettings(kind, document, deps.env, refsOf(name)));
      } catch (err) {
        const detail =
          err instanceof ConnectorProblem ? err.message : `cannot be built: ${messageOf(err)}`;
        return { ok: false, detail, duration_ms: elapsed() };
      }
      try {
        const r = await withTimeout(name, timeoutOf(document), (signal) => client.health(signal));
        return { ok: r.ok, detail: r.detail, duration_ms: Math.max(0, Math.round(r.duration_ms)) };
      } catch (err) {
        return { ok: false, detail: messageOf(err), duration_ms: elapsed() };
      } finally {
        void track(
          Promise.resolve()
            .then(() => client.close?.())
            .catch(() => undefined),
        );
      }
    },
    /** Whether any configured connector has answered a health check (configuring → operating). */
    /**
     * A connection to a system the service watches has worked: channels (notify only) and
     * directories (no capability) do not make the service able to investigate.
     */
    hasWorkingConnection: (): boolean =>
      [...current.values()].some(
        (b) => b.everOk && (b.kind?.capabilities ?? []).some((c) => c !== 'notify'),
      ),
    /** Close every client (waiting for its calls, up to its timeout); later rebuilds do nothing. */
    async close(): Promise<void> {
      closed = true;
      const old = current;
      current = new Map();
      await Promise.allSettled([...old.values()].map(retire));
      await this.settled();
    },
  };
}
export type ConnectorRuntime = ReturnType<typeof createConnectorRuntime>;

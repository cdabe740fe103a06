// Alert intake: a webhook body becomes signals through the normaliser of its source (or the
// one `auto` recognises); all signals of one body commit together, or none do.
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { InvalidInputError } from '../shared/errors.js';
import { detect, NORMALISERS, normaliserFor } from './normalisers/index.js';
import type { IntakeResult } from './intake.schemas.js';
import { SIGNAL_FIRED, SIGNAL_RESOLVED, type IntakeStore } from './intake.store.js';
import { checkSignal } from './signal-check.js';
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Signal,
} from './signal.js';
import type { IntakeEvents } from './intake.events.js';

/**
 * Where firing signals go (the episodes domain), kept to what intake needs. A placement is
 * the placer's own record, handed back to it as it was given.
 */
export interface EpisodePlacer<P extends { readonly episodeId: string } = { episodeId: string }> {
  place(signal: { source: string; fingerprint: string; name: string; service: string }): P;
  record(
    placement: P,
    signal: {
      source: string;
      fingerprint: string;
      name: string;
      service: string;
      severity: string;
      resource: string | null;
      labels: Readonly<Record<string, string>>;
    },
  ): void;
  /** After the resolve of a signal the episode holds. */
  resolved(episodeId: string): void;
  holding(source: string, fingerprint: string): string | null;
}

interface Deps<P extends { readonly episodeId: string }> {
  readonly store: IntakeStore;
  readonly episodes: EpisodePlacer<P>;
  readonly ledger: DomainLedger<IntakeEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly onSignal?: (source: string, status: string) => void;
  /** The estate's service for an alert's labels, when it knows one (it wins over the labels). */
  readonly resolveService?: (labels: Readonly<Record<string, string>>) => string | null;
}

/** Until the estate exists, the service comes from these labels, first found wins. */
export const SERVICE_LABELS = ['service', 'job', 'app', 'namespace', 'host'] as const;

export function serviceOf(signal: Signal): string {
  if (signal.service !== null && signal.service !== '') return signal.service;
  for (const key of SERVICE_LABELS) {
    const v = signal.labels[key];
    if (v !== undefined && v.trim() !== '') return v.trim();
  }
  return signal.resource ?? 'unknown';
}

/** Service names go into queries, paths and file names: letters, digits and `. _ : / -`. */
const SAFE_SERVICE = /^[A-Za-z0-9._:/-]{1,128}$/;
const UNSAFE_RUN = /[^A-Za-z0-9._:/-]+/g;

/**
 * A service name as intake keeps it: a name outside the safe set is normalised (each run of
 * other characters becomes `-`; `unknown` when nothing is left) and the note says so. The
 * alert is never refused for it: a valid body is never a 4xx.
 */
function safeService(service: string): { service: string; note: string | null } {
  if (SAFE_SERVICE.test(service)) return { service, note: null };
  const normalised =
    service
      .replace(UNSAFE_RUN, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 128)
      .replace(/-+$/, '') || 'unknown';
  return {
    service: normalised,
    note: `service ${JSON.stringify(service.slice(0, 200))} holds characters outside letters, digits and . _ : / -; recorded as ${JSON.stringify(normalised)}`,
  };
}

function run(n: Normaliser, body: unknown, ctx: NormaliseContext): NormaliseResult {
  try {
    return n.normalise(body, ctx);
  } catch (err) {
    // A normaliser that trips on a hostile body must not become a 500.
    const why =
      err instanceof NotReadableError ? err.message : `unreadable (${(err as Error).name})`;
    throw new InvalidInputError(
      'no_normaliser',
      `the ${n.source} normaliser could not read the body: ${why}`,
      {
        field: 'body',
        tried: [n.source],
      },
    );
  }
}

export function read(
  sourceName: string,
  body: unknown,
  ctx: NormaliseContext,
): { normaliser: Normaliser; result: NormaliseResult } {
  if (sourceName === 'auto') {
    const found = detect(body, ctx);
    if (found === undefined) {
      throw new InvalidInputError(
        'no_normaliser',
        `no normaliser recognised the body; tried ${NORMALISERS.map((n) => n.source).join(', ')}`,
        { field: 'body', tried: NORMALISERS.map((n) => n.source) },
      );
    }
    return { normaliser: found, result: run(found, body, ctx) };
  }
  const normaliser = normaliserFor(sourceName);
  if (normaliser === undefined) {
    throw new InvalidInputError(
      'unknown_source',
      `no normaliser for source ${sourceName}; use auto or one of ${NORMALISERS.map((n) => n.source).join(', ')}`,
      { field: 'source' },
    );
  }
  return { normaliser, result: run(normaliser, body, ctx) };
}

export function createIntakeService<P extends { readonly episodeId: string }>(deps: Deps<P>) {
  const { store, episodes, ledger, writer, clock, onSignal } = deps;
  const serviceFor = (s: Signal): string => {
    const known = deps.resolveService?.(
      s.service !== null && s.service !== '' ? { ...s.labels, service: s.service } : s.labels,
    );
    return known ?? serviceOf(s);
  };
  return {
    async receive(
      sourceName: string,
      body: unknown,
      headers: NormaliseContext['headers'],
    ): Promise<IntakeResult> {
      const ctx: NormaliseContext = { receivedAt: clock.nowIso(), headers };
      const { normaliser, result } = read(sourceName, body, ctx);
      if (result.kind === 'control') {
        return {
          source: normaliser.source,
          accepted: 0,
          resolved: 0,
          duplicates: 0,
          ignored: result.reason,
          signals: [],
        };
      }
      const signals = result.signals.map((s, i) => {
        const safe = safeService(serviceFor(s));
        return {
          ...checkSignal(s, i, normaliser.source),
          service: safe.service,
          ...(safe.note !== null && { note: safe.note }),
        };
      });
      // One writer job: every signal of the body commits, or none does. The body limit is the
      // only bound on a group: refusing part of a valid group would lose those alerts, and a
      // commit that cannot be made is a 503 (the sender retries), never a 4xx.
      const accepted = await writer.transact(() =>
        signals.map((s) => {
          const current = store.statusOf(s.source, s.fingerprint);
          const repeat = s.status === current;
          if (repeat)
            return { ...compact(s), outcome: 'duplicate' as const, seq: null, episode_id: null };
          // The signal's events carry its episode's id as trace id: the episode's timeline
          // is one ledger query.
          const placement = s.status === 'firing' ? episodes.place(s) : null;
          const episodeId = placement?.episodeId ?? episodes.holding(s.source, s.fingerprint);
          const event = ledger.append({
            type: s.status === 'firing' ? SIGNAL_FIRED : SIGNAL_RESOLVED,
            actor: `source:${s.source}`,
            data: { ...s, ...(s.status === 'resolved' && current === null && { unseen: true }) },
            trace_id: episodeId ?? s.fingerprint,
          });
          if (placement !== null) episodes.record(placement, s);
          else if (episodeId !== null) episodes.resolved(episodeId);
          return {
            ...compact(s),
            outcome: s.status === 'firing' ? ('fired' as const) : ('resolved' as const),
            seq: event.seq,
            episode_id: episodeId,
          };
        }),
      );
      for (const s of accepted) onSignal?.(s.source, s.outcome);
      return {
        source: normaliser.source,
        accepted: accepted.length,
        resolved: accepted.filter((s) => s.status === 'resolved').length,
        duplicates: accepted.filter((s) => s.outcome === 'duplicate').length,
        signals: accepted,
      };
    },
  };
}
export type IntakeService = ReturnType<typeof createIntakeService<{ episodeId: string }>>;

function compact(s: Signal & { service: string; note?: string }) {
  return {
    ...(s.note !== undefined && { note: s.note }),
    source: s.source,
    name: s.name,
    status: s.status,
    severity: s.severity,
    service: s.service,
    resource: s.resource,
    fingerprint: s.fingerprint,
  };
}

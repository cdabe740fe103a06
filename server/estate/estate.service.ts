// The estate: discovery jobs that read every connector that can tell (Prometheus targets,
// hosts' units and sockets over ssh, HTTP probes, the generic `discover` operation), the
// merged view of what was found plus the hand-made overrides, suggested links with confirm
// and dismiss, and resolveService over all of it.
import { randomBytes } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { EpisodesStore } from '../episodes/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { withTimeout } from '../shared/timeout.js';
import {
  findingsFromDiscover,
  findingsFromHttp,
  findingsFromPrometheus,
  findingsFromSsh,
  readerOf,
  type Findings,
  type KindInfo,
  type ReaderName,
} from './discovery-sources.js';
import { anyObservations } from './estate.observed.js';
import {
  buildEstate,
  overridesOf,
  createResolver,
  type Estate,
  type Resolution,
  type TargetLike,
} from './estate.model.js';
import type {
  EstateOverridesInput,
  EstateView,
  JobView,
  Overrides,
  OverridesView,
  SuggestionDecided,
  SuggestionList,
} from './estate.schemas.js';
import {
  ESTATE_DISCOVER_FAILED,
  ESTATE_DISCOVERED,
  ESTATE_OVERRIDES_SET,
  ESTATE_SUGGESTION_CONFIRMED,
  ESTATE_SUGGESTION_DISMISSED,
  type EstateStore,
} from './estate.store.js';
import {
  SUGGEST_DAYS,
  suggestions as suggest,
  type StudiedRelation,
  type Suggestion,
} from './suggestions.js';
import type { EstateEvents } from './estate.events.js';
import type { ReadonlyDeep } from '../ledger/index.js';

/**
 * A configured connector as discovery sees it (connectors.list().connectors): `problem` set
 * means it could not be built; `settings` as listed, secrets shown as references.
 */
export interface DiscoverySource {
  readonly name: string;
  readonly kind: string;
  readonly problem?: string | null;
  readonly settings?: Readonly<Record<string, unknown>>;
}

interface Deps {
  readonly store: EstateStore;
  readonly ledger: DomainLedger<EstateEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  /** The configured connectors (connectors.list().connectors). */
  readonly connectors: () => readonly DiscoverySource[];
  /** One connector operation (connectors.call). */
  readonly call: (
    name: string,
    op: string,
    args?: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
  /**
   * The kinds' catalogue entries (connectors.catalogue().kinds): a kind that has the
   * `discover` capability and operation is read through it. Without it, only the kinds
   * discovery knows by name are read (prometheus, ssh, http, postgresql).
   */
  readonly kinds?: () => readonly KindInfo[];
  /** SVC_DISCOVER_TIMEOUT_S: the limit for each connector. */
  readonly timeoutS: number;
  /** When services' episodes opened (the episodes domain's read), for co-opening suggestions. */
  readonly episodes: Pick<EpisodesStore, 'openingsSince'>;
  /** Links inferred elsewhere (verified ML artefacts): suggested, never placed. */
  readonly inferred?: () => readonly Omit<Suggestion, 'id'>[];
  /** The last study's relations (the study domain's read), for suggestions; none: no study. */
  readonly relations?: () => readonly StudiedRelation[];
  readonly log?: { error(obj: object, msg: string): void };
  readonly newId?: () => string;
}

/** How many finished jobs are kept in memory. */
export const JOBS_KEPT = 50;

const viaOf = (actor: Actor) => (actor.via !== undefined ? { via: actor.via } : {});

function checkTargets(answer: unknown): TargetLike[] {
  if (!Array.isArray(answer)) throw new Error('targets: the answer is not a list');
  return (answer as unknown[]).map((t) => {
    const r = (typeof t === 'object' && t !== null ? t : {}) as Record<string, unknown>;
    const labels = (
      typeof r['labels'] === 'object' && r['labels'] !== null ? r['labels'] : {}
    ) as Record<string, string>;
    return {
      job: typeof r['job'] === 'string' ? r['job'] : '',
      instance: typeof r['instance'] === 'string' ? r['instance'] : '',
      labels,
    };
  });
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** Extra checks a schema cannot make: a placed link joins two different services. */
export function checkOverrides(input: EstateOverridesInput): Overrides {
  const links = input.links ?? [];
  links.forEach((l, i) => {
    if (l.from === l.to) {
      throw new InvalidInputError(
        'invalid_input',
        `links.${String(i)}: a service cannot depend on itself`,
        {
          field: `links.${String(i)}.to`,
        },
      );
    }
  });
  for (const name of Object.keys(input.services ?? {})) {
    if (name.trim() === '' || name.length > 200) {
      throw new InvalidInputError('invalid_input', 'a service name must be 1 to 200 characters', {
        field: `services.${name}`,
      });
    }
  }
  return { services: input.services ?? {}, links, ignore: input.ignore ?? [] };
}

export function createEstateService(deps: Deps) {
  const { store, ledger, writer, clock, timeoutS } = deps;
  const newId = deps.newId ?? (() => `job-${randomBytes(6).toString('hex')}`);
  const jobs = new Map<string, JobView>();
  let running: string | null = null;

  const overrides = (): Overrides => overridesOf(store.overrides()?.document ?? null);
  // The estate as built from the store, built again only after an estate event: the view,
  // the suggestions and intake's resolve (asked for every alert) all read it.
  let cached: {
    at: number;
    estate: Estate;
    overrides: Overrides;
    resolve?: (labels: Readonly<Record<string, string>>) => Resolution | null;
  } | null = null;
  function current(): NonNullable<typeof cached> {
    const at = store.changes();
    if (cached === null || cached.at !== at) {
      const o = overrides();
      const built = buildEstate(store.services(), store.links(), o, {
        observations: store.observations(),
        confirmed: store.decided().filter((d) => d.status === 'confirmed'),
      });
      cached = { at, estate: built, overrides: o };
    }
    return cached;
  }
  const estate = (): Estate => current().estate;

  function currentSuggestions(): Suggestion[] {
    const e = estate();
    const since = new Date(Date.parse(clock.nowIso()) - SUGGEST_DAYS * 86_400_000).toISOString();
    return suggest({
      services: e.services.map((s) => s.name),
      links: e.links,
      openings: deps.episodes.openingsSince(since),
      observations: store.observations(),
      decided: new Set(store.decided().map((d) => d.id)),
      inferred: deps.inferred?.() ?? [],
      relations: deps.relations?.() ?? [],
    });
  }

  /** The suggestion `id` names now; 409 when it was decided already, 404 when unknown. */
  function pending(id: string): Suggestion {
    const before = store.decided().find((d) => d.id === id);
    if (before !== undefined) {
      throw new ConflictError('suggestion_decided', `suggestion ${id} was ${before.status}`, {
        why: `already ${before.status} by ${before.actor} at ${before.at}`,
      });
    }
    const found = currentSuggestions().find((s) => s.id === id);
    if (found === undefined) {
      throw new NotFoundError('suggestion_not_found', `no suggestion ${id}`, { field: 'id' });
    }
    return found;
  }
  function overridesView(): OverridesView {
    const row = store.overrides();
    const o = overrides();
    return {
      overrides: { services: { ...o.services }, links: [...o.links], ignore: [...o.ignore] },
      set_by: row?.set_by ?? null,
      set_at: row?.set_at ?? null,
    };
  }

  function remember(job: JobView): void {
    jobs.set(job.id, job);
    while (jobs.size > JOBS_KEPT) {
      const oldest = [...jobs.values()].find((j) => j.status !== 'running');
      if (oldest === undefined) break;
      jobs.delete(oldest.id);
    }
  }

  /** Which connectors discovery reads, and how. */
  function sources(): { source: DiscoverySource; reader: ReaderName }[] {
    const kinds = new Map((deps.kinds?.() ?? []).map((k) => [k.kind, k]));
    const out: { source: DiscoverySource; reader: ReaderName }[] = [];
    for (const source of deps.connectors()) {
      const reader = readerOf(source.kind, kinds.get(source.kind));
      if (reader !== null) out.push({ source, reader });
    }
    return out;
  }

  /** What one connector tells, by its reader; `step` names each call as it starts. */
  async function read(
    source: DiscoverySource,
    reader: ReaderName,
    step: (what: string) => void,
  ): Promise<Findings> {
    const call = (op: string) => {
      step(`${source.name}: ${op}`);
      return deps.call(source.name, op, {});
    };
    const settings = source.settings ?? {};
    switch (reader) {
      case 'prometheus':
        return findingsFromPrometheus(source.name, checkTargets(await call('targets')));
      case 'ssh': {
        const host = text(settings['host']);
        if (host === '') throw new Error('the connector has no host setting');
        const units = await call('services');
        const ports = await call('ports');
        return findingsFromSsh(source.name, host, units, ports);
      }
      case 'http':
        step(`${source.name}: url`);
        return findingsFromHttp(source.name, settings);
      case 'discover':
        return findingsFromDiscover(source.name, source.kind, await call('discover'));
    }
  }

  async function discoverOne(
    source: DiscoverySource,
    reader: ReaderName,
    actor: Actor,
    jobId: string,
    step: (what: string) => void,
  ) {
    const record = <K extends typeof ESTATE_DISCOVERED | typeof ESTATE_DISCOVER_FAILED>(
      type: K,
      data: ReadonlyDeep<Omit<EstateEvents[K], 'job_id' | 'via'>>,
    ) =>
      writer.transact(() =>
        ledger.append({
          type,
          actor: actor.name,
          // TypeScript cannot follow a generic spread; the parameter's type is what is checked.
          data: { ...data, job_id: jobId, ...viaOf(actor) } as ReadonlyDeep<EstateEvents[K]>,
        }),
      );
    try {
      if (source.problem !== undefined && source.problem !== null) throw new Error(source.problem);
      const found = await withTimeout(
        read(source, reader, step),
        timeoutS,
        `connector ${source.name} did not answer within ${String(timeoutS)} s`,
      );
      const { observations, ...rest } = found;
      const seen = anyObservations(observations);
      await record(ESTATE_DISCOVERED, {
        connector: source.name,
        ...rest,
        ...(seen && { observations }),
      });
      return { status: 'ok' as const, detail: null };
    } catch (err) {
      const detail = (err as Error).message || String(err);
      await record(ESTATE_DISCOVER_FAILED, { connector: source.name, detail });
      return { status: 'failed' as const, detail };
    }
  }

  async function run(
    job: JobView,
    sources: readonly { source: DiscoverySource; reader: ReaderName }[],
    actor: Actor,
  ) {
    const perConnector: Record<string, { status: 'ok' | 'failed'; detail: string | null }> = {};
    let done = 0;
    let current = job;
    const update = (patch: Partial<JobView>) => {
      current = { ...current, ...patch };
      jobs.set(current.id, current);
    };
    try {
      const step = (what: string) => {
        update({ progress: { done, total: sources.length, step: what } });
      };
      await Promise.all(
        sources.map(async ({ source, reader }) => {
          const r = await discoverOne(source, reader, actor, job.id, step);
          perConnector[source.name] = r;
          done += 1;
          step(`${source.name}: ${r.status === 'ok' ? 'done' : `failed: ${r.detail ?? ''}`}`);
        }),
      );
      const after = estate();
      update({
        status: 'done',
        progress: { done, total: sources.length, step: 'done' },
        finished_at: clock.nowIso(),
        result: {
          services: after.services.length,
          links: after.links.length,
          per_connector: perConnector,
        },
      });
    } catch (err) {
      deps.log?.error({ err, job: job.id }, 'discovery failed');
      update({ status: 'failed', finished_at: clock.nowIso(), result: null });
    } finally {
      running = null;
    }
  }

  return {
    /**
     * POST /v1/discover: start a discovery job over every connector that can tell (see
     * readerOf) and return its id at once. While one runs, the running job's id is returned again.
     */
    discover(actor: Actor): { job_id: string; done: Promise<void> } {
      if (running !== null) {
        return { job_id: running, done: Promise.resolve() };
      }
      const chosen = sources();
      const job: JobView = {
        id: newId(),
        kind: 'discover',
        status: 'running',
        progress: { done: 0, total: chosen.length, step: 'starting' },
        started_at: clock.nowIso(),
        finished_at: null,
        result: null,
      };
      remember(job);
      running = job.id;
      const done = run(job, chosen, actor);
      return { job_id: job.id, done };
    },
    /** When discovery last read any connector (ISO-8601), or null: it never ran. */
    lastDiscovered(): string | null {
      return store
        .connectors()
        .reduce<string | null>((a, c) => (a === null || c.at > a ? c.at : a), null);
    },
    /** GET /v1/jobs/<id>: 404 when unknown or forgotten. */
    job(id: string): JobView {
      const job = jobs.get(id);
      if (job === undefined) throw new NotFoundError('job_not_found', `no job ${id}`);
      return job;
    },
    /** GET /v1/estate. */
    view(): EstateView {
      const e = estate();
      const configured = new Set(deps.connectors().map((c) => c.name));
      const connectors: EstateView['connectors'] = {};
      const problems = [...e.problems];
      for (const c of store.connectors()) {
        let status: 'ok' | 'stale' | 'failed' = c.status;
        let detail = c.detail;
        if (c.status === 'failed' && c.found_at !== null) {
          status = 'stale';
          detail = `${c.detail ?? 'failed'}; showing what was found at ${c.found_at}`;
        } else if (c.status === 'ok' && !configured.has(c.connector)) {
          status = 'stale';
          detail = 'the connector is no longer configured';
        }
        if (c.status === 'failed')
          problems.push({ what: 'connector_failed', detail: `${c.connector}: ${c.detail ?? ''}` });
        connectors[c.connector] = { status, at: c.at, detail };
      }
      return { ...e, problems, connectors };
    },
    /** GET /v1/estate/overrides. */
    overrides: overridesView,
    /** PUT /v1/estate/overrides: replace the whole document. */
    async putOverrides(input: EstateOverridesInput, actor: Actor): Promise<OverridesView> {
      const checked = checkOverrides(input);
      await writer.transact(() =>
        ledger.append({
          type: ESTATE_OVERRIDES_SET,
          actor: actor.name,
          data: { overrides: checked, ...viaOf(actor) },
        }),
      );
      return overridesView();
    },
    /** GET /v1/estate/suggestions: inferred links, best first. */
    suggestions: (): SuggestionList => ({ suggestions: currentSuggestions() }),
    /** POST /v1/estate/suggestions/confirm: the suggestion becomes a placed link. */
    async confirmSuggestion(id: string, actor: Actor): Promise<SuggestionDecided> {
      // Checked inside the write, so two confirms of one suggestion cannot both pass.
      const s = await writer.transact(() => {
        const found = pending(id);
        ledger.append({
          type: ESTATE_SUGGESTION_CONFIRMED,
          actor: actor.name,
          data: {
            id: found.id,
            from: found.from,
            to: found.to,
            evidence: found.evidence,
            score: found.score,
            ...viaOf(actor),
          },
        });
        return found;
      });
      return {
        id: s.id,
        from: s.from,
        to: s.to,
        status: 'confirmed',
        evidence: s.evidence,
        reason: null,
        link: {
          from: s.from,
          to: s.to,
          origin: { connector: null, how: `confirmed suggestion: ${s.evidence}` },
        },
      };
    },
    /** POST /v1/estate/suggestions/dismiss: never suggested again. */
    async dismissSuggestion(
      id: string,
      reason: string | null,
      actor: Actor,
    ): Promise<SuggestionDecided> {
      const why = reason?.trim() ?? '';
      const s = await writer.transact(() => {
        const found = pending(id);
        ledger.append({
          type: ESTATE_SUGGESTION_DISMISSED,
          actor: actor.name,
          data: {
            id: found.id,
            from: found.from,
            to: found.to,
            evidence: found.evidence,
            reason: why === '' ? null : why,
            ...viaOf(actor),
          },
        });
        return found;
      });
      return {
        id: s.id,
        from: s.from,
        to: s.to,
        status: 'dismissed',
        evidence: s.evidence,
        reason: why === '' ? null : why,
        link: null,
      };
    },
    /**
     * Which service an alert's labels mean (see resolveService). Intake asks for every alert,
     * so the estate is read again only after an estate event.
     */
    resolve(labels: Readonly<Record<string, string>>): Resolution | null {
      const c = current();
      c.resolve ??= createResolver(c.estate, c.overrides);
      return c.resolve(labels);
    },
  };
}
export type EstateService = ReturnType<typeof createEstateService>;

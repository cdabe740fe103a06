// The study: a timed walk over the estate that learns, read-only, each service's baseline,
// what stops the service reading it (obstacles, with fixes), which services move together
// (relations, offered as estate suggestions), and which causes the packs know for it can be
// read at all. One study at a time; it ends at its deadline or on stop, both checked before
// each next cause. Progress lives in memory; what it learned is in the ledger (study.*).
import { randomBytes } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { discoverLinks, type CausalSettings } from './causal.js';
import {
  STUDY_FINISHED,
  STUDY_INTERRUPTED,
  STUDY_RELATIONS,
  STUDY_SERVICE_DONE,
  STUDY_STARTED,
  STUDY_STOPPED,
  type StudyEvents,
} from './study.events.js';
import { align, baselineOf, correlateSteps, type Relation, type Series } from './study.figures.js';
import {
  causesOf,
  obstacleOf,
  readingsOf,
  type CausePlan,
  type ObstacleView,
} from './study.plan.js';
import type { Pack } from '../packs/index.js';
import type { StudyStore } from './study.store.js';
import type { StudyStart, StudyView } from './study.schemas.js';
import { messageOf } from '../shared/values.js';

export const DEFAULT_MINUTES = 15;
export const MAX_MINUTES = 120;
/** The readings' window and step: a day at five minutes (288 points) unless told. */
export const WINDOW_S = 86_400;
export const STEP_S = 300;

export interface StudyServiceLike {
  readonly name: string;
  readonly kind?: string | null;
  readonly hosts: readonly string[];
}

/** One check's reading for a service: readable, or why not. */
export interface CheckRead {
  readonly check: string;
  readonly readable: boolean;
  readonly why: string | null;
}

interface Deps {
  readonly store: StudyStore;
  readonly ledger: DomainLedger<StudyEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly log: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** The estate's services, at the start of each study. */
  readonly services: () => readonly StudyServiceLike[];
  /** The loaded packs (their causes and checks). */
  readonly packs: () => readonly Pack[];
  /** Names of the prometheus connectors the range queries go to. */
  readonly prometheus: () => readonly string[];
  /** One connector operation (the connectors runtime). */
  readonly call: (
    name: string,
    op: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
  /** Reads the named checks for one service through the check machinery, read-only. */
  readonly readChecks: (service: string, checks: readonly string[]) => Promise<CheckRead[]>;
  /** SVC_CAUSAL_*: null when SVC_CAUSAL_URL is not set. */
  readonly causal: CausalSettings | null;
  /** SVC_CAUSAL_TAU: the most steps a relation may lag by. */
  readonly tau: number;
  /** The readings' window and step, in seconds (tests shorten them). */
  readonly windowS?: number;
  readonly stepS?: number;
}

interface Running {
  readonly study_id: string;
  readonly ends: number;
  step: 'baseline' | 'relations' | 'causes';
  service: string | null;
  cause: string | null;
  done: number;
  of: number;
  stop: Actor | null;
  closing: boolean;
}

interface Learned {
  readonly service: StudyServiceLike;
  baseline: StudyEvents[typeof STUDY_SERVICE_DONE]['baseline'];
  obstacles: ObstacleView[];
  series: Series[];
  causes: StudyEvents[typeof STUDY_SERVICE_DONE]['causes'];
  plans: CausePlan[];
}

type StudyAppend = Parameters<DomainLedger<StudyEvents>['append']>[0];

const viaOf = (actor: Actor) => (actor.via !== undefined ? { via: actor.via } : {});

interface RangeSeries {
  readonly values?: readonly (readonly [string, number])[];
}

export function createStudyService(deps: Deps) {
  const { store, ledger, writer, clock, log } = deps;
  const windowS = deps.windowS ?? WINDOW_S;
  const stepS = deps.stepS ?? STEP_S;
  let running: Running | null = null;
  let loop: Promise<void> | null = null;

  /** Appends one event in its own writer job; nothing once the service is closing. */
  async function append(event: StudyAppend): Promise<void> {
    if (running?.closing === true) return;
    await writer.transact(() => {
      ledger.append(event);
    });
  }

  /** Whether the study must end before its next cause: stopped, past its deadline, closing. */
  const ending = (r: Running): boolean => r.stop !== null || r.closing || clock.now() >= r.ends;

  async function readBaseline(l: Learned, w: { from: number; to: number }): Promise<void> {
    const name = l.service.name;
    const proms = deps.prometheus();
    if (proms.length === 0) {
      l.obstacles.push({
        what: `readings of ${name}`,
        reason: 'no prometheus connector is configured',
        fix: 'add a prometheus connector (PUT /v1/connectors/<name>, kind prometheus): the baseline and relations come from its range queries',
      });
      return;
    }
    const rateS = Math.max(2 * stepS, 60);
    let anyData = false;
    const failures = new Map<string, string>();
    for (const r of readingsOf(name, rateS)) {
      for (const prom of proms) {
        let answer: unknown;
        try {
          answer = await deps.call(prom, 'range_query', {
            query: r.query,
            start: w.from,
            end: w.to,
            step_s: stepS,
          });
        } catch (err) {
          failures.set(prom, messageOf(err));
          continue;
        }
        const series = Array.isArray(answer) ? (answer as RangeSeries[]) : [];
        const points = (series[0]?.values ?? []).map(
          ([t, v]) => [Date.parse(t) / 1000, v] as const,
        );
        const values = align(points, w.from, w.to, stepS);
        const b = baselineOf(values);
        if (b === null) continue;
        anyData = true;
        l.baseline.push({ reading: r.reading, query: r.query, ...b });
        l.series.push({ service: name, reading: r.reading, values });
        break;
      }
    }
    for (const [prom, why] of failures) {
      const o = obstacleOf(`prometheus ${prom}`, why, name, l.service.hosts);
      if (o !== null) l.obstacles.push({ ...o, what: `readings of ${name} from ${prom}` });
    }
    if (!anyData && failures.size < proms.length)
      l.obstacles.push({
        what: `readings of ${name}`,
        reason: `Prometheus has no series labelled service="${name}" (nor a job ${name}) over the study's window`,
        fix: `no exporter target for service ${name}: add an exporter for it and a scrape target labelled service="${name}"`,
      });
  }

  async function relate(
    r: Running,
    learned: readonly Learned[],
  ): Promise<{ method: Relation['method']; note: string | null; relations: Relation[] }> {
    // Flat readings say nothing about moving together; the causal service gets the rest.
    const series = learned.flatMap((l) => l.series);
    // On the event loop, one reading's pairs at a time: a large estate never stalls intake
    // or the API while the study correlates.
    const correlated = async (): Promise<Relation[]> => {
      const steps = correlateSteps(series, deps.tau);
      for (let step = steps.next(); ; step = steps.next()) {
        if (step.done === true) return step.value;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    };
    // Fewer than two services with readings relate nothing: the causal service is not asked.
    const related = new Set(series.map((x) => x.service)).size >= 2;
    if (deps.causal !== null && related) {
      const answer = await discoverLinks(deps.causal, series, stepS);
      if (answer.ok) return { method: 'causal_service', note: null, relations: answer.relations };
      log.info({ study_id: r.study_id, why: answer.why }, 'study: causal service not used');
      return {
        method: 'lagged_correlation',
        note: `${answer.why}; lagged correlation used instead`,
        relations: await correlated(),
      };
    }
    return { method: 'lagged_correlation', note: null, relations: await correlated() };
  }

  /** Reads the service's causes, one at a time, until the study must end. */
  async function readCauses(r: Running, l: Learned): Promise<boolean> {
    const read = new Map<string, CheckRead>();
    const seen = new Set<string>();
    for (const plan of l.plans) {
      if (ending(r)) return false;
      r.cause = plan.cause;
      const missing = plan.checks.filter((c) => !read.has(c));
      if (missing.length > 0) {
        for (const c of await deps.readChecks(l.service.name, missing)) read.set(c.check, c);
      }
      const reads = plan.checks.map(
        (c) => read.get(c) ?? { check: c, readable: false, why: 'not read' },
      );
      const unreadable = reads
        .filter((c) => !c.readable)
        .map((c) => ({ check: c.check, why: c.why ?? 'could not read' }));
      l.causes.push({
        cause: plan.cause,
        packs: [...plan.packs],
        checks: plan.checks.length,
        readable: reads.length - unreadable.length,
        unreadable,
      });
      for (const u of unreadable) {
        if (seen.has(u.check)) continue;
        seen.add(u.check);
        const o = obstacleOf(u.check, u.why, l.service.name, l.service.hosts);
        // One obstacle per fix: ten ssh checks unreachable are one missing connector.
        if (o !== null && !l.obstacles.some((x) => x.fix === o.fix)) l.obstacles.push(o);
      }
      r.done += 1;
    }
    return true;
  }

  async function serviceDone(
    r: Running,
    l: Learned,
    w: { from: number; to: number },
    complete: boolean,
  ) {
    await append({
      type: STUDY_SERVICE_DONE,
      actor: 'system',
      trace_id: r.study_id,
      data: {
        study_id: r.study_id,
        service: l.service.name,
        window: {
          from: new Date(w.from * 1000).toISOString(),
          to: new Date(w.to * 1000).toISOString(),
          step_s: stepS,
        },
        baseline: l.baseline,
        obstacles: l.obstacles,
        causes: l.causes,
        complete,
      },
    });
  }

  async function walk(r: Running, services: readonly StudyServiceLike[]): Promise<void> {
    // Ends now, not at the last whole step: a young Prometheus has only its last minutes.
    const to = Math.floor(clock.now() / 1000);
    const w = { from: to - windowS, to };
    const packs = deps.packs();
    const learned: Learned[] = services.map((s) => ({
      service: s,
      baseline: [],
      obstacles: [],
      series: [],
      causes: [],
      plans: causesOf(packs, s.name, s.kind ?? null),
    }));
    r.of = learned.reduce((n, l) => n + l.plans.length, 0);
    r.step = 'baseline';
    for (const l of learned) {
      if (ending(r)) break;
      r.service = l.service.name;
      await readBaseline(l, w);
    }
    // Cut short in the baseline step (stop, deadline, closing): relations over part of the
    // estate would replace the last study's whole set, and services not reached would lose
    // what the last study learned of them. Nothing is written; each keeps its own.
    if (ending(r)) {
      await end(r, 'deadline');
      return;
    }
    r.step = 'relations';
    r.service = null;
    const related = await relate(r, learned);
    await append({
      type: STUDY_RELATIONS,
      actor: 'system',
      trace_id: r.study_id,
      data: {
        study_id: r.study_id,
        method: related.method,
        note: related.note,
        step_s: stepS,
        tau: deps.tau,
        relations: related.relations,
      },
    });
    r.step = 'causes';
    let i = 0;
    for (; i < learned.length; i++) {
      const l = learned[i];
      if (l === undefined) continue;
      r.service = l.service.name;
      const complete = await readCauses(r, l);
      await serviceDone(r, l, w, complete);
      if (!complete) break;
    }
    // Services the study did not reach keep what the last study learned of them.
    await end(r, i >= learned.length ? 'done' : 'deadline');
  }

  /** The study's last event: stopped by whom, or finished (done, or its deadline). */
  async function end(r: Running, why: 'done' | 'deadline'): Promise<void> {
    if (r.closing) return;
    if (r.stop !== null)
      await append({
        type: STUDY_STOPPED,
        actor: r.stop.name,
        trace_id: r.study_id,
        data: { study_id: r.study_id, ...viaOf(r.stop) },
      });
    else
      await append({
        type: STUDY_FINISHED,
        actor: 'system',
        trace_id: r.study_id,
        data: { study_id: r.study_id, why },
      });
  }

  function view(): StudyView {
    const latest = store.latest();
    const relations = store.relations();
    const known = new Set(deps.services().map((s) => s.name));
    return {
      running:
        running === null
          ? null
          : {
              study_id: running.study_id,
              step: running.step,
              service: running.service,
              cause: running.cause,
              done: running.done,
              of: running.of,
              ends_at: new Date(running.ends).toISOString(),
              stopping: running.stop !== null,
            },
      study:
        latest === null
          ? null
          : {
              study_id: latest.study_id,
              status: latest.status,
              minutes: latest.minutes,
              started_at: latest.started_at,
              ends_at: latest.ends_at,
              ended_at: latest.ended_at,
              why: latest.why,
              by: latest.by,
              relations_method: latest.relations_method,
              relations_note: latest.relations_note,
            },
      // Services the estate no longer has are not shown; their rows stay in the ledger.
      last: store
        .services()
        .filter((s) => known.has(s.service))
        .map((s) => ({
          service: s.service,
          study_id: s.study_id,
          at: s.at,
          complete: s.complete,
          window: s.window,
          baseline: [...s.baseline],
          obstacles: [...s.obstacles],
          relations: relations
            .filter((x) => x.from === s.service || x.to === s.service)
            .map(({ study_id: _id, at: _at, step_s: _step, ...x }) => x),
          causes: [...s.causes],
        })),
    };
  }

  return {
    view,
    /** POST /v1/study: 409 study_running while one runs; the walk goes on after the answer. */
    async start(minutes: number, actor: Actor): Promise<StudyStart> {
      if (running !== null)
        throw new ConflictError('study_running', 'a study is running', {
          why: `study ${running.study_id} runs until ${new Date(running.ends).toISOString()}; stop it with POST /v1/study/stop`,
        });
      const services = [...deps.services()].sort((a, b) => a.name.localeCompare(b.name));
      const studyId = `st-${clock.nowIso().replace(/[-:.]/g, '').slice(0, 15)}Z-${randomBytes(3).toString('hex')}`;
      const ends = clock.now() + minutes * 60_000;
      const r: Running = {
        study_id: studyId,
        ends,
        step: 'baseline',
        service: null,
        cause: null,
        done: 0,
        of: 0,
        stop: null,
        closing: false,
      };
      // Claimed before the write, so a second start while this one commits is refused.
      running = r;
      try {
        await writer.transact(() => {
          ledger.append({
            type: STUDY_STARTED,
            actor: actor.name,
            data: {
              study_id: studyId,
              minutes,
              ends_at: new Date(ends).toISOString(),
              services: services.map((s) => s.name),
              ...viaOf(actor),
            },
            trace_id: studyId,
          });
        });
      } catch (err) {
        running = null;
        throw err;
      }
      loop = walk(r, services)
        .catch(async (err: unknown) => {
          log.error({ err, study_id: studyId }, 'study failed');
          await append({
            type: STUDY_INTERRUPTED,
            actor: 'system',
            trace_id: studyId,
            data: { study_id: studyId, why: `the study failed: ${messageOf(err)}` },
          }).catch(() => undefined);
        })
        .finally(() => {
          if (running === r) running = null;
        });
      return { study_id: studyId, minutes, ends_at: new Date(ends).toISOString() };
    },
    /** POST /v1/study/stop: the study ends before its next cause; the view, as it is now. */
    stop(actor: Actor): StudyView {
      if (running !== null && running.stop === null) running.stop = actor;
      return view();
    },
    /** At start: a study the last process left running was interrupted by its end. */
    async recover(): Promise<void> {
      for (const s of store.running()) {
        if (running?.study_id === s.study_id) continue;
        await writer.transact(() => {
          ledger.append({
            type: STUDY_INTERRUPTED,
            actor: 'system',
            data: {
              study_id: s.study_id,
              why: 'the service stopped while the study ran',
            },
            trace_id: s.study_id,
          });
        });
      }
    },
    /** Settles after the current walk, if any (tests; close). */
    settled: async (): Promise<void> => {
      await loop;
    },
    /**
     * At close: the walk ends before its next step and writes nothing more, so the study
     * stays running in the store and the next start records it interrupted.
     */
    async close(): Promise<void> {
      if (running !== null) running.closing = true;
      // A check in flight may take its whole timeout: closing does not wait that long.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        loop,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, 1_000);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
export type StudyService = ReturnType<typeof createStudyService>;

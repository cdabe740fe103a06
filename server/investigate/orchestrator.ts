// The orchestrator: every open episode is investigated once, at most `maxConcurrent` at a
// time (the rest wait in order), through the steps of the design (intake, what changed,
// checks, hypotheses, decide, act). Each step is a ledger event with the episode's id as
// trace, so the live view is a ledger query. An action that needs approval waits for the
// approvals domain to call `decided`; nothing is held in memory that a restart would lose:
// `recover` at start resumes or ends, explicitly, what a crash interrupted.
import type { Logger } from 'pino';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { ApprovalRequest, OpenApproval } from '../approvals/index.js';
import type { Clock } from '../shared/clock.js';
import type {
  AutonomyLevel,
  DecideInput,
  DecideOutput,
  Decision,
  Finding,
  FixChoice,
  FixMode,
  Hypothesis,
} from './types.js';
import {
  CHECK_RAN,
  DECISION_MADE,
  INVESTIGATION_FINISHED,
  INVESTIGATION_HYPOTHESES,
  INVESTIGATION_RECOVERED,
  INVESTIGATION_SKIPPED,
  INVESTIGATION_STARTED,
  INVESTIGATION_STEP,
  INVESTIGATION_WAITING,
  type InvestigationsStore,
} from './investigations.store.js';
import { closingOf, handsOver, type Closing, type ActionResult } from './closing.js';
import type { FixPlan } from './fix-plan.js';
import type { InvestigateEvents } from './investigate.events.js';
import type { EventType, ReadonlyDeep } from '../ledger/index.js';

const CHANGES_WINDOW_MS = 60 * 60 * 1000;
/** The safety-net poll; commits wake the orchestrator at once (wake). */
const SCAN_MS = 1000;
/** Decisions a same_cause join never replaces: nothing proven here to share. */
const NOT_JOINED: readonly Decision[] = ['abstain', 'cleared', 'settled', 'downstream'];
/** investigation.skipped's why for a service the licence does not cover. */
export const NOT_COVERED = 'not_covered_by_licence';

export interface EpisodeInfo {
  readonly episode_id: string;
  readonly service: string;
  readonly status: 'open' | 'quiet' | 'closed';
  readonly t_open: string;
  readonly suppressed: boolean;
}

export interface Diagnosis {
  readonly packs: readonly string[];
  readonly findings: readonly Finding[];
  readonly hypotheses: readonly Hypothesis[];
}

export interface OrchestratorDeps {
  readonly store: InvestigationsStore;
  readonly ledger: DomainLedger<InvestigateEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly log: Logger;
  readonly maxConcurrent: number;
  /** How often to look for due episodes when nothing woke it (1 s; tests lengthen it). */
  readonly pollMs?: number;
  /** whether new investigations start now (SVC_ORCHESTRATE, and the service is operating) */
  readonly active?: () => boolean;
  readonly episode: (id: string) => EpisodeInfo | null;
  /** whether the licence covers the service (licence.md §3.8); absent: every service is */
  readonly covered?: (service: string) => boolean;
  /** which packs match, then the checks and hypotheses (the engine) */
  readonly diagnose: (ctx: {
    episode_id: string;
    service: string;
    alerts: string[];
    labels: Record<string, string>;
  }) => Promise<Diagnosis>;
  /** what changed since: snapshot diffs, deploys, human.deploy events */
  readonly changes: (sinceIso: string, service: string) => unknown[];
  readonly autonomy: {
    levelOf(service: string): AutonomyLevel;
    fixMode(): FixMode;
    halted(): boolean;
  };
  /** the first runnable fix of the leading proven hypothesis, with the policy's say */
  readonly planFix: (
    episodeId: string,
    service: string,
    diagnosis: Diagnosis,
  ) => { choice: FixChoice; plan: FixPlan | null } | null;
  readonly changeWindow: (service: string) => { name: string; until: string } | null;
  readonly approvalRoute: () => boolean;
  readonly decide: (input: DecideInput) => DecideOutput;
  /** what a person can do so the checks can read (run discovery); null: nothing */
  readonly hint?: (service: string) => string | null;
  readonly approvals: {
    open(input: OpenApproval): Promise<ApprovalRequest>;
    /** end a pending request of the service's own (its episode closed) */
    withdraw?(requestId: string, reason: string): Promise<unknown>;
    /** the request as it is now, for a wait a crash interrupted (recover) */
    find?(requestId: string): ApprovalRequest | null;
  };
  readonly actions: {
    dryRun(plan: FixPlan): Promise<{ ok: boolean; detail: string }>;
    shadow(plan: FixPlan, would: 'act' | 'ask'): Promise<void>;
    execute(plan: FixPlan): Promise<ActionResult>;
  };
  /**
   * Inside the decision's transaction: a downstream episode joins the incident of the
   * episode whose proven cause it follows from.
   */
  readonly link?: (
    episodeId: string,
    toEpisode: string,
    relation: 'downstream' | 'same_cause' | 'related',
  ) => void;
  /** another open episode this one belongs with (same_cause, related); see relate.ts */
  readonly relate?: (
    episodeId: string,
    service: string,
    hypotheses: readonly Hypothesis[],
  ) => { decision: 'same_cause' | 'related'; to: string; why: string } | null;
  /** the plan an approved request runs: rebuilt from the request's subject */
  readonly planOf: (request: ApprovalRequest) => FixPlan | null;
  /**
   * Asked before a fix is dry-run, run or put to a person (System 1's "is this action
   * safe?"); a veto hands the episode over with nothing run. Absent: nothing is asked.
   */
  readonly vetoAction?:
    | ((
        episodeId: string,
        plan: FixPlan,
        diagnosis: Diagnosis,
      ) => Promise<{ vetoed: boolean; why: string }>)
    | undefined;
  /** After an investigation's finish committed (the episode's note); it never fails the episode. */
  readonly finished?: ((episodeId: string) => Promise<void>) | undefined;
}

export function createOrchestrator(deps: OrchestratorDeps) {
  const { store, ledger, writer, clock, log } = deps;
  const inFlight = new Set<string>();
  const queue: (() => Promise<void>)[] = [];
  let running = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const idle = new Set<() => void>();

  function pump(): void {
    while (!stopped && running < deps.maxConcurrent && queue.length > 0) {
      const job = queue.shift();
      if (job === undefined) break;
      running += 1;
      void job()
        .catch((err: unknown) => {
          log.error({ err }, 'investigation step failed');
        })
        .finally(() => {
          running -= 1;
          pump();
          if (running === 0 && queue.length === 0) for (const f of idle) f();
        });
    }
  }

  function enqueue(id: string, job: () => Promise<void>): void {
    if (inFlight.has(id)) return;
    inFlight.add(id);
    queue.push(async () => {
      try {
        await job();
      } finally {
        inFlight.delete(id);
      }
    });
    pump();
  }

  const append = <K extends EventType<InvestigateEvents>>(
    type: K,
    id: string,
    data: ReadonlyDeep<Omit<InvestigateEvents[K], 'episode_id'>>,
    reason?: string,
  ) =>
    writer.transact(() =>
      ledger.append({
        type,
        actor: 'system',
        // TypeScript cannot follow a generic spread; the parameter's type is what is checked.
        data: { episode_id: id, ...data } as ReadonlyDeep<InvestigateEvents[K]>,
        ...(reason !== undefined && { reason }),
        trace_id: id,
      }),
    );

  /** The alerts that still fire (all of them when none does), and their labels merged. */
  function alertsOf(id: string): { alerts: string[]; labels: Record<string, string> } {
    const all = store.signalsOf(id);
    const firing = all.filter((s) => s.firing);
    const signals = firing.length > 0 ? firing : all;
    return {
      alerts: [...new Set(signals.map((s) => s.name))],
      labels: Object.assign({}, ...signals.map((s) => s.labels)) as Record<string, string>,
    };
  }

  async function finish(id: string, closing: Closing, why: string): Promise<void> {
    await append(INVESTIGATION_FINISHED, id, { ...closing }, why);
    // Awaited so the close that follows finds the note; its failure is the hook's own.
    try {
      await deps.finished?.(id);
    } catch (err) {
      log.warn({ err, episode_id: id }, 'the finished hook failed');
    }
  }

  /** The hypotheses recorded for an episode, for a close that happens after a wait. */
  const recorded = (id: string): { hypotheses: Hypothesis[] } => ({
    hypotheses: JSON.parse(store.get(id)?.hypotheses ?? '[]') as Hypothesis[],
  });

  async function act(id: string, plan: FixPlan, decision: Decision): Promise<void> {
    const result = await deps.actions.execute(plan);
    await finish(
      id,
      closingOf(decision, result, plan, recorded(id)),
      `the fix ${plan.fix.id}: ${result}`,
    );
  }

  /** Every finding, then the hypotheses, in one commit. */
  const recordDiagnosis = (id: string, diagnosis: Diagnosis) =>
    writer.transact(() => {
      for (const finding of diagnosis.findings)
        ledger.append({
          type: CHECK_RAN,
          actor: 'system',
          data: { episode_id: id, finding },
          trace_id: id,
        });
      ledger.append({
        type: INVESTIGATION_HYPOTHESES,
        actor: 'system',
        data: { episode_id: id, packs: diagnosis.packs, hypotheses: diagnosis.hypotheses },
        trace_id: id,
      });
    });

  async function investigate(id: string): Promise<void> {
    const ep = deps.episode(id);
    const prior = store.get(id);
    if (ep === null || ep.status === 'closed' || (prior !== null && prior.status !== 'again'))
      return;
    if (deps.covered?.(ep.service) === false) {
      // Its signals stay recorded on the episode; only the investigation is left out.
      await append(
        INVESTIGATION_SKIPPED,
        id,
        { service: ep.service, why: NOT_COVERED },
        `${ep.service} is beyond the services the licence covers: its signals are recorded but not investigated (pin it with PUT /v1/licence/services, or extend the licence)`,
      );
      return;
    }
    const level = deps.autonomy.levelOf(ep.service);
    if (level === 'off' || ep.suppressed) {
      const why = level === 'off' ? 'autonomy is off for this service' : 'the signal is suppressed';
      await append(INVESTIGATION_SKIPPED, id, { service: ep.service, why }, why);
      return;
    }
    const queueS = Math.max(0, Math.round((clock.now() - Date.parse(ep.t_open)) / 1000));
    const { alerts, labels } = alertsOf(id);
    await append(INVESTIGATION_STARTED, id, { service: ep.service, alerts, queue_s: queueS });

    const since = new Date(Date.parse(ep.t_open) - CHANGES_WINDOW_MS).toISOString();
    const changes = deps.changes(since, ep.service);
    await append(INVESTIGATION_STEP, id, { step: 'changes', changes });
    await append(INVESTIGATION_STEP, id, { step: 'checks' });
    const diagnosis = await deps.diagnose({
      episode_id: id,
      service: ep.service,
      alerts,
      labels,
    });
    await recordDiagnosis(id, diagnosis);
    await decideAndAct(id, ep.service, diagnosis, level);
  }

  async function decideAndAct(
    id: string,
    service: string,
    diagnosis: Diagnosis,
    level: AutonomyLevel,
  ): Promise<void> {
    const fix = deps.planFix(id, service, diagnosis);
    const now = deps.episode(id);
    let out = deps.decide({
      hypotheses: diagnosis.hypotheses,
      alertEnded: now === null || now.status !== 'open',
      autonomy: level,
      fixMode: deps.autonomy.fixMode(),
      halted: deps.autonomy.halted(),
      fix: fix?.choice ?? null,
      changeWindow: deps.changeWindow(service),
      approvalRoute: deps.approvalRoute(),
      hint: deps.hint?.(service) ?? null,
    });
    const rel = deps.relate?.(id, service, diagnosis.hypotheses) ?? null;
    // same_cause: another episode acts on this cause; related: joined rather than abstained.
    const joins =
      rel !== null &&
      (rel.decision === 'same_cause'
        ? !NOT_JOINED.includes(out.decision)
        : out.decision === 'abstain');
    if (joins) out = { decision: rel.decision, why: rel.why, next: 'none' };
    const choice = fix?.choice;
    const fixRef =
      choice === undefined
        ? {}
        : {
            fix: {
              pack: choice.pack,
              id: choice.id,
              title: choice.title,
              risk: choice.risk,
              // Why the fix would not help (it was not offered), so a person and the bench see it.
              ...(typeof choice.unfit === 'string' && { unfit: choice.unfit }),
            },
          };
    const linkedTo = diagnosis.hypotheses.find((h) => h.confidence === 'linked')?.linked_episode;
    await writer.transact(() => {
      ledger.append({
        type: DECISION_MADE,
        actor: 'system',
        data: {
          episode_id: id,
          decision: out.decision,
          why: out.why,
          next: out.next,
          handover: handsOver(out.decision),
          ...fixRef,
        },
        reason: out.why,
        trace_id: id,
      });
      if (out.decision === 'downstream' && typeof linkedTo === 'string')
        deps.link?.(id, linkedTo, 'downstream');
      else if (joins) deps.link?.(id, rel.to, rel.decision);
    });
    const plan = fix?.plan ?? null;
    if (out.next === 'none' || plan === null) {
      await finish(id, closingOf(out.decision, 'none', null, diagnosis), out.why);
      return;
    }
    if (out.next === 'record') {
      await deps.actions.shadow(plan, level === 'L2' && choice?.safe === true ? 'act' : 'ask');
      await finish(id, closingOf('shadow', 'none', plan, diagnosis), out.why);
      return;
    }
    const veto = await deps.vetoAction?.(id, plan, diagnosis);
    if (veto?.vetoed === true) {
      // A second decision replaces the first: vetoed, handed over, nothing runs.
      const { why } = veto;
      const decision = { decision: 'vetoed', why, next: 'none', handover: handsOver('vetoed') };
      await append(DECISION_MADE, id, { ...decision, ...fixRef }, why);
      await finish(id, closingOf('vetoed', 'none', plan, diagnosis), why);
      return;
    }
    const dry = await deps.actions.dryRun(plan);
    if (!dry.ok) {
      await finish(id, closingOf(out.decision, 'dry_run_failed', plan, diagnosis), dry.detail);
      return;
    }
    if (out.next === 'act') {
      await act(id, plan, out.decision);
      return;
    }
    const request = await deps.approvals.open({
      kind: 'action',
      title: `${plan.fix.title} on ${service}`,
      summary: `${diagnosis.hypotheses[0]?.title ?? 'a proven cause'}: ${out.why}`,
      service,
      risk: plan.fix.risk,
      episode_id: id,
      subject: plan.subject,
      quorum: plan.fix.kind === 'restore' ? 2 : 1,
      approver_role: 'responder',
      requested_by: 'system',
    });
    await append(INVESTIGATION_WAITING, id, {
      request_id: request.request_id,
      decision: out.decision,
    });
  }

  /** An approval request ended: run the approved action, or end the wait. */
  function decided(request: ApprovalRequest): void {
    const row = store.byRequest(request.request_id);
    if (row === null || row.status !== 'waiting') return;
    const id = row.episode_id;
    const decision = (JSON.parse(row.decision ?? '{}') as { decision?: Decision }).decision;
    enqueue(id, async () => {
      if (request.status === 'approved' && deps.episode(id)?.status === 'closed') {
        await finish(
          id,
          closingOf('settled', 'none', null, recorded(id)),
          'approved after the episode closed: nothing runs',
        );
        return;
      }
      if (request.status === 'approved') {
        const plan = deps.planOf(request);
        if (plan === null) {
          await finish(
            id,
            closingOf('ask_human', 'none', null, recorded(id)),
            'the approved fix is gone',
          );
          return;
        }
        await act(id, plan, decision ?? 'act');
        return;
      }
      const closing =
        request.status === 'denied'
          ? closingOf(decision ?? 'act', 'denied', null, recorded(id))
          : closingOf('ask_human', 'none', null, recorded(id));
      await finish(
        id,
        closing,
        `the approval request was ${request.status}${request.reason === null ? '' : `: ${request.reason}`}`,
      );
    });
  }

  /** At start: investigations a crash interrupted are resumed or ended, never left hanging. */
  async function recover(): Promise<void> {
    /** Records why the round could not go on, and ends it with `decision`, `action`. */
    const endRecovered = async (
      id: string,
      what: string,
      decision: Parameters<typeof closingOf>[0],
      action: Parameters<typeof closingOf>[1],
      why = what,
    ): Promise<void> => {
      await append(INVESTIGATION_RECOVERED, id, { what }, what);
      await finish(id, closingOf(decision, action, null, recorded(id)), why);
    };
    for (const row of store.active()) {
      if (row.status === 'waiting') {
        // A request that ended while nobody listened (a crash after its commit) is
        // dispatched now; a pending one resumes through `decided`.
        if (deps.approvals.find === undefined) continue;
        const request = row.request_id === null ? null : deps.approvals.find(row.request_id);
        if (request?.status === 'pending') continue;
        if (request === null) {
          const what = 'the approval request it waited on is gone: a person decides';
          await endRecovered(row.episode_id, what, 'ask_human', 'none');
        } else decided(request);
        continue;
      }
      const started = (JSON.parse(row.actions) as { status: string }[]).some(
        (a) => a.status === 'running',
      );
      if (started) {
        const what = 'an action was running when the service stopped; a person must check it';
        await endRecovered(row.episode_id, what, 'ask_human', 'not_verified');
        continue;
      }
      const what = 'interrupted before acting: the investigation runs again';
      await append(INVESTIGATION_RECOVERED, row.episode_id, { what }, what);
      const ep = deps.episode(row.episode_id);
      if (ep === null || ep.status === 'closed') {
        await finish(
          row.episode_id,
          closingOf('abstain', 'none', null, recorded(row.episode_id)),
          'the episode closed',
        );
        continue;
      }
      enqueue(row.episode_id, async () => {
        await rerun(row.episode_id, ep.service);
      });
    }
  }

  async function rerun(id: string, service: string): Promise<void> {
    const diagnosis = await deps.diagnose({ episode_id: id, service, ...alertsOf(id) });
    await recordDiagnosis(id, diagnosis);
    await decideAndAct(id, service, diagnosis, deps.autonomy.levelOf(service));
  }

  /**
   * A request still pending when its episode closed (the alerts ended and stayed ended) is
   * withdrawn: approving it later must not run a fix for an episode that is over.
   */
  function withdrawOrphans(): void {
    for (const row of store.active()) {
      if (row.status !== 'waiting' || row.request_id === null) continue;
      if (deps.episode(row.episode_id)?.status !== 'closed') continue;
      const requestId = row.request_id;
      const why = 'the episode closed: its alerts ended and stayed ended';
      enqueue(row.episode_id, async () => {
        await deps.approvals.withdraw?.(requestId, why).catch((err: unknown) => {
          log.warn({ err, request_id: requestId }, 'could not withdraw the request');
        });
        await finish(
          row.episode_id,
          closingOf('settled', 'none', null, recorded(row.episode_id)),
          why,
        );
      });
    }
  }

  function scan(): void {
    if (deps.active?.() === false) return;
    withdrawOrphans();
    for (const ep of store.due()) enqueue(ep.episode_id, () => investigate(ep.episode_id));
  }

  // Wakes that arrive in one turn (a group commit of many alerts) make one scan.
  let started = false;
  let woken = false;
  function wake(): void {
    if (!started || stopped || woken) return;
    woken = true;
    setImmediate(() => {
      woken = false;
      if (!stopped) scan();
    });
  }

  return {
    async start(): Promise<void> {
      await recover();
      started = true;
      scan();
      timer = setInterval(scan, deps.pollMs ?? SCAN_MS);
      timer.unref();
    },
    /**
     * Look for due episodes now: after a commit that opened or joined one (compose subscribes
     * it to the ledger). Before start and after stop it does nothing; the poll stays as a net.
     */
    wake,
    decided,
    /** Running and queued investigations, for doctor and status. */
    counts: () => ({ running, queued: queue.length }),
    /** Resolves when nothing runs or waits in the queue (tests). */
    async drained(): Promise<void> {
      if (running === 0 && queue.length === 0) return;
      await new Promise<void>((resolve) => {
        const f = (): void => {
          idle.delete(f);
          resolve();
        };
        idle.add(f);
      });
    },
    stop(): void {
      stopped = true;
      if (timer !== null) clearInterval(timer);
    },
  };
}
export type Orchestrator = ReturnType<typeof createOrchestrator>;

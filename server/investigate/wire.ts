// The investigation assembled from the domains it uses: the engine over the packs, the
// estate and the connectors; the fix planner and the decision table; the actions executor;
// and the orchestrator that drives them per episode. The server builds it once (compose/acting.ts).
import type { Logger } from 'pino';
import type { Writer } from '../db/writer.js';
import type { LedgerReader, LedgerService } from '../ledger/index.js';
import { createActions } from '../act/index.js';
import type { ApprovalRequest, OpenApproval } from '../approvals/index.js';
import type { EpisodesStore } from '../episodes/index.js';
import { HUMAN_ACTION, HUMAN_DEPLOY } from '../events/index.js';
import type { IncidentsService } from '../incidents/index.js';
import type { Pack } from '../packs/index.js';
import { changeWindowNow, fixPermission, type Policy } from '../policy/index.js';
import type { SnapshotChange } from '../snapshots/index.js';
import type { Clock } from '../shared/clock.js';
import { withTimeout } from '../shared/timeout.js';
import {
  gateAction,
  gateEvidence,
  gatePattern,
  noteOf,
  writeNote,
  type ModelUse,
} from './models/index.js';
import { createChangesReader } from './changes.js';
import { closeFields } from './closing.js';
import { decide } from './decide.js';
import { createEngine, variablesFor } from './engine.js';
import type { PromotedPattern } from './diagnose.js';
import { createFixPlanner } from './fix-plan.js';
import { INVESTIGATION_STEP, type InvestigationsStore } from './investigations.store.js';
import type { Investigator } from './readings.js';
import { createOrchestrator } from './orchestrator.js';
import type { ConnectorLike, EstateLike } from './plan.js';
import { relate } from './relate.js';
import type { AutonomyLevel, FixMode, Hypothesis } from './types.js';
import { episodeLookup } from './episode-info.js';

export interface InvestigationDeps {
  readonly store: InvestigationsStore;
  readonly episodes: EpisodesStore;
  /** moves an episode into the incident of the episode it relates to (incident.linked) */
  readonly incidents: Pick<IncidentsService, 'link'>;
  /** Why labels keep a cause from proven on its own evidence (learning); null: nothing does. */
  readonly demoted?: (cause: string) => string | null;
  /** The promoted learned pattern a proven cause repeats (learning); null: none. */
  readonly promoted?: PromotedPattern;
  readonly ledger: LedgerService;
  readonly reader: LedgerReader;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly log: Logger;
  readonly maxConcurrent: number;
  /** the orchestrator's safety-net poll (1 s by default) */
  readonly pollMs?: number;
  /** whether new investigations start now */
  readonly active: () => boolean;
  readonly packs: () => readonly Pack[];
  readonly estate: () => EstateLike;
  readonly connectors: () => readonly ConnectorLike[];
  readonly call: (
    name: string,
    op: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
  readonly snapshots: (sinceIso: string) => readonly SnapshotChange[];
  readonly policy: () => Policy;
  readonly autonomy: {
    levelOf(service: string): AutonomyLevel;
    fixMode(): FixMode;
    halted(): boolean;
  };
  readonly approvals: {
    open(input: OpenApproval): Promise<ApprovalRequest>;
    withdraw(
      id: string,
      who: { actor: { name: string }; role: null },
      reason: string | null,
    ): Promise<ApprovalRequest>;
    onDecided(kind: 'action', handler: (r: ApprovalRequest) => void): void;
    /** the request now (a wait a crash interrupted is dispatched at start) */
    find(id: string): ApprovalRequest | null;
    /** why an approved request no longer stands (an approver disabled…), or null */
    standing(id: string): string | null;
  };
  /** someone can be asked: a person who may approve, or a working escalation channel */
  readonly approvalRoute: () => boolean;
  /** whether the licence covers a service; absent: every service is */
  readonly covered?: (service: string) => boolean;
  /** The models (System 1 gate, System 2 note); absent or null: templates only. */
  readonly models?: ModelUse | null;
  /** System 2 proposing further checks when the packs' own settle nothing; null: none */
  readonly investigator?: Investigator | null;
}

const RECURRENCE_MS = 7 * 86_400_000;

export function createInvestigation(deps: InvestigationDeps) {
  const { store, episodes, clock } = deps;
  const engine = createEngine({
    packs: deps.packs,
    estate: deps.estate,
    connectors: deps.connectors,
    // A check's own timeout on top of the connector's (the shorter wins).
    call: (name, op, args, timeoutMs) =>
      withTimeout(
        deps.call(name, op, args),
        timeoutMs / 1000,
        `${name} ${op}: no answer in ${String(timeoutMs / 1000)} s`,
      ),
    clock,
    investigator: () => deps.investigator ?? null,
    ...(deps.demoted !== undefined && { demoted: deps.demoted }),
    ...(deps.promoted !== undefined && { promoted: deps.promoted }),
    step: (id, step) =>
      deps.writer.transact(() => {
        deps.ledger.append({
          type: INVESTIGATION_STEP,
          actor: 'system',
          data: { episode_id: id, step },
          trace_id: id,
        });
      }),
  });
  const planner = createFixPlanner({
    packs: deps.packs,
    variables: (episodeId, service) => {
      const alerts = store.signalsOf(episodeId);
      return variablesFor({
        service,
        estate: deps.estate(),
        alerts: alerts.map((s) => s.name),
        labels: Object.assign({}, ...alerts.map((s) => s.labels)) as Record<string, string>,
        episodeId,
        nowMs: clock.now(),
      });
    },
    permission: (service, fix) => fixPermission(deps.policy(), service, fix),
  });
  const actions = createActions({
    call: deps.call,
    ledger: deps.ledger,
    writer: deps.writer,
    clock,
    halted: () => deps.autonomy.halted(),
    // Checked again where action.started is recorded (issue 16).
    autonomy: deps.autonomy,
    approvalStands: (id) => deps.approvals.standing(id),
    policyNow: (service, fix) => {
      const p = deps.policy();
      return {
        changeWindow: changeWindowNow(p, service, clock.nowIso()),
        permission: fixPermission(p, service, fix),
      };
    },
    recheck: (checkIds, ctx) =>
      engine.recheck(checkIds, { service: ctx.service, episode_id: ctx.episode_id }),
    alertEnded: (id) => episodes.get(id)?.status !== 'open',
  });
  const changes = createChangesReader({
    snapshots: deps.snapshots,
    events: (since) =>
      deps.reader.list({ type: `${HUMAN_DEPLOY},${HUMAN_ACTION}`, since, order: 'asc', limit: 200 })
        .events,
  });
  const models = deps.models ?? null;
  const modelDeps = { ledger: deps.ledger, writer: deps.writer };
  const orchestrator = createOrchestrator({
    store,
    ledger: deps.ledger,
    writer: deps.writer,
    clock,
    log: deps.log,
    maxConcurrent: deps.maxConcurrent,
    ...(deps.pollMs !== undefined && { pollMs: deps.pollMs }),
    active: deps.active,
    episode: episodeLookup(episodes),
    ...(deps.covered !== undefined && { covered: deps.covered }),
    diagnose: async (ctx) => {
      const diagnosis = await engine.investigate({
        ...ctx,
        recent_closed: episodes.closedSince(new Date(clock.now() - RECURRENCE_MS).toISOString()),
        open_episodes: episodes
          .running()
          .map((e) => ({ episode_id: e.episode_id, service: e.service })),
      });
      if (models === null) return diagnosis;
      const gated = await gateEvidence({ models, ...modelDeps }, ctx.episode_id, diagnosis);
      return gatePattern({ models, ...modelDeps, row: (e) => store.get(e) }, ctx.episode_id, gated);
    },
    changes: (since, service) => changes(since, service),
    autonomy: deps.autonomy,
    planFix: (id, service, diagnosis) => planner.plan(id, service, diagnosis),
    changeWindow: (service) => changeWindowNow(deps.policy(), service, clock.nowIso()),
    approvalRoute: deps.approvalRoute,
    decide,
    hint: (service) =>
      deps.estate().services.some((s) => s.name === service)
        ? null
        : `the estate does not know ${service} yet, so checks that need its hosts could not read: run discovery (Estate, or POST /v1/discover)`,
    approvals: {
      open: (input) => deps.approvals.open(input),
      withdraw: (id, reason) =>
        deps.approvals.withdraw(id, { actor: { name: 'system' }, role: null }, reason),
      find: (id: string) => deps.approvals.find(id),
    },
    actions: {
      dryRun: (plan) => actions.dryRun(plan),
      shadow: (plan, would) => actions.shadow(plan, would),
      execute: async (plan) => (await actions.execute(plan)).result,
    },
    relate: (id, service, hypotheses) =>
      relate({
        episode_id: id,
        service,
        hypotheses,
        estate: deps.estate(),
        others: episodes.running().map((e) => {
          const lead = (JSON.parse(store.get(e.episode_id)?.hypotheses ?? '[]') as Hypothesis[])[0];
          return {
            episode_id: e.episode_id,
            service: e.service,
            t_open: e.t_open,
            lead: lead === undefined ? null : { cause: lead.cause, confidence: lead.confidence },
          };
        }),
      }),
    link: (id, to, relation) => {
      const from = episodes.get(id);
      const target = episodes.get(to)?.incident_id ?? null;
      if (from?.incident_id == null || target === null || from.incident_id === target) return;
      // The incidents domain appends the move; its projection and the episodes' apply it.
      deps.incidents.link({
        episodeId: id,
        service: from.service,
        from: from.incident_id,
        to: target,
        relation,
        toEpisode: to,
      });
    },
    planOf: (request) => planner.fromSubject(request.subject, request.request_id),
    vetoAction:
      models === null
        ? undefined
        : (id, plan, diagnosis) => gateAction({ models, ...modelDeps }, id, plan, diagnosis),
    // With System 2, each finished investigation gets its note before its step resolves.
    finished:
      models?.configured('s2') === true
        ? async (id) => {
            await writeNote({ models, ...modelDeps, row: (e) => store.get(e) }, id);
          }
        : undefined,
  });
  deps.approvals.onDecided('action', (r) => {
    orchestrator.decided(r);
  });
  return {
    engine,
    actions,
    orchestrator,
    /** The episode.closed data of an investigated episode (episodes' closing hook). */
    closing: (episodeId: string) => {
      const row = episodes.get(episodeId);
      return row === null
        ? null
        : closeFields(store.get(episodeId), row.t_open, noteOf(deps.reader, episodeId));
    },
    /** What Live sorts by (its hypotheses and actions), without reading the rest. */
    attention: (episodeId: string) => {
      const row = store.get(episodeId);
      if (row === null) return null;
      return {
        hypotheses: JSON.parse(row.hypotheses) as unknown[],
        actions: JSON.parse(row.actions) as unknown[],
      };
    },
    /** The investigation part of the episode view. */
    view: (episodeId: string) => {
      const row = store.get(episodeId);
      if (row === null) return null;
      return {
        status: row.status,
        step: row.step,
        packs: JSON.parse(row.packs) as unknown[],
        changes: JSON.parse(row.changes) as unknown[],
        findings: JSON.parse(row.findings) as unknown[],
        hypotheses: JSON.parse(row.hypotheses) as unknown[],
        decision_detail:
          row.decision === null ? null : (JSON.parse(row.decision) as Record<string, unknown>),
        actions: JSON.parse(row.actions) as unknown[],
        request_id: row.request_id,
      };
    },
  };
}
export type Investigation = ReturnType<typeof createInvestigation>;

// Two phases of the composition root for issue 7's domains, kept apart so app.ts stays short.
// buildDeciding comes early (it needs only stores, the policy and the connectors): check packs,
// the models, approvals (with their escalation through the channels and the lab approver),
// autonomy, fix mode and halt. buildInvestigation comes once the status, the estate and the
// snapshots exist: the investigation (engine, actions, orchestrator) over what buildDeciding made.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Runtime } from './runtime.js';
import {
  approvalsRoutes,
  createApprovalsService,
  createEscalation,
  createLabApprover,
  labApproverCheck,
  pendingCheck,
} from '../approvals/index.js';
import { autonomyPolicyCheck, autonomyRoutes, createAutonomyService } from '../autonomy/index.js';
import { createLinkSigner, createLinkUseStore, loadOrCreateLinkKey } from '../channels/index.js';
import type { ConnectionState, Doctor } from '../doctor/index.js';
import { packOpener } from '../licence/index.js';
import { createPacksService, packDirs, packsCheck, packsLicenceCheck } from '../packs/index.js';
import type { Policy } from '../policy/index.js';
import type { IncidentsService } from '../incidents/index.js';
import type { SnapshotChange } from '../snapshots/index.js';
import {
  accuracyCheck,
  createInvestigation,
  type ConnectorLike,
  type EstateLike,
  answerCheck,
  createInvestigator,
  createModelUse,
  hostHasGpu,
  investigatorProjection,
  modelUseProjection,
  placementCheck,
  type LocalModel,
} from '../investigate/index.js';
import type { Mode } from '../shared/mode.js';
import { createLearningService, learningRoutes } from '../learning/index.js';
import { saidAbout } from './learning.js';

/** Roles that may approve an action (viewers cannot). */
const APPROVERS = new Set(['responder', 'admin', 'owner']);

type Call = (name: string, op: string, args: Readonly<Record<string, unknown>>) => Promise<unknown>;

export interface DecidingDeps {
  readonly config: Config;
  /** The local model runtime (startServer's option), when one was loaded. */
  readonly localModel?: LocalModel;
  readonly rt: Runtime;
  readonly log: Logger;
  readonly policy: () => Policy;
  readonly call: Call;
}

export function buildDeciding(deps: DecidingDeps) {
  const { config, rt, log } = deps;
  // A pack the licence does not open is never run (asked at each use: a licence can change).
  const packs = createPacksService({
    dirs: packDirs(config.files.packs),
    log,
    opens: packOpener(rt.licence),
  });
  const links = createLinkSigner({
    key: loadOrCreateLinkKey(config.dataDir),
    clock: rt.clock,
    used: createLinkUseStore(rt.db),
  });
  const approvals = createApprovalsService({
    store: rt.approvalsStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    links,
    log,
    people: () => rt.peopleStore.users(),
    personById: (id) => rt.peopleStore.userById(id),
  });
  const autonomy = createAutonomyService({
    store: rt.autonomyStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    approvals,
    people: () => rt.peopleStore.users(),
    log,
  });
  const escalation = createEscalation({
    approvals,
    links,
    people: () => rt.peopleStore.users(),
    clock: rt.clock,
    log,
    steps: () => deps.policy().escalation.steps,
    call: deps.call,
    baseUrl: () => config.http.consoleUrl ?? `http://127.0.0.1:${String(config.http.port)}`,
  });
  const labApprover = createLabApprover({ approvals, enabled: config.labApprover, log });
  const models = createModelUse({
    config,
    ledger: rt.ledger,
    writer: rt.writer,
    ...(deps.localModel && { local: deps.localModel }),
  });
  rt.projections.register(modelUseProjection);
  rt.projections.register(investigatorProjection);
  return { packs, approvals, autonomy, escalation, labApprover, models };
}
export type Deciding = ReturnType<typeof buildDeciding>;

export interface InvestigationPhaseDeps {
  readonly config: Config;
  readonly rt: Runtime;
  readonly log: Logger;
  readonly doctor: Pick<Doctor, 'register'>;
  readonly policy: () => Policy;
  readonly connectors: () => readonly (ConnectorLike & ConnectionState)[];
  readonly call: Call;
  readonly estate: () => EstateLike;
  readonly snapshots: (sinceIso: string) => readonly SnapshotChange[];
  /** the incidents domain, which records an episode's move into another incident */
  readonly incidents: Pick<IncidentsService, 'link'>;
  readonly mode: () => Mode;
  /** The orchestrator's safety-net poll in ms (1 s by default; tests lengthen it). */
  readonly orchestratorPollMs?: number;
  /** Whether this host has a GPU (doctor's Models placement); a probe of /dev by default. */
  readonly hasGpu?: () => boolean;
}

export function buildInvestigation(deps: InvestigationPhaseDeps, deciding: Deciding) {
  const { config, rt, log, doctor } = deps;
  const { packs, approvals, autonomy, escalation, labApprover, models } = deciding;
  const investigator = models.configured('s2')
    ? createInvestigator({
        models,
        ledger: rt.ledger,
        writer: rt.writer,
        kind: config.investigator.kind,
        bounds: {
          s2Calls: config.investigator.mctsS2Calls,
          reads: config.investigator.mctsReads,
          depth: config.investigator.mctsDepth,
        },
        timeoutS: config.model.timeoutS,
      })
    : null;
  const learning = createLearningService({
    store: rt.learningStore,
    ledger: rt.ledger,
    writer: rt.writer,
    said: saidAbout(rt),
  });
  const investigation = createInvestigation({
    store: rt.investigationsStore,
    episodes: rt.episodesStore,
    incidents: deps.incidents,
    ledger: rt.ledger,
    reader: rt.reader,
    writer: rt.writer,
    clock: rt.clock,
    log,
    maxConcurrent: config.maxConcurrent,
    ...(deps.orchestratorPollMs !== undefined && { pollMs: deps.orchestratorPollMs }),
    active: () => config.orchestrate && deps.mode() === 'operating',
    covered: (service) => rt.coverage.covered(service),
    packs: () => packs.packs().map((p) => p.pack),
    estate: deps.estate,
    connectors: deps.connectors,
    call: deps.call,
    snapshots: deps.snapshots,
    policy: deps.policy,
    autonomy,
    approvals,
    models,
    investigator,
    demoted: (cause) => learning.demotedWhy(cause),
    promoted: (service, cause, fix, alerts) =>
      learning.promoted(service, cause, fix, alerts)?.pattern_id ?? null,
    // Someone can be asked: the lab approver, a person who may approve, or a working channel.
    approvalRoute: () => {
      if (config.labApprover) return true;
      if (rt.peopleStore.users().some((u) => !u.disabled && APPROVERS.has(u.role))) return true;
      const healthy = new Set(
        deps
          .connectors()
          .filter((c) => c.problem === null && c.last_health?.ok === true)
          .map((c) => c.name),
      );
      return deps.policy().escalation.steps.some((s) => healthy.has(s.channel));
    },
  });
  doctor.register(
    placementCheck({ models, local: config.model.local, hasGpu: deps.hasGpu ?? hostHasGpu }),
  );
  doctor.register(answerCheck({ models }));
  doctor.register(packsCheck(packs));
  doctor.register(packsLicenceCheck(packs));
  doctor.register(pendingCheck({ pending: () => approvals.pending(), clock: rt.clock }));
  doctor.register(labApproverCheck({ enabled: config.labApprover }));
  doctor.register(autonomyPolicyCheck(autonomy));
  doctor.register(accuracyCheck(() => learning.accuracy()));

  return {
    packs,
    approvals,
    autonomy,
    investigation,
    models,
    learning,
    async start(): Promise<void> {
      await autonomy.recover();
      escalation.start();
      labApprover.start();
      await investigation.orchestrator.start();
    },
    async routes(v1: FastifyInstance, mode: () => Mode): Promise<void> {
      await v1.register(approvalsRoutes, { approvals, mode });
      await v1.register(autonomyRoutes, { autonomy, mode });
      await v1.register(learningRoutes, { learning, mode });
    },
    async stop(): Promise<void> {
      investigation.orchestrator.stop();
      labApprover.stop();
      await escalation.stop();
      // What is still running ends at the next start (recover), never silently.
      await Promise.race([
        investigation.orchestrator.drained(),
        new Promise((resolve) => setTimeout(resolve, 5000).unref()),
      ]);
    },
  };
}
export type Acting = ReturnType<typeof buildInvestigation>;

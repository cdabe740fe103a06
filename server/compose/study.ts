// The study, built on what the server already has: the estate's services, the loaded packs,
// the connectors (Prometheus range queries) and a diagnosis engine that only reads (its
// recheck reads named checks for one service, as `svc-core checks` reads them). The engine
// here has no investigator and no ledger: the study never writes a finding anywhere.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ConnectorLike, EstateLike } from '../investigate/index.js';
import { createEngine } from '../investigate/index.js';
import type { Pack } from '../packs/index.js';
import { withTimeout } from '../shared/timeout.js';
import { createStudyService, type CheckRead, type StudyService } from '../study/index.js';
import type { Runtime } from './runtime.js';

interface StudyParts {
  readonly estate: () => EstateLike;
  readonly packs: () => readonly Pack[];
  readonly connectors: () => readonly (ConnectorLike & { readonly problem?: string | null })[];
  readonly call: (
    name: string,
    op: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
}

/** Test-only: the readings' window and step, shortened. */
export interface StudyOptions {
  readonly windowS?: number;
  readonly stepS?: number;
}

export function buildStudy(
  rt: Runtime,
  config: Config,
  log: Logger,
  parts: StudyParts,
  options: StudyOptions = {},
): StudyService {
  const engine = createEngine({
    packs: parts.packs,
    estate: parts.estate,
    connectors: parts.connectors,
    call: (name, op, args, ms) =>
      withTimeout(
        parts.call(name, op, args),
        ms / 1000,
        `connector ${name}: ${op}: no answer within ${String(Math.round(ms / 1000))} s`,
      ),
    clock: rt.clock,
  });
  async function readChecks(service: string, checks: readonly string[]): Promise<CheckRead[]> {
    const findings = await engine.recheck(checks, {
      service,
      labels: { service },
      episode_id: 'study',
    });
    // A check with an unreadable finding could not be read; one with none, or only rule
    // findings, was read (a rule that did not hold says nothing is wrong, not unreadable).
    return checks.map((check) => {
      const bad = findings.find((f) => f.check === check && !f.readable);
      return bad === undefined
        ? { check, readable: true, why: null }
        : { check, readable: false, why: bad.says };
    });
  }
  const causal = config.causal;
  return createStudyService({
    store: rt.studyStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    log,
    services: () => parts.estate().services,
    packs: parts.packs,
    prometheus: () =>
      parts
        .connectors()
        .filter((c) => c.kind === 'prometheus')
        .map((c) => c.name)
        .sort(),
    call: parts.call,
    readChecks,
    causal:
      causal.url === null
        ? null
        : { url: causal.url, token: causal.token, tau: causal.tau, timeoutS: causal.timeoutS },
    tau: causal.tau,
    ...(options.windowS !== undefined && { windowS: options.windowS }),
    ...(options.stepS !== undefined && { stepS: options.stepS }),
  });
}

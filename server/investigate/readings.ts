// What a model investigator may do, and nothing more: pick read-only checks from the packs'
// catalogue (checks of packs the signal did not match, for the episode's service, that a
// connector reaches), have the engine read them, and ask how the diagnosis stands over any
// set of readings. It never names a call, an argument or a fix of its own: a proposal is a
// catalogue id or nothing. A proposed check is read with the other checks of its pack for the
// same service, because a pack's causes are written to be judged on all of its checks (a
// recent commit proves a bad deploy only where the health check does not refute it). Each
// check is read at most once per episode.
import type { Pack } from '../packs/index.js';
import { planChecks, type ConnectorLike, type EstateLike, type PlannedCheck } from './plan.js';
import type { CheckResults } from './run-checks.js';
import type { Confidence, Finding, Hypothesis } from './types.js';
import { decisive } from './confidence.js';

/** A check the investigator may propose: `<check id>@<service>`. */
export interface Candidate {
  readonly id: string;
  readonly check: string;
  readonly title: string;
  readonly pack: string;
  readonly service: string;
}

export interface Assessment {
  /** the leading hypothesis's confidence; null when there is none */
  readonly lead: Confidence | null;
  /** a cause is proven or linked: nothing more to look for */
  readonly settled: boolean;
  /** ids of the readable findings */
  readonly evidence: readonly string[];
  /** check ids that could not be read */
  readonly unreadable: readonly string[];
  readonly hypotheses: readonly { cause: string; title: string; confidence: Confidence }[];
}

export interface InvestigatorTools {
  readonly catalogue: readonly Candidate[];
  /**
   * Reads a candidate with its pack's other unread checks for the service; the ids read
   * (the proposed one first), or none when it is not in the catalogue or was read already.
   */
  read(id: string): Promise<string[]>;
  /** The diagnosis over the first reading plus the candidates `ids` (read ones only). */
  assess(ids: readonly string[]): Assessment;
  /** candidate ids read so far, in order */
  readonly done: () => readonly string[];
}

export interface InvestigatorContext {
  readonly episode_id: string;
  readonly service: string;
  readonly alerts: readonly string[];
}

/** Proposes checks, within its own bounds, through the tools only. */
export interface Investigator {
  extend(ctx: InvestigatorContext, tools: InvestigatorTools): Promise<void>;
}

export interface ReadingsInput {
  readonly packs: readonly Pack[];
  readonly estate: EstateLike;
  readonly connectors: readonly ConnectorLike[];
  readonly service: string;
  /** packs the signal matched: their checks were read already */
  readonly matched: readonly string[];
  readonly first: CheckResults;
  readonly run: (planned: readonly PlannedCheck[]) => Promise<CheckResults>;
  /** the hypotheses over these findings, with these packs' causes in play */
  readonly judge: (
    findings: readonly Finding[],
    matched: readonly string[],
    values: Record<string, Record<string, unknown>>,
  ) => Hypothesis[];
}

export interface Readings {
  readonly tools: InvestigatorTools;
  /** every reading so far, and the packs whose checks were read */
  result(): {
    findings: Finding[];
    values: Record<string, Record<string, unknown>>;
    matched: string[];
  };
}

/** The hypotheses settle the question: a cause proven here or on a dependency. */
export const settled = (hypotheses: readonly Hypothesis[]): boolean => hypotheses.some(decisive);

function catalogueOf(input: Omit<ReadingsInput, 'first' | 'run' | 'judge'>): {
  candidates: Candidate[];
  planned: Map<string, PlannedCheck[]>;
} {
  const others = input.packs.map((p) => p.id).filter((id) => !input.matched.includes(id));
  const planned = new Map<string, PlannedCheck[]>();
  const candidates: Candidate[] = [];
  for (const p of planChecks({ ...input, matched: others })) {
    // Dependency checks of every pack were read already; a check nothing reaches is no read.
    if (p.service !== input.service || p.problem !== null || !others.includes(p.pack)) continue;
    const id = `${p.check.id}@${p.service}`;
    const list = planned.get(id);
    if (list !== undefined) {
      list.push(p);
      continue;
    }
    planned.set(id, [p]);
    candidates.push({
      id,
      check: p.check.id,
      title: p.check.title,
      pack: p.pack,
      service: p.service,
    });
  }
  return { candidates, planned };
}

export function createReadings(input: ReadingsInput): Readings {
  const { candidates, planned } = catalogueOf(input);
  const results = new Map<string, CheckResults>(); // by proposal
  const proposalOf = new Map<string, string>(); // candidate read → the proposal that read it
  const order: string[] = [];

  const packsOf = (ids: readonly string[]): string[] => [
    ...new Set([
      ...input.matched,
      ...ids.flatMap((id) => candidates.filter((c) => c.id === id).map((c) => c.pack)),
    ]),
  ];
  const gather = (ids: readonly string[]) => {
    const findings = [...input.first.findings];
    const values: Record<string, Record<string, unknown>> = {};
    for (const [s, v] of Object.entries(input.first.values)) values[s] = { ...v };
    const proposals = new Set(ids.flatMap((id) => proposalOf.get(id) ?? []));
    for (const p of proposals) {
      const r = results.get(p);
      if (r === undefined) continue;
      findings.push(...r.findings);
      // The first reading of a value wins, as within one run of checks.
      for (const [s, v] of Object.entries(r.values)) values[s] = { ...v, ...(values[s] ?? {}) };
    }
    const read = order.filter((id) => proposals.has(proposalOf.get(id) ?? ''));
    return { findings, values, matched: packsOf(read) };
  };

  const tools: InvestigatorTools = {
    catalogue: candidates,
    async read(id) {
      const proposed = candidates.find((c) => c.id === id);
      if (proposed === undefined || proposalOf.has(id)) return [];
      const members = [
        id,
        ...candidates
          .filter(
            (c) =>
              c.id !== id &&
              c.pack === proposed.pack &&
              c.service === proposed.service &&
              !proposalOf.has(c.id),
          )
          .map((c) => c.id),
      ];
      // Taken before the await: a concurrent proposal never reads these again.
      for (const m of members) {
        proposalOf.set(m, id);
        order.push(m);
      }
      results.set(id, await input.run(members.flatMap((m) => planned.get(m) ?? [])));
      return members;
    },
    assess(ids) {
      const g = gather(ids);
      const hypotheses = input.judge(g.findings, g.matched, g.values);
      return {
        lead: hypotheses[0]?.confidence ?? null,
        settled: settled(hypotheses),
        evidence: [...new Set(g.findings.filter((f) => f.readable).map((f) => f.id))],
        unreadable: [...new Set(g.findings.filter((f) => !f.readable).map((f) => f.check))],
        hypotheses: hypotheses.map((h) => ({
          cause: h.cause,
          title: h.title,
          confidence: h.confidence,
        })),
      };
    },
    done: () => [...order],
  };
  return { tools, result: () => gather(order) };
}

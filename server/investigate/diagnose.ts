// Packs + findings + the episode's context → hypotheses, best first. Pure.
//   - The causes of the packs that matched are judged on the episode's service; a cause is
//     kept when some pack can prove it or a finding bears on it.
//   - A cause defined in several packs (the same id) is one cause: the evidence of every
//     definition counts; its pack is the definition with fixes (then with a proving finding,
//     then the first), and its fixes are that pack's.
//   - On each service the episode's service depends on, a cause proven there is `linked`
//     when the episode's alerts match its downstream globs; other dependency causes are left
//     out (they do not explain this episode).
//   - Best first: by confidence, then by how many of the episode's alerts the cause's packs
//     match, then by evidence.
//   - `recurrence_of`: the latest closed episode of the same cause and service in the last 7
//     days; `linked_episode`: the dependency's open episode.
//   - Proof needs mechanism, and an unread check never lets a cause through: a cause with a
//     proving finding is held at `suspected` (with `held` saying why) when a check that
//     could refute it on that service could not be read, or a finding it `requires` is
//     absent (a change is only proven when it reaches the failing service and the failure
//     names what it changed, never by timing alone).
//   - A cause its labels demoted (learning) is held at `suspected` the same way, with why.
//   - `pattern`: a proven cause on the episode's own service that a promoted learned pattern
//     matches is marked with it; the mark is evidence of having been judged before, never
//     a confidence.
// Whether to abstain is the decision table's job, not this file's.
import type { Pack, PackCause } from '../packs/index.js';
import { confidenceOf, confidenceRank, isLinked } from './confidence.js';
import { globMatches } from './match.js';
import { fillText, lookupIn } from '../packs/index.js';
import type { Confidence, Finding, Hypothesis } from './types.js';

export interface ClosedEpisode {
  readonly episode_id: string;
  readonly service: string;
  readonly cause: string;
  readonly closed_at: string;
}

export interface OpenEpisode {
  readonly episode_id: string;
  readonly service: string;
}

/** The promoted learned pattern of a service, cause, first fix and alerts; null: none. */
export type PromotedPattern = (
  service: string,
  cause: string,
  fix: string | null,
  alerts: readonly string[],
) => string | null;

export interface DiagnoseContext {
  readonly service: string;
  /** the episode's alert names */
  readonly alerts: readonly string[];
  /** the services it depends on (one and two links away) */
  readonly dependencies: readonly string[];
  /** ids of the packs that matched the episode's signal */
  readonly matched: readonly string[];
  /** closed episodes, for recurrence */
  readonly recent?: readonly ClosedEpisode[];
  /** open episodes, for `linked_episode` */
  readonly open?: readonly OpenEpisode[];
  /** ISO-8601 now; recurrence looks 7 days back from it (without it, any age counts) */
  readonly now?: string;
  /** per service: variables and values read, for filling cause titles */
  readonly variables?: (service: string) => Readonly<Record<string, unknown>>;
  /** why labels keep a cause from proven on its own evidence; null: nothing does */
  readonly demoted?: (cause: string) => string | null;
  /** the promoted learned pattern a proven cause repeats; null: none */
  readonly promoted?: PromotedPattern;
}

export const RECURRENCE_DAYS = 7;
const DAY_MS = 86_400_000;

interface Definition {
  readonly pack: string;
  readonly cause: PackCause;
}

interface Judged {
  readonly hypothesis: Hypothesis;
  readonly own: boolean;
  readonly order: number;
  /** how many of the episode's alerts the packs defining the cause match */
  readonly explains: number;
}

/** The episode's alerts that some pack defining the cause matches by name. */
function explained(packs: readonly Pack[], defs: readonly Definition[], alerts: readonly string[]) {
  const globs = packs
    .filter((p) => defs.some((d) => d.pack === p.id))
    .flatMap((p) => p.matches.flatMap((m) => m.alerts ?? []));
  return alerts.filter((a) => globs.some((g) => globMatches(g, a))).length;
}

/** Every definition of each cause id, in pack order. */
export function causeDefinitions(packs: readonly Pack[]): Map<string, Definition[]> {
  const out = new Map<string, Definition[]>();
  for (const pack of packs) {
    for (const cause of pack.causes) {
      const list = out.get(cause.id) ?? [];
      list.push({ pack: pack.id, cause });
      out.set(cause.id, list);
    }
  }
  return out;
}

/** `host.services.unit_down` → `host.services`. */
export const checkOf = (finding: string): string => finding.slice(0, finding.lastIndexOf('.'));

/** What the findings read on one service: the finding ids present, the checks unread. */
interface Reading {
  readonly present: ReadonlySet<string>;
  readonly unread: ReadonlySet<string>;
}

/** Why a proving finding is not enough here; empty: nothing holds it back. */
function holds(defs: readonly Definition[], reading: Reading): string[] {
  const refutingChecks = new Set(defs.flatMap((d) => d.cause.refutes.map(checkOf)));
  const unread = [...refutingChecks]
    .filter((c) => reading.unread.has(c))
    .map((c) => `${c} could not be read, and it could rule this out`);
  const required = [...new Set(defs.flatMap((d) => d.cause.requires ?? []))]
    .filter((f) => !reading.present.has(f))
    .map((f) => `${f} was not found, and proof needs it`);
  return [...unread, ...required];
}

function judge(
  id: string,
  defs: readonly Definition[],
  service: string,
  reading: Reading,
  ctx: DiagnoseContext,
): { hypothesis: Omit<Hypothesis, 'confidence'>; confidence: Exclude<Confidence, 'linked'> } {
  const present = reading.present;
  const pick = (list: 'proves' | 'supports' | 'refutes'): string[] => [
    ...new Set(defs.flatMap((d) => d.cause[list].filter((f) => present.has(f)))),
  ];
  const proving = pick('proves');
  const supporting = pick('supports');
  const refuting = pick('refutes');
  const score = (d: Definition): number =>
    (d.cause.fixes.length > 0 ? 2 : 0) + (d.cause.proves.some((f) => present.has(f)) ? 1 : 0);
  const chosen = defs.reduce((best, d) => (score(d) > score(best) ? d : best));
  const vars = ctx.variables?.(service) ?? {};
  const title = fillText(chosen.cause.title, lookupIn({ service }, vars));
  const byEvidence = confidenceOf({
    proving: proving.length,
    supporting: supporting.length,
    refuting: refuting.length,
  });
  const demotion = byEvidence === 'proven' ? (ctx.demoted?.(id) ?? null) : null;
  const held = byEvidence === 'proven' ? [...holds(defs, reading)] : [];
  if (demotion !== null) held.push(demotion);
  return {
    hypothesis: {
      cause: id,
      // A title that still names a placeholder never reaches a person: the cause's id does.
      title: title.missing.length === 0 ? title.value : id.replace(/_/g, ' '),
      service,
      pack: chosen.pack,
      proving,
      supporting,
      refuting,
      fixes: [...chosen.cause.fixes],
      ...(held.length > 0 && { held }),
    },
    confidence: held.length > 0 ? 'suspected' : byEvidence,
  };
}

function recurrenceOf(cause: string, service: string, ctx: DiagnoseContext): string | null {
  const since = ctx.now === undefined ? null : Date.parse(ctx.now) - RECURRENCE_DAYS * DAY_MS;
  const hits = (ctx.recent ?? [])
    .filter((e) => e.cause === cause && e.service === service)
    .filter((e) => since === null || Date.parse(e.closed_at) >= since)
    .sort((a, b) => b.closed_at.localeCompare(a.closed_at));
  return hits[0]?.episode_id ?? null;
}

/** Hypotheses for the episode, best first. */
export function diagnose(
  packs: readonly Pack[],
  findings: readonly Finding[],
  ctx: DiagnoseContext,
): Hypothesis[] {
  const defs = causeDefinitions(packs);
  const presentOn = (service: string): Reading => ({
    present: new Set(findings.filter((f) => f.readable && f.service === service).map((f) => f.id)),
    unread: new Set(
      findings.filter((f) => !f.readable && f.service === service).map((f) => f.check),
    ),
  });
  const judged: Judged[] = [];
  let order = 0;

  // The episode's own service: the causes of the matching packs.
  const own = presentOn(ctx.service);
  const ownIds: string[] = [];
  for (const pack of packs) {
    if (!ctx.matched.includes(pack.id)) continue;
    for (const c of pack.causes) if (!ownIds.includes(c.id)) ownIds.push(c.id);
  }
  for (const id of ownIds) {
    const all = defs.get(id) ?? [];
    const { hypothesis, confidence } = judge(id, all, ctx.service, own, ctx);
    const provable = all.some((d) => d.cause.proves.length > 0);
    const touched =
      hypothesis.proving.length + hypothesis.supporting.length + hypothesis.refuting.length > 0;
    if (!provable && !touched) continue;
    const pattern =
      confidence === 'proven'
        ? (ctx.promoted?.(ctx.service, id, hypothesis.fixes[0] ?? null, ctx.alerts) ?? null)
        : null;
    judged.push({
      hypothesis: {
        ...hypothesis,
        confidence,
        recurrence_of: confidence === 'proven' ? recurrenceOf(id, ctx.service, ctx) : null,
        ...(pattern !== null && { pattern }),
      },
      own: true,
      order: order++,
      explains: explained(packs, all, ctx.alerts),
    });
  }

  // The services it depends on: causes proven there that produce this episode's alerts.
  for (const dep of ctx.dependencies) {
    if (dep === ctx.service) continue;
    const present = presentOn(dep);
    for (const [id, all] of defs) {
      const downstream = [...new Set(all.flatMap((d) => d.cause.downstream?.alerts ?? []))];
      if (downstream.length === 0) continue;
      const { hypothesis, confidence } = judge(id, all, dep, present, ctx);
      if (!isLinked(confidence, ctx.alerts, downstream)) continue;
      judged.push({
        hypothesis: {
          ...hypothesis,
          confidence: 'linked',
          linked_episode: ctx.open?.find((e) => e.service === dep)?.episode_id ?? null,
          recurrence_of: recurrenceOf(id, dep, ctx),
        },
        own: false,
        order: order++,
        explains: 0,
      });
    }
  }

  return judged
    .sort(
      (a, b) =>
        confidenceRank(a.hypothesis.confidence) - confidenceRank(b.hypothesis.confidence) ||
        // Of two proven causes, the one that explains more of the episode's alerts leads (a
        // busy CPU beside a stopped app explains the CPU alert, not the app's).
        b.explains - a.explains ||
        b.hypothesis.proving.length - a.hypothesis.proving.length ||
        b.hypothesis.supporting.length - a.hypothesis.supporting.length ||
        Number(b.own) - Number(a.own) ||
        a.order - b.order,
    )
    .map((j) => j.hypothesis);
}

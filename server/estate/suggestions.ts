// Suggested links: dependencies the evidence points to but no connector states. Three sources,
// pure functions here, and the links verified ML artefacts hold (server/ml), given as they are:
//   (a) episodes of two services that repeatedly open close together (at least
//       SUGGEST_MIN_TIMES times within SUGGEST_WINDOW_S over the last SUGGEST_DAYS days); the
//       service that usually opens first is the one depended on;
//   (b) a probe (an HTTP probe connector, or a Prometheus probe target with a `service`
//       label) whose URL's host and port another service listens on: the probed service is
//       reached through that one. Exporter targets are not used: an exporter's address is
//       the exporter, which monitors a service and is no dependency of it;
//   (c) relations a study found between services' readings (server/study): the service
//       whose readings lead is the one depended on; read through a port, as the study
//       domain owns its tables.
// A pair already linked (either way), a pair already confirmed or dismissed (either way), ignored
// names and names the estate does not know are never suggested.
import { createHash } from 'node:crypto';
import { listeners, type ObservationRow } from './estate.observed.js';
import type { EstateLink } from './estate.schemas.js';

export const SUGGEST_WINDOW_S = 120;
export const SUGGEST_MIN_TIMES = 3;
export const SUGGEST_DAYS = 30;
/** The score of a probe reaching another service's port (source b). */
export const PROBE_SCORE = 0.8;

export interface Suggestion {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly evidence: string;
  /** 0 to 1: how strongly the evidence points to the link. */
  readonly score: number;
}

/** A stable id for the pair: the same from and to always give the same id. */
export function suggestionId(from: string, to: string): string {
  return `sug-${createHash('sha256').update(`${from}\u0000${to}`).digest('hex').slice(0, 16)}`;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

/**
 * Source (a): pairs of services whose episodes opened within `windowS` of each other at
 * least `minTimes` times. Each opening counts in at most one coincidence per pair (so one
 * flapping service cannot make a pattern alone). The one that opened first more often is
 * `to` (the dependency); with no consistent order, the names' order decides and the
 * evidence says so. Score: coincidences over the fewer episodes of the two.
 */
export function coOpenings(
  openings: readonly { service: string; t_open: string }[],
  opts: { windowS?: number; minTimes?: number; days?: number } = {},
): Omit<Suggestion, 'id'>[] {
  const windowMs = (opts.windowS ?? SUGGEST_WINDOW_S) * 1000;
  const minTimes = opts.minTimes ?? SUGGEST_MIN_TIMES;
  const days = opts.days ?? SUGGEST_DAYS;
  const events = openings
    .map((o) => ({ service: o.service, t: Date.parse(o.t_open) }))
    .filter((e) => e.service !== '' && Number.isFinite(e.t))
    .sort((a, b) => a.t - b.t);
  const count = new Map<string, number>();
  for (const e of events) count.set(e.service, (count.get(e.service) ?? 0) + 1);
  // Per unordered pair: coincidences, and how often each name opened first.
  const pairs = new Map<string, { times: number; firstA: number; firstB: number }>();
  const used = new Set<string>(); // `${pair}\u0000${index}`: an opening already matched for the pair
  for (let i = 0; i < events.length; i++) {
    const a = events[i];
    if (a === undefined) continue;
    for (let j = i + 1; j < events.length; j++) {
      const b = events[j];
      if (b === undefined || b.t - a.t > windowMs) break;
      if (b.service === a.service) continue;
      const [x, y] = a.service < b.service ? [a.service, b.service] : [b.service, a.service];
      const pair = `${x}\u0000${y}`;
      if (used.has(`${pair}\u0000${String(i)}`) || used.has(`${pair}\u0000${String(j)}`)) continue;
      used.add(`${pair}\u0000${String(i)}`);
      used.add(`${pair}\u0000${String(j)}`);
      const p = pairs.get(pair) ?? { times: 0, firstA: 0, firstB: 0 };
      p.times += 1;
      if (a.t < b.t) {
        if (a.service === x) p.firstA += 1;
        else p.firstB += 1;
      }
      pairs.set(pair, p);
    }
  }
  const out: Omit<Suggestion, 'id'>[] = [];
  for (const [pair, p] of pairs) {
    if (p.times < minTimes) continue;
    const [x = '', y = ''] = pair.split('\u0000');
    const fewer = Math.min(count.get(x) ?? 0, count.get(y) ?? 0);
    const score = round2(Math.min(1, p.times / Math.max(1, fewer)));
    const seconds = String(windowMs / 1000);
    const base = `episodes of ${x} and ${y} opened within ${seconds} s of each other ${String(p.times)} times in the last ${String(days)} days`;
    if (p.firstA > p.firstB) {
      out.push({
        from: y,
        to: x,
        score,
        evidence: `${base}; ${x} opened first ${String(p.firstA)} times`,
      });
    } else if (p.firstB > p.firstA) {
      out.push({
        from: x,
        to: y,
        score,
        evidence: `${base}; ${y} opened first ${String(p.firstB)} times`,
      });
    } else {
      out.push({ from: x, to: y, score, evidence: `${base}, in no consistent order` });
    }
  }
  return out;
}

/** Source (b): a probe whose URL's host and port another service listens on. */
export function probesServedByOthers(rows: readonly ObservationRow[]): Omit<Suggestion, 'id'>[] {
  const byEndpoint = listeners(rows);
  const out: Omit<Suggestion, 'id'>[] = [];
  for (const row of rows) {
    for (const p of row.observations.probes) {
      const at = `${p.host.includes(':') ? `[${p.host}]` : p.host}:${String(p.port)}`;
      for (const owner of byEndpoint.get(at) ?? []) {
        if (owner === p.service) continue;
        out.push({
          from: p.service,
          to: owner,
          score: PROBE_SCORE,
          evidence: `the probe of ${p.service} (${p.url}, connector ${row.connector}) reaches ${at}, where ${owner} listens`,
        });
      }
    }
  }
  return out;
}

/** A relation a study found (the study domain's read, through compose). */
export interface StudiedRelation {
  /** the follower: it depends on `to` */
  readonly from: string;
  readonly to: string;
  /** steps by which `to` leads (0: together, in no order) */
  readonly lag: number;
  readonly strength: number;
  readonly score: number;
  readonly readings: string;
  readonly method: string;
  /** the readings' step, seconds */
  readonly step_s: number;
  /** when the study related them */
  readonly at: string;
}

/** Source (c): relations a study found between two services' readings. */
export function studiedRelations(relations: readonly StudiedRelation[]): Omit<Suggestion, 'id'>[] {
  return relations.map((r) => {
    const how =
      r.method === 'causal_service' ? 'the causal discovery service' : 'lagged correlation';
    const lag =
      r.lag === 0
        ? 'they move together (lag 0), in no consistent order'
        : `${r.to} leads by ${String(r.lag)} step${r.lag === 1 ? '' : 's'} (${String(r.lag * r.step_s)} s)`;
    return {
      from: r.from,
      to: r.to,
      score: r.score,
      evidence: `the study of ${r.at.slice(0, 10)} found ${r.readings} related by ${how}: ${lag}, strength ${String(r.strength)}, score ${String(r.score)}`,
    };
  });
}

/**
 * Every suggestion the evidence gives, minus pairs already linked (either way), decided
 * ids, and names that are not services of the estate. One suggestion per from → to; when
 * both sources give it, the evidence is joined and the higher score kept. Best first.
 */
export function suggestions(input: {
  readonly services: readonly string[];
  readonly links: readonly Pick<EstateLink, 'from' | 'to'>[];
  readonly openings: readonly { service: string; t_open: string }[];
  readonly observations: readonly ObservationRow[];
  readonly decided: ReadonlySet<string>;
  /** Links other domains infer (verified ML artefacts), with their evidence. */
  readonly inferred?: readonly Omit<Suggestion, 'id'>[];
  /** source (c): a study's relations; none when no study has related services */
  readonly relations?: readonly StudiedRelation[];
}): Suggestion[] {
  const known = new Set(input.services);
  const linked = new Set(
    input.links.flatMap((l) => [`${l.from}\u0000${l.to}`, `${l.to}\u0000${l.from}`]),
  );
  const byId = new Map<string, Suggestion>();
  for (const s of [
    ...coOpenings(input.openings),
    ...probesServedByOthers(input.observations),
    ...(input.inferred ?? []),
    ...studiedRelations(input.relations ?? []),
  ]) {
    if (!known.has(s.from) || !known.has(s.to) || s.from === s.to) continue;
    if (linked.has(`${s.from}\u0000${s.to}`)) continue;
    const id = suggestionId(s.from, s.to);
    if (input.decided.has(id) || input.decided.has(suggestionId(s.to, s.from))) continue;
    const before = byId.get(id);
    byId.set(
      id,
      before === undefined
        ? { id, ...s }
        : {
            ...before,
            evidence: before.evidence.includes(s.evidence)
              ? before.evidence
              : `${before.evidence}; ${s.evidence}`,
            score: Math.max(before.score, s.score),
          },
    );
  }
  return [...byId.values()].sort(
    (a, b) => b.score - a.score || a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
  );
}

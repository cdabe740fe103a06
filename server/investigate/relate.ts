// Which other open episode this one belongs with, beside `downstream` (a cause proven on a
// dependency, decided by the table): `same_cause` when another open episode has already
// proven the same cause on a service that shares a host with this one (one disk filling up
// under two services: one fix, one incident, not two), and `related` when nothing is proven
// here but a service linked to this one in the estate has an open episode. Pure.
import type { Hypothesis } from './types.js';
import { decisive } from './confidence.js';

export interface OtherEpisode {
  readonly episode_id: string;
  readonly service: string;
  readonly t_open: string;
  /** its leading hypothesis, when its investigation has one */
  readonly lead: Pick<Hypothesis, 'cause' | 'confidence'> | null;
}

export interface RelateInput {
  readonly episode_id: string;
  readonly service: string;
  readonly hypotheses: readonly Hypothesis[];
  readonly others: readonly OtherEpisode[];
  readonly estate: {
    readonly services: readonly { readonly name: string; readonly hosts: readonly string[] }[];
    readonly links: readonly { readonly from: string; readonly to: string }[];
  };
}

export interface Relation {
  readonly decision: 'same_cause' | 'related';
  readonly to: string;
  readonly why: string;
}

export function relate(input: RelateInput): Relation | null {
  const others = input.others
    .filter((o) => o.episode_id !== input.episode_id)
    .sort((a, b) => a.t_open.localeCompare(b.t_open));
  const hostsOf = (name: string): Set<string> =>
    new Set(input.estate.services.find((s) => s.name === name)?.hosts ?? []);
  const lead = input.hypotheses.find(decisive);
  if (lead?.confidence === 'proven') {
    const mine = hostsOf(input.service);
    const same = others.find(
      (o) =>
        o.lead?.confidence === 'proven' &&
        o.lead.cause === lead.cause &&
        [...hostsOf(o.service)].some((h) => mine.has(h)),
    );
    return same === undefined
      ? null
      : {
          decision: 'same_cause',
          to: same.episode_id,
          why: `${lead.cause} is already proven in ${same.episode_id} (${same.service}), on a host ${input.service} shares: one fix, one incident`,
        };
  }
  if (lead !== undefined) return null;
  const linked = new Set(
    input.estate.links.flatMap((l) =>
      l.from === input.service ? [l.to] : l.to === input.service ? [l.from] : [],
    ),
  );
  const near = others.find((o) => linked.has(o.service));
  return near === undefined
    ? null
    : {
        decision: 'related',
        to: near.episode_id,
        why: `nothing is proven here; ${near.service}, linked to ${input.service} in the estate, has an open episode (${near.episode_id})`,
      };
}

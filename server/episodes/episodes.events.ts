// The events episodes append: an episode opened, joined, suppressed, closed, and the team's
// verdict on it.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Relation = Type.Union([Type.Literal('root'), Type.Literal('related')]);

const SignalOfEpisode = {
  episode_id: Type.String(),
  service: Type.String(),
  source: Type.String(),
  fingerprint: Type.String(),
  name: Type.String(),
};

const EpisodeOpened = Type.Object({
  ...SignalOfEpisode,
  autonomy: Type.String({ description: 'the autonomy level it opened under' }),
  incident_id: Type.Optional(Type.String()),
  relation: Type.Optional(Relation),
});

const EpisodeJoined = Type.Object({
  ...SignalOfEpisode,
  incident_id: Type.Optional(Type.String()),
  relation: Type.Optional(Relation),
});

const EpisodeSuppressed = Type.Object({
  episode_id: Type.String(),
  source: Type.String(),
  fingerprint: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('maintenance'), Type.Literal('inhibition')]),
  rule: Type.String(),
  until: Type.Optional(Type.String({ description: 'maintenance: the end of the window' })),
  reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  by: Type.Optional(
    Type.Object(
      { source: Type.String(), fingerprint: Type.String(), name: Type.String() },
      { description: 'inhibition: the signal that inhibits it' },
    ),
  ),
});

const EpisodeClosed = Type.Object({
  episode_id: Type.String(),
  decision: Type.String(),
  outcome: Type.String(),
  result: Type.String(),
  action: Type.String(),
  handover_s: Type.Union([Type.Number(), Type.Null()]),
  confidence: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  confirmed: Type.Optional(Type.Array(Type.Unknown())),
  fix: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  diagnosis: Type.Optional(Type.String()),
  note: Type.Optional(Type.String()),
});

const EpisodeTeam = Type.Object({
  episode_id: Type.String(),
  verdict: Type.String(),
  detail: Type.Optional(Type.String()),
  via: Type.Optional(Type.String()),
});

export const episodeEvents = {
  'episode.opened': EpisodeOpened,
  'episode.joined': EpisodeJoined,
  'episode.suppressed': EpisodeSuppressed,
  'episode.closed': EpisodeClosed,
  'episode.team': EpisodeTeam,
} as const;
export type EpisodeEvents = EventsOf<typeof episodeEvents>;

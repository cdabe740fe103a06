// An episode as GET /v1/episodes/<id> answers it, for the feature's component tests.
import type { Episode } from './api.js';

export const anEpisode = (over: Partial<Episode> = {}): Episode => ({
  episode_id: 'ep-20261129T100000Z-abc123',
  service: 'checkout',
  t_open: '2026-11-29T10:00:00Z',
  t_close: '2026-11-29T10:20:00Z',
  alerts: ['HighLatency'],
  confirmed: [],
  decision: 'act',
  outcome: 'restored',
  result: 'restored',
  action: 'restart',
  handover_s: null,
  autonomy: 'act',
  kind: 'failure',
  incident_id: null,
  relation: 'root',
  confidence: 'proven',
  suppressed: [],
  team: null,
  live: false,
  timeline: [],
  more: false,
  ...over,
});

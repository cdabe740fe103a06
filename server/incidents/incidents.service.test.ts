// incidents.link: the incidents domain appends incident.linked for the investigation, and
// the incident the episode leaves, left empty, resolves as merged.
import { describe, expect, it, onTestFinished } from 'vitest';
import { createEpisodesStore } from '../episodes/index.js';
import { EPISODE_INPUTS } from '../compose/index.js';
import { systemClock } from '../shared/clock.js';
import { ledgerRows } from '../testing/ledger-rows.js';
import {
  openEpisode,
  openInvestigationBench,
} from '../testing/investigate/fixtures/orchestrator-bench.js';
import { createIncidentsService, createIncidentsStore } from './index.js';

describe('incidents.link', () => {
  it('moves an episode into the incident of the episode it relates to, through the ledger', () => {
    const bench = openInvestigationBench('svc-incident-link-');
    onTestFinished(() => {
      bench.close();
    });
    const episodes = createEpisodesStore(bench.db, EPISODE_INPUTS);
    const store = createIncidentsStore(bench.db, episodes);
    const incidents = createIncidentsService({
      store,
      ledger: bench.ledger,
      clock: systemClock,
      episodesOf: episodes.ofIncident,
    });
    const db = openEpisode(bench, 'postgresql', 'in-db');
    const app = openEpisode(bench, 'app', 'in-app');
    bench.writer.transactNow(() => {
      for (const [id, incident] of [
        [db, 'in-db'],
        [app, 'in-app'],
      ] as const)
        bench.ledger.append({
          type: 'incident.opened',
          actor: 'system',
          data: { incident_id: incident, episode_id: id, service: 'x', group_key: null },
          trace_id: incident,
        });
    });

    bench.writer.transactNow(() => {
      incidents.link({
        episodeId: app,
        service: 'app',
        from: 'in-app',
        to: 'in-db',
        relation: 'downstream',
        toEpisode: db,
      });
    });

    expect(episodes.get(app)?.incident_id).toBe('in-db');
    expect(store.get('in-app')?.status).toBe('resolved');
    expect(store.get('in-db')?.episodes).toBe(2);
    const linked = ledgerRows(bench.db).filter((r) => r.type === 'incident.linked');
    expect(linked.map((r) => [r.actor, r.reason, r.trace_id])).toEqual([
      ['system', `downstream of ${db}, whose proven cause explains it`, 'in-db'],
    ]);
    expect(JSON.parse(linked[0]?.data ?? '{}')).toEqual({
      incident_id: 'in-db',
      episode_id: app,
      service: 'app',
      from_incident: 'in-app',
      relation: 'downstream',
      to_episode: db,
    });
  });
});

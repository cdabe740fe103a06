// The episodes projection takes a running episode's step from the investigation's events
// (investigation.step, decision.made); the investigations projection no longer writes it.
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  openEpisode,
  openInvestigationBench,
} from '../testing/investigate/fixtures/orchestrator-bench.js';
import { createEpisodesStore } from './index.js';
import { EPISODE_INPUTS } from '../compose/index.js';

describe('the episodes projection', () => {
  it("takes a running episode's step from the investigation's events, and leaves a closed one", () => {
    const bench = openInvestigationBench('svc-episode-step-');
    onTestFinished(() => {
      bench.close();
    });
    const episodes = createEpisodesStore(bench.db, EPISODE_INPUTS);
    const id = openEpisode(bench, 'nginx');
    const step = () => episodes.get(id)?.step;
    expect(step()).toBe('intake');

    bench.writer.transactNow(() => {
      bench.ledger.append({
        type: 'investigation.step',
        actor: 'system',
        data: { episode_id: id, step: 'checks' },
        trace_id: id,
      });
    });
    expect(step()).toBe('checks');

    bench.writer.transactNow(() => {
      bench.ledger.append({
        type: 'decision.made',
        actor: 'system',
        data: { episode_id: id, decision: 'abstain' },
        trace_id: id,
      });
    });
    expect(step()).toBe('decide');

    bench.writer.transactNow(() => {
      bench.ledger.append({
        type: 'episode.closed',
        actor: 'system',
        data: {
          episode_id: id,
          decision: 'abstain',
          outcome: '',
          result: '',
          action: '',
          handover_s: null,
        },
        trace_id: id,
      });
      bench.ledger.append({
        type: 'investigation.step',
        actor: 'system',
        data: { episode_id: id, step: 'checks' },
        trace_id: id,
      });
    });
    expect(step()).toBe('closed');
  });

  it('lists when episodes opened since a moment, oldest first, for the estate', () => {
    const bench = openInvestigationBench('svc-episode-openings-');
    onTestFinished(() => {
      bench.close();
    });
    const episodes = createEpisodesStore(bench.db, EPISODE_INPUTS);
    const first = openEpisode(bench, 'nginx');
    const second = openEpisode(bench, 'app');
    const opened = episodes.get(first)?.t_open ?? '';
    expect(episodes.openingsSince('2000-01-01T00:00:00.000Z')).toEqual([
      { service: 'nginx', t_open: opened },
      { service: 'app', t_open: episodes.get(second)?.t_open },
    ]);
    expect(episodes.openingsSince('2999-01-01T00:00:00.000Z')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { buildDigest, windowOf, type DigestEpisode, type DigestInput } from './digest.js';

const ep = (over: Partial<DigestEpisode> & { episode_id: string }): DigestEpisode => ({
  service: 'web',
  status: 'closed',
  t_open: '2026-11-27T10:00:00.000Z',
  t_close: '2026-11-27T10:30:00.000Z',
  decision: 'ask_human',
  result: 'handed_over',
  action: '',
  fix: null,
  handover_s: 60,
  restore_s: null,
  confidence: 'proven',
  verdict: null,
  ...over,
});

const input = (over: Partial<DigestInput> = {}): DigestInput => ({
  first: '2026-11-26',
  days: 2,
  now: '2026-11-29T09:00:00.000Z',
  episodes: [],
  incidents: [],
  approvalsWaiting: 0,
  labels: [],
  demoted: [],
  ledger: { ok: true, head_seq: 42, verified_at: '2026-11-29T09:00:00.000Z', failure: null },
  ...over,
});

describe('the digest window', () => {
  it('is whole UTC days ending with the day named', () => {
    expect(windowOf('2026-11-27', 2)).toEqual({
      first: '2026-11-26',
      from: '2026-11-26T00:00:00.000Z',
      to: '2026-11-28T00:00:00.000Z',
    });
  });
});

describe('the digest', () => {
  const d = buildDigest(
    input({
      episodes: [
        ep({ episode_id: 'e1', result: 'resolved', action: 'restart_unit', restore_s: 300 }),
        ep({ episode_id: 'e2', handover_s: 20, confidence: 'suspected', result: 'other' }),
        ep({ episode_id: 'e3', result: 'shadow', fix: 'terminate_idle', verdict: 'same' }),
        ep({ episode_id: 'e4', result: 'shadow', decision: 'shadow', verdict: 'other' }),
        // Opened the day before the window, closed in it: counts as ended only.
        ep({ episode_id: 'e5', t_open: '2026-11-25T23:00:00.000Z', handover_s: 600 }),
        // Still open: opened, not ended.
        ep({ episode_id: 'e6', status: 'open', t_close: null, handover_s: null }),
        // Closed after the window.
        ep({ episode_id: 'e7', t_close: '2026-11-28T00:00:00.000Z' }),
      ],
      incidents: [
        {
          incident_id: 'i1',
          t_open: '2026-11-26T08:00:00.000Z',
          t_resolved: '2026-11-27T08:00:00.000Z',
          services: ['web'],
        },
        {
          incident_id: 'i2',
          t_open: '2026-11-27T08:00:00.000Z',
          t_resolved: null,
          services: ['db', 'web'],
        },
        {
          incident_id: 'i3',
          t_open: '2026-11-20T08:00:00.000Z',
          t_resolved: '2026-11-26T01:00:00.000Z',
          services: ['db'],
        },
      ],
      approvalsWaiting: 2,
      labels: [
        { at: '2026-11-27T11:00:00.000Z', correct: true, cause: 'a' },
        { at: '2026-11-27T12:00:00.000Z', correct: false, cause: 'a' },
        { at: '2026-11-20T12:00:00.000Z', correct: false, cause: 'a' },
      ],
      demoted: ['nginx_down'],
    }),
  );

  it('counts incidents opened and ended by service and per day', () => {
    expect(d.incidents).toEqual({
      opened: 2,
      ended: 2,
      by_service: [
        { service: 'db', opened: 1, ended: 1 },
        { service: 'web', opened: 1, ended: 1 },
      ],
    });
    expect(d.per_day).toEqual([
      { day: '2026-11-26', opened: 1, ended: 1 },
      { day: '2026-11-27', opened: 1, ended: 1 },
    ]);
    expect(d.partial).toBe(false);
  });

  it('says what the service diagnosed and did, with times', () => {
    expect(d.episodes).toEqual({ opened: 6, ended: 5 });
    expect(d.service).toEqual({
      diagnosed: { proven: 4, linked: 0, other: 1 },
      results: { resolved: 1, other: 1, shadow: 2, handed_over: 1 },
      acted: 1,
    });
    expect(d.times.handover).toEqual({ n: 5, median_s: 60, p90_s: 600 });
    expect(d.times.restore).toEqual({ n: 1, median_s: 300, p90_s: 300 });
  });

  it('sets shadow mode’s would-have-done against what the team did', () => {
    expect(d.shadow).toMatchObject({
      episodes: 2,
      team_agreed: 1,
      team_did_other: 1,
      not_judged: 0,
    });
    expect(d.shadow.examples).toEqual([
      { episode_id: 'e3', service: 'web', would: 'terminate_idle', team: 'same' },
      { episode_id: 'e4', service: 'web', would: 'nothing', team: 'other' },
    ]);
  });

  it('writes it as Markdown a manager reads, and draws the days with words beside the colours', () => {
    expect(d.markdown).toContain('# Digest 2026-11-26 to 2026-11-27\n');
    expect(d.markdown).toContain('| web | 1 | 1 |');
    expect(d.markdown).toContain('2 approvals are waiting.');
    expect(d.markdown).toContain('2 diagnoses labelled: 1 right, 1 wrong.');
    expect(d.markdown).toContain(
      'Demoted now (held at suspected until their labels recover): nginx_down.',
    );
    expect(d.markdown).toContain('The ledger verifies through seq 42');
    expect(d.chart_svg).toMatch(/^<svg [^>]*role="img"/);
    expect(d.chart_svg).toContain('2026-11-26: 1 opened, 1 ended');
    expect(d.chart_svg).toContain('▨ ended');
  });

  it('says loudly when the ledger does not verify, and marks a day still running', () => {
    const bad = buildDigest(
      input({
        first: '2026-11-29',
        days: 1,
        ledger: { ok: false, head_seq: 9, verified_at: 'x', failure: 'seq 7: hash differs' },
      }),
    );
    expect(bad.partial).toBe(true);
    expect(bad.markdown).toContain('# Digest 2026-11-29 (so far)');
    expect(bad.markdown).toContain('THE LEDGER DOES NOT VERIFY: seq 7: hash differs');
  });
});

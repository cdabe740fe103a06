// The scorecard scores diagnoses the team judged: accuracy over every judged episode, and
// shadow agreement over shadow episodes (the would-be decision against the team's verdict),
// so operators can see whether raising autonomy is safe.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { seedEpisodes } from '../testing/episodes/episodes.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;

beforeAll(async () => {
  server = await buildTestServer({ clock });
});
afterAll(async () => {
  await server.cleanup();
});

interface Scorecard {
  accuracy: { share: number | null; judged: number };
  shadow_agreement: { share: number | null; judged: number };
}

async function scorecard(): Promise<Scorecard> {
  const res = await server.app.inject({
    method: 'GET',
    url: '/v1/episodes?scorecard=1&range=all',
    headers: asAdmin(),
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ scorecard: Scorecard }>().scorecard;
}

it('scores judged diagnoses and shadow agreement from the team verdicts', async () => {
  expect(await scorecard()).toMatchObject({
    accuracy: { share: null, judged: 0 },
    shadow_agreement: { share: null, judged: 0 },
  });
  const base = { t_open: '2026-11-21T10:00:00.000Z', t_close: '2026-11-21T10:10:00.000Z' };
  const ids = seedEpisodes({ ...server.runtime, clock }, [
    { ...base, service: 'a', decision: 'shadow', outcome: 'shadow', result: 'shadow' },
    { ...base, service: 'b', decision: 'shadow', outcome: 'shadow', result: 'shadow' },
    { ...base, service: 'c', decision: 'act', outcome: 'mitigated', result: 'resolved' },
    { ...base, service: 'd', decision: 'shadow', outcome: 'shadow', result: 'shadow' },
  ]).map(([id]) => id);
  clock.set('2026-11-22T12:00:00.000Z');
  const verdicts = [
    { verdict: 'same' },
    { verdict: 'other', detail: 'restarted the db' },
    { verdict: 'advice' },
    { verdict: 'none' },
  ];
  for (const [i, body] of verdicts.entries()) {
    const res = await server.app.inject({
      method: 'POST',
      url: `/v1/episodes/${ids[i] ?? ''}/team`,
      headers: asAdmin(),
      payload: body,
    });
    expect(res.statusCode).toBe(200);
  }
  // judged: same, other, advice (none is not a judgement); shadow: same, other.
  expect(await scorecard()).toMatchObject({
    accuracy: { share: 0.667, judged: 3 },
    shadow_agreement: { share: 0.5, judged: 2 },
  });
});

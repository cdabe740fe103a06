// minutes_saved counts only work the service did: the triage of what it ended itself or
// handed over with a proven cause, and the fix of what it verified in what it ended. Shadow
// mode did nothing, so its would-be figure is given apart and never added; an episode a
// person took over counts nothing, even when an action in it was verified.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { seedEpisodes, type SeedEpisode } from '../testing/episodes/episodes.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;

interface Scorecard {
  minutes_saved: number | null;
  minutes_saved_how: {
    ended_by_service: number;
    handed_over_proven: number;
    actions_verified: number;
    shadow_proven: number;
    shadow_would_save: number | null;
    text: string;
  };
}

const base = { t_open: '2026-11-21T10:00:00.000Z', t_close: '2026-11-21T10:10:00.000Z' };
const shadow = (service: string, proven: boolean): SeedEpisode => ({
  ...base,
  service,
  decision: 'shadow',
  outcome: 'shadow',
  result: 'shadow',
  ...(proven && { confidence: 'proven', kind: 'failure', confirmed: ['disk_full'] }),
});

beforeAll(async () => {
  server = await buildTestServer({ clock });
  seedEpisodes({ ...server.runtime, clock }, [
    shadow('s1', true),
    shadow('s2', true),
    shadow('s3', true),
    shadow('s4', false),
    shadow('s5', false),
    // Ended by the service, its action verified: triage and fix.
    { ...base, service: 'a', decision: 'act', outcome: 'mitigated', result: 'resolved', action: 'verified', confidence: 'proven', kind: 'failure', confirmed: ['disk_full'], restore_s: 300 }, // prettier-ignore
    // Ended by the service with no action (it settled): triage.
    { ...base, service: 'b', decision: 'settled', outcome: 'cleared', result: 'restored', restore_s: 100 }, // prettier-ignore
    // Handed over with the cause proven: triage.
    { ...base, service: 'c', decision: 'ask_human', outcome: 'escalated', result: 'handed_over', handover_s: 40, confidence: 'proven', kind: 'failure', confirmed: ['bad_deploy'] }, // prettier-ignore
    // Handed over on a suspicion: nothing.
    { ...base, service: 'd', decision: 'ask_human', outcome: 'escalated', result: 'handed_over', handover_s: 60, confidence: 'suspected' }, // prettier-ignore
    // It went away on its own: nothing.
    { ...base, service: 'e', decision: 'cleared', outcome: 'cleared', result: 'cleared', confidence: 'cleared' }, // prettier-ignore
    // A person took over, though an action was verified: nothing.
    { ...base, service: 'f', decision: 'act', outcome: 'mitigated', result: 'resolved', action: 'verified', handover_s: 30, restore_s: 600 }, // prettier-ignore
  ]);
  clock.set('2026-11-22T12:00:00.000Z');
});
afterAll(async () => {
  await server.cleanup();
});

async function scorecard(): Promise<Scorecard> {
  const res = await server.app.inject({
    method: 'GET',
    url: '/v1/episodes?scorecard=1&range=all',
    headers: asAdmin(),
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ scorecard: Scorecard }>().scorecard;
}

async function setFigures(triage: number, fix: number, manual: number): Promise<void> {
  const res = await server.app.inject({
    method: 'PUT',
    url: '/v1/impact',
    headers: asAdmin(),
    payload: {
      currency: 'EUR',
      engineer_hour: 0,
      triage_min: triage,
      fix_min: fix,
      manual_resolve_min: manual,
      downtime_hour: 0,
      callout: 0,
      annual_cost: 0,
    },
  });
  expect(res.statusCode).toBe(200);
}

it('is null until impact figures are set, and says what to set', async () => {
  const card = await scorecard();
  expect(card.minutes_saved).toBeNull();
  expect(card.minutes_saved_how).toMatchObject({
    ended_by_service: 2,
    handed_over_proven: 1,
    actions_verified: 1,
    shadow_proven: 3,
    shadow_would_save: null,
  });
  expect(card.minutes_saved_how.text).toContain('Set the impact figures');
});

it('counts only what the service did, and keeps shadow mode apart', async () => {
  await setFigures(10, 20, 0);
  const card = await scorecard();
  // (2 ended + 1 handed over proven) × 10 + 1 verified fix × 20. The former formula counted
  // every episode nobody took over (the five shadow ones among them) and every verified
  // action: 120.
  expect(card.minutes_saved).toBe(50);
  expect(card.minutes_saved_how.shadow_would_save).toBe(90);
  expect(card.minutes_saved_how.text).toBe(
    '10 min triage × (2 ended by the service + 1 handed over with a proven cause) + 20 min fix × 1 action verified in the episodes it ended. Shadow mode is not counted: it would have saved 90 min (3 proven causes × 30 min).',
  );
  // The manual resolution time, when set, stands for the fix.
  await setFigures(10, 20, 45);
  const manual = await scorecard();
  expect(manual.minutes_saved).toBe(75);
  expect(manual.minutes_saved_how.text).toContain('45 min manual resolution × 1 action verified');
});

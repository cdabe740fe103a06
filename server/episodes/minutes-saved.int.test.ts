// minutes_saved counts only episodes the service's own action restored or resolved (an acting
// decision, its action verified, nobody taking over): triage and fix for each. An episode whose
// alerts went away with nothing done counts nothing, nor one a person worked (even with the
// cause proven, even when an action in it was verified); shadow mode did nothing, so its
// would-be figure is given apart and never added.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { seedEpisodes, type SeedEpisode } from '../testing/episodes/episodes.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import type { Scorecard as WireScorecard } from './episodes.wire.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;

type Scorecard = Pick<WireScorecard, 'minutes_saved' | 'minutes_saved_how'>;

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
    // Restored by the service's own action, verified: triage and fix.
    { ...base, service: 'a', decision: 'act', outcome: 'mitigated', result: 'resolved', action: 'verified', confidence: 'proven', kind: 'failure', confirmed: ['disk_full'], restore_s: 300 }, // prettier-ignore
    // Ended with no action of the service (it settled): nothing.
    { ...base, service: 'b', decision: 'settled', outcome: 'cleared', result: 'restored', restore_s: 100 }, // prettier-ignore
    // Handed over with the cause proven: a person did the work, nothing.
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

it("counts only episodes the service's own action restored, and keeps shadow mode apart", async () => {
  await setFigures(10, 20, 0);
  const card = await scorecard();
  // 1 episode its own verified action restored × (10 + 20). The former formula also counted
  // the triage of the one that settled by itself and of the one handed over: 50; the one
  // before it every episode nobody took over (the five shadow ones among them): 120.
  expect(card.minutes_saved).toBe(30);
  expect(card.minutes_saved_how.shadow_would_save).toBe(90);
  expect(card.minutes_saved_how.text).toBe(
    "(10 min triage + 20 min fix) × 1 episode the service's own verified action restored or resolved = 30 min. Not counted: 1 episode that ended with no action of the service, 1 episode handed over with a proven cause (a person did the work), and shadow mode, which would have saved 90 min (3 proven causes × 30 min).",
  );
  // The manual resolution time, when set, stands for the fix.
  await setFigures(10, 20, 45);
  const manual = await scorecard();
  expect(manual.minutes_saved).toBe(55);
  expect(manual.minutes_saved_how.text).toContain('(10 min triage + 45 min manual resolution) × 1');
});

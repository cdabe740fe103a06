// GET/PUT /v1/impact: the caller's own figures, replaced whole, every change a ledger event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';

const FIGURES = {
  currency: 'GBP',
  engineer_hour: 80,
  triage_min: 15,
  fix_min: 25,
  manual_resolve_min: 40,
  downtime_hour: 12000,
  callout: 120,
  annual_cost: 0,
};

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

const put = (payload: unknown) =>
  server.app.inject({
    method: 'PUT',
    url: '/v1/impact',
    headers: asAdmin(),
    payload: payload as Record<string, unknown>,
  });
const status = async () =>
  (await server.app.inject({ method: 'GET', url: '/v1/status' })).json<{ impact_set: boolean }>();

describe('impact figures', () => {
  it('are not set on a new install: every figure 0', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/v1/impact', headers: asAdmin() });
    expect(res.json()).toEqual({
      figures: {
        currency: 'EUR',
        engineer_hour: 0,
        triage_min: 0,
        fix_min: 0,
        manual_resolve_min: 0,
        downtime_hour: 0,
        callout: 0,
        annual_cost: 0,
      },
      set: false,
      set_by: null,
      set_at: null,
    });
    expect((await status()).impact_set).toBe(false);
  });

  it('are replaced whole by PUT, recorded in the ledger, and shown in the status', async () => {
    const before = server.runtime.ledgerStore.head().seq;
    const res = await put(FIGURES);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ figures: FIGURES, set: true, set_by: 'admin-token' });
    const [event] = server.runtime.ledgerStore.range(before, before + 1, 1);
    expect(event).toMatchObject({ type: 'config.impact_set', actor: 'admin-token' });
    expect(JSON.parse(event?.data ?? '{}')).toEqual({ figures: FIGURES });
    expect((await status()).impact_set).toBe(true);
  });

  it.each([
    ['a missing figure', { ...FIGURES, callout: undefined }, 'callout'],
    ['a negative figure', { ...FIGURES, fix_min: -1 }, 'fix_min'],
    ['a figure that is text', { ...FIGURES, triage_min: 'ten' }, 'triage_min'],
    ['an unknown field', { ...FIGURES, bonus: 1 }, 'bonus'],
    ['a currency that is not ISO 4217', { ...FIGURES, currency: 'euro' }, 'currency'],
  ])('refuse %s with a 400 naming the field, and change nothing', async (_name, payload, field) => {
    const before = server.runtime.ledgerStore.head().seq;
    const res = await put(JSON.parse(JSON.stringify(payload)));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field });
    expect(server.runtime.ledgerStore.head().seq).toBe(before);
  });

  it('need the admin role; the event type cannot be posted from outside', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/v1/impact', headers: asIngest() });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ role: 'admin' });
    const forged = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: asIngest(),
      payload: { type: 'config.impact_set', actor: 'ci:x', data: { figures: { annual_cost: 1 } } },
    });
    expect(forged.statusCode).toBe(400);
  });
});

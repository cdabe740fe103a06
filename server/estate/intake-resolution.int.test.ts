// Alerts resolve to services through the estate: an alias in the overrides names the
// service whatever label carries it; an alert the estate does not know keeps the label order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

async function serviceOf(labels: Record<string, string>): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/v1/alerts/alertmanager',
    headers: asIngest(),
    payload: {
      version: '4',
      status: 'firing',
      alerts: [
        {
          status: 'firing',
          fingerprint: `fp-${JSON.stringify(labels)}`,
          labels: { alertname: 'Latency', ...labels },
          startsAt: '2026-11-22T10:00:00Z',
        },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ signals: { service: string }[] }>().signals[0]?.service ?? '';
}

describe('service resolution through the estate', () => {
  it('uses the labels while the estate knows nothing', async () => {
    expect(await serviceOf({ job: 'pay-api-7f9' })).toBe('pay-api-7f9');
  });

  it('uses an alias of the overrides once it is set, for any label that carries it', async () => {
    const put = await server.app.inject({
      method: 'PUT',
      url: '/v1/estate/overrides',
      headers: asAdmin(),
      payload: { services: { payments: { aliases: ['pay-api-7f9'] } } },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(await serviceOf({ job: 'pay-api-7f9', instance: 'a' })).toBe('payments');
    expect(await serviceOf({ namespace: 'pay-api-7f9', instance: 'b' })).toBe('payments');
    expect(await serviceOf({ job: 'search' })).toBe('search');
  });
});

// Every JSON body the API accepts is read one way only: duplicate keys and numbers that
// overflow are a 400 naming the place, over a real server and a real ledger, and change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

const head = (): number => server.runtime.ledgerStore.head().seq;

const alert = (i: number) =>
  `{"status":"firing","labels":{"alertname":"HighLatency","service":"api-${String(i)}","severity":"warning"},"startsAt":"2026-11-22T09:00:00Z","fingerprint":"fp-json-${String(i)}"}`;

function post(url: string, text: string, headers: Record<string, string>) {
  return server.app.inject({
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: text,
  });
}

describe('strict JSON bodies', () => {
  it('an alert with a duplicate label is a 400 naming the alert and the labels', async () => {
    const before = head();
    const alerts = [0, 1, 2, 3].map(alert);
    alerts[3] = (alerts[3] ?? '').replace('"service":"api-3"', '"service":"api-3","service":"db"');
    const res = await post(
      '/v1/alerts/alertmanager',
      `{"version":"4","status":"firing","alerts":[${alerts.join(',')}]}`,
      asIngest(),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_json',
      field: 'body.alerts[3].labels',
      message: 'body.alerts[3].labels: duplicate key "service"',
    });
    expect(head()).toBe(before);
  });

  it('a number that overflows is a 400 naming its place, on intake and on other routes', async () => {
    const before = head();
    const res = await post(
      '/v1/alerts/alertmanager',
      `{"version":"4","status":"firing","extra":1e400,"alerts":[${alert(9)}]}`,
      asIngest(),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_json', field: 'body.extra' });

    const events = await post(
      '/v1/events',
      '{"type":"system.backup_taken","actor":"ci:deploy","data":{"n":1e400}}',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect(events.statusCode, events.body).toBe(400);
    expect(events.json()).toMatchObject({
      error: 'invalid_json',
      field: 'body.data.n',
      message: 'body.data.n: number 1e400 is out of range',
    });
    expect(head()).toBe(before);
  });

  it('a duplicate key in any JSON body is a 400 and writes nothing', async () => {
    const before = head();
    const res = await post(
      '/v1/events',
      '{"type":"system.backup_taken","actor":"ci:deploy","actor":"someone-else"}',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_json',
      field: 'body',
      message: 'body: duplicate key "actor"',
    });
    expect(head()).toBe(before);

    const ok = await post('/v1/events', '{"type":"system.backup_taken","actor":"ci:deploy"}', {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
    expect(ok.statusCode, ok.body).toBe(201);
  });
});

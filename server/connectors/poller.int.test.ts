// Polling a real Alertmanager (Debian's): an alert posted to it becomes a signal and an
// episode on the next poll, a repeat writes nothing, and when it ends the next poll resolves
// it. A source that stops answering resolves nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlertmanager, type Proc } from '../../e2e/lab/processes.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

let am: Proc;
let server: TestServer;
beforeAll(async () => {
  // Its webhook goes nowhere: here the service asks, it is not told.
  am = await startAlertmanager('http://127.0.0.1:1/hook', 'unused-token');
  server = await buildTestServer();
  const res = await server.app.inject({
    method: 'PUT',
    url: '/v1/connectors/lab-am',
    headers: asAdmin(),
    payload: { kind: 'alertmanager', settings: { url: am.url } },
  });
  expect(res.statusCode, res.body).toBe(200);
}, 60_000);
afterAll(async () => {
  // Both, even when one of them never started: nothing is left running.
  await Promise.allSettled([server?.cleanup(), am?.stop()]);
});

async function postToAlertmanager(endsAt: string): Promise<void> {
  const res = await fetch(`${am.url}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      {
        labels: { alertname: 'PolledDiskFull', service: 'files', severity: 'critical' },
        annotations: { summary: 'disk above 95%' },
        startsAt: new Date(Date.now() - 60_000).toISOString(),
        endsAt,
      },
    ]),
  });
  expect(res.status).toBe(200);
}

const signals = () =>
  server.runtime.reader
    .list({ type: 'signal.', order: 'asc', limit: 100 })
    .events.filter((e) => e.data['name'] === 'PolledDiskFull');

describe('polling Alertmanager', () => {
  it('turns a firing alert into a signal and an episode, once', async () => {
    await postToAlertmanager(new Date(Date.now() + 3_600_000).toISOString());
    await server.poller.pollNow();
    const fired = signals();
    expect(fired.map((e) => e.type)).toEqual(['signal.fired']);
    expect(fired[0]?.data).toMatchObject({ service: 'files', severity: 'critical' });
    const live = (
      await server.app.inject({ method: 'GET', url: '/v1/live', headers: asAdmin() })
    ).json<{ running: { service: string; alerts: string[] }[] }>();
    expect(live.running).toEqual([
      expect.objectContaining({ service: 'files', alerts: ['PolledDiskFull'] }),
    ]);
    await server.poller.pollNow();
    expect(signals()).toHaveLength(1);
  });

  it('resolves it on the poll after it ended', async () => {
    await postToAlertmanager(new Date(Date.now() - 1000).toISOString());
    await server.poller.pollNow();
    expect(signals().map((e) => e.type)).toEqual(['signal.fired', 'signal.resolved']);
  });

  it('resolves nothing while the source does not answer', async () => {
    await postToAlertmanager(new Date(Date.now() + 3_600_000).toISOString());
    await server.poller.pollNow();
    expect(signals().map((e) => e.type)).toEqual([
      'signal.fired',
      'signal.resolved',
      'signal.fired',
    ]);
    await am.stop();
    await server.poller.pollNow();
    expect(signals()).toHaveLength(3);
  });
});

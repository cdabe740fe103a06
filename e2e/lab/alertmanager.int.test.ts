// End to end with real software: Debian's Prometheus evaluates a rule over a metric this
// test serves, Alertmanager sends its webhook to the bundled service, the signal fires;
// when the metric falls back, the resolved notification ends it.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  startAlertmanager,
  startPrometheus,
  startService,
  until,
  type Proc,
} from './processes.js';

const INGEST = 'lab-ingest-token-0123456789abcdef';
const RULES = `groups:
  - name: lab
    rules:
      - alert: LabDiskAlmostFull
        expr: lab_disk_used_ratio > 0.9
        for: 0s
        labels: { severity: critical, service: lab-db }
        annotations: { summary: 'disk above 90%' }
`;

interface LedgerEvent {
  seq: number;
  type: string;
  actor: string;
  trace_id: string | null;
  data: Record<string, unknown>;
}

let ratio = 0.95;
let exporter: Server;
let svc: Proc & { adminToken: string };
let am: Proc;
let prom: Proc;

beforeAll(async () => {
  const exporterPort = await freePort();
  exporter = createServer((_req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(
      `# TYPE lab_disk_used_ratio gauge\nlab_disk_used_ratio{mount="/var/lib/postgresql"} ${String(ratio)}\n`,
    );
  });
  await new Promise<void>((r) => exporter.listen(exporterPort, '127.0.0.1', r));
  svc = await startService({ SVC_INGEST_TOKEN: INGEST });
  am = await startAlertmanager(`${svc.url}/v1/alerts/alertmanager`, INGEST);
  prom = await startPrometheus(
    `127.0.0.1:${String(exporterPort)}`,
    am.url.replace('http://', ''),
    RULES,
  );
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([prom?.stop(), am?.stop()]);
  await svc?.stop();
  await new Promise((r) => exporter?.close(r));
});

async function signals(): Promise<LedgerEvent[]> {
  const res = await fetch(`${svc.url}/v1/ledger?type=signal.&order=asc`, {
    headers: { authorization: `Bearer ${svc.adminToken}` },
  });
  return ((await res.json()) as { events: LedgerEvent[] }).events;
}

describe('the lab: Prometheus → Alertmanager → the service', () => {
  it('fires, then resolves when the rule stops firing', async () => {
    const fired = await until(
      'signal.fired',
      async () => (await signals()).find((e) => e.type === 'signal.fired'),
      45_000,
    );
    expect(fired.actor).toBe('source:alertmanager');
    expect(fired.data).toMatchObject({
      source: 'alertmanager',
      name: 'LabDiskAlmostFull',
      status: 'firing',
      severity: 'critical',
      service: 'lab-db',
      summary: 'disk above 90%',
    });

    const live = async () =>
      (await (
        await fetch(`${svc.url}/v1/live`, {
          headers: { authorization: `Bearer ${svc.adminToken}` },
        })
      ).json()) as {
        running: { episode_id: string; service: string; alerts: string[]; status: string }[];
      };
    const get = async <T>(path: string): Promise<T> =>
      (await (
        await fetch(`${svc.url}${path}`, {
          headers: { authorization: `Bearer ${svc.adminToken}` },
        })
      ).json()) as T;
    type List = { running: { episode_id: string; status: string }[]; seq: number };
    const running = (await live()).running;
    const listed = await get<List>('/v1/episodes?scorecard=1');
    expect(listed.running).toEqual([
      expect.objectContaining({ episode_id: fired.trace_id, status: 'open' }),
    ]);
    expect(running).toEqual([
      expect.objectContaining({
        episode_id: fired.trace_id,
        service: 'lab-db',
        alerts: ['LabDiskAlmostFull'],
        status: 'open',
      }),
    ]);

    ratio = 0.5;
    const resolved = await until(
      'signal.resolved',
      async () => (await signals()).find((e) => e.type === 'signal.resolved'),
      60_000,
    );
    expect(resolved.trace_id).toBe(fired.trace_id);
    expect(resolved.data).toMatchObject({ name: 'LabDiskAlmostFull', status: 'resolved' });
    expect(typeof resolved.data['ended_at']).toBe('string');
    // Quiet now: it closes as settled unless the alert fires again within the hold.
    expect((await live()).running).toEqual([
      expect.objectContaining({ episode_id: fired.trace_id, status: 'quiet' }),
    ]);
    const after = await get<List>('/v1/episodes');
    expect(after.running).toEqual([
      expect.objectContaining({ episode_id: fired.trace_id, status: 'quiet' }),
    ]);
    expect(after.seq).toBeGreaterThan(listed.seq);
    // Its incident waits in monitoring for the flap hold (closing after it is tested with a
    // fake clock in server/incidents).
    const incidents = await get<{ incidents: { status: string }[] }>('/v1/incidents');
    expect(incidents.incidents).toEqual([expect.objectContaining({ status: 'monitoring' })]);

    const verify = await fetch(`${svc.url}/v1/ledger/verify`, {
      headers: { authorization: `Bearer ${svc.adminToken}` },
    });
    expect(((await verify.json()) as { ok: boolean }).ok).toBe(true);
  }, 120_000);
});

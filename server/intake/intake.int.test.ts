// POST /v1/alerts/<source> over HTTP into a real SQLite ledger: signals, dedup, resolve,
// auto detection of every fixture, and hostile bodies that change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';
import { ALERT_BODY_LIMIT } from './intake.schemas.js';
import { NORMALISERS } from './normalisers/index.js';
import {
  projectFixtures,
  sharedFixtures,
  sharedSources,
} from '../testing/intake/normaliser-fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

const head = (): number => server.runtime.ledgerStore.head().seq;

function post(source: string, payload: unknown, headers: Record<string, string> = {}) {
  return server.app.inject({
    method: 'POST',
    url: `/v1/alerts/${source}`,
    headers: { ...asIngest(), 'content-type': 'application/json', ...headers },
    payload:
      typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
  });
}

interface Result {
  source: string;
  accepted: number;
  resolved: number;
  duplicates: number;
  ignored?: string;
  signals: {
    name: string;
    status: string;
    service: string;
    fingerprint: string;
    outcome: string;
    seq: number | null;
    episode_id: string | null;
  }[];
}

function group(
  status: 'firing' | 'resolved',
  fingerprint: string,
  labels: Record<string, string> = {},
) {
  return {
    version: '4',
    groupKey: '{}:{alertname="HighLatency"}',
    status,
    receiver: 'svc',
    alerts: [
      {
        status,
        labels: {
          alertname: 'HighLatency',
          instance: 'api-1:8080',
          severity: 'warning',
          ...labels,
        },
        annotations: { summary: 'p99 above 2 s' },
        startsAt: '2026-11-22T09:00:00Z',
        endsAt: status === 'resolved' ? '2026-11-22T09:20:00Z' : '0001-01-01T00:00:00Z',
        fingerprint,
      },
    ],
  };
}

describe('POST /v1/alerts/<source>', () => {
  it('records a firing alert once, repeats as duplicates, and its resolve ends it', async () => {
    const before = head();
    const first = await post('alertmanager', group('firing', 'fp-latency-1', { job: 'checkout' }));
    expect(first.statusCode, first.body).toBe(202);
    const body = first.json<Result>();
    expect(body).toMatchObject({ source: 'alertmanager', accepted: 1, resolved: 0, duplicates: 0 });
    expect(body.signals[0]).toMatchObject({
      name: 'HighLatency',
      status: 'firing',
      service: 'checkout',
      outcome: 'fired',
    });
    const episode = body.signals[0]?.episode_id ?? '';
    expect(episode).toMatch(/^ep-/);
    expect(head()).toBe(before + 3); // signal.fired, episode.opened and incident.opened

    const again = (
      await post('prometheus', group('firing', 'fp-latency-1', { job: 'checkout' }))
    ).json<Result>();
    expect(again).toMatchObject({ accepted: 1, duplicates: 1 });
    expect(head()).toBe(before + 3);

    const resolved = (
      await post('alertmanager', group('resolved', 'fp-latency-1', { job: 'checkout' }))
    ).json<Result>();
    expect(resolved).toMatchObject({ accepted: 1, resolved: 1, duplicates: 0 });
    expect(resolved.signals[0]?.outcome).toBe('resolved');
    expect(server.runtime.intakeStore.get('alertmanager', 'fp-latency-1')).toMatchObject({
      status: 'resolved',
      fired: 1,
      ended_at: '2026-11-22T09:20:00.000Z',
    });

    const flap = (
      await post('alertmanager', group('firing', 'fp-latency-1', { job: 'checkout' }))
    ).json<Result>();
    expect(flap.signals[0]?.outcome).toBe('fired');
    expect(server.runtime.intakeStore.get('alertmanager', 'fp-latency-1')).toMatchObject({
      status: 'firing',
      fired: 2,
    });

    const metrics = await server.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: asIngest(),
    });
    expect(metrics.statusCode).toBe(403); // the ingest token does not read metrics
    const text = (
      await server.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).body;
    expect(text).toMatch(/svc_intake_signals_total\{source="alertmanager",outcome="fired"\} 2/);
    expect(text).toMatch(/svc_intake_signals_total\{source="alertmanager",outcome="duplicate"\} 1/);

    const events = server.runtime.ledgerStore
      .range(before, head(), 20)
      .map((e) => [e.type, e.trace_id, e.actor]);
    const incident = server.runtime.episodesStore.get(episode)?.incident_id ?? '';
    expect(incident).toMatch(/^in-/);
    // The signal's events carry its episode's id; the resolve left the episode quiet (and
    // its incident monitoring), so the alert firing again rejoined it.
    expect(events).toEqual([
      ['signal.fired', episode, 'source:alertmanager'],
      ['episode.opened', episode, 'system'],
      ['incident.opened', incident, 'system'],
      ['signal.resolved', episode, 'source:alertmanager'],
      ['incident.status', incident, 'system'],
      ['signal.fired', episode, 'source:alertmanager'],
      ['episode.joined', episode, 'system'],
      ['incident.status', incident, 'system'],
    ]);
  });

  it('takes the service from the labels in the documented order', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ service: 's', job: 'j', app: 'a', namespace: 'n', host: 'h' }, 's'],
      [{ job: 'j', app: 'a', namespace: 'n', host: 'h' }, 'j'],
      [{ app: 'a', namespace: 'n', host: 'h' }, 'a'],
      [{ namespace: 'n', host: 'h' }, 'n'],
      [{ host: 'h' }, 'h'],
    ];
    for (const [i, [labels, service]] of cases.entries()) {
      const res = (
        await post('alertmanager', group('firing', `fp-svc-${String(i)}`, labels))
      ).json<Result>();
      expect(res.signals[0]?.service, JSON.stringify(labels)).toBe(service);
    }
  });

  it('keeps an alert whose service is not a safe name, with the service normalised and a note', async () => {
    const before = head();
    const hostile = 'checkout"} or vector(1) or up{a="';
    const res = await post('alertmanager', group('firing', 'fp-hostile-1', { service: hostile }));
    expect(res.statusCode, res.body).toBe(202);
    const signal = res.json<Result>().signals[0] as Result['signals'][number] & { note?: string };
    expect(signal.service).toBe('checkout-or-vector-1-or-up-a');
    expect(signal.note).toBe(
      `service ${JSON.stringify(hostile)} holds characters outside letters, digits and . _ : / -; recorded as "checkout-or-vector-1-or-up-a"`,
    );
    const fired = server.runtime.ledgerStore
      .range(before, head(), 20)
      .find((e) => e.type === 'signal.fired');
    const data = JSON.parse(fired?.data ?? '{}') as Record<string, unknown>;
    expect(data).toMatchObject({
      service: 'checkout-or-vector-1-or-up-a',
      note: signal.note,
      labels: { service: hostile },
    });
    // Nothing safe is left: the service is unknown.
    const none = await post('alertmanager', group('firing', 'fp-hostile-2', { service: '"{}"' }));
    expect(none.json<Result>().signals[0]?.service).toBe('unknown');
  });

  it('auto recognises every project fixture as its own source', async () => {
    for (const n of NORMALISERS) {
      // Keep-derived Wazuh messages are read on the explicit route only (NORMALISATION.md §4).
      for (const f of projectFixtures(n.source).filter((x) => !x.file.startsWith('keep-'))) {
        const res = await post('auto', f.body);
        expect(res.statusCode, `${n.source}/${f.file}: ${res.body}`).toBe(202);
        expect(res.json<Result>().source, `${n.source}/${f.file}`).toBe(n.source);
      }
    }
  });

  describe.runIf(sharedSources().length > 0)('the shared fixtures', () => {
    it('each is read on its own route, and auto agrees (but the Keep-derived wazuh message)', async () => {
      for (const source of sharedSources()) {
        for (const f of sharedFixtures(source)) {
          const own = await post(source, f.body);
          expect(own.statusCode, `${source}/${f.file}: ${own.body}`).toBe(202);
          if (source === 'wazuh' && f.file.startsWith('keep-')) continue;
          const auto = await post('auto', f.body);
          expect(auto.statusCode, `auto ${source}/${f.file}: ${auto.body}`).toBe(202);
          expect(auto.json<Result>().source, `auto ${source}/${f.file}`).toBe(source);
        }
      }
    });
  });

  describe('bad and hostile bodies change nothing', () => {
    const cases: [string, string, unknown, number, string][] = [
      ['unknown source', 'nagios-xyz', { a: 1 }, 400, 'unknown_source'],
      ['a body no normaliser recognises', 'auto', { hello: 'world' }, 400, 'no_normaliser'],
      [
        'wrong types for the named source',
        'alertmanager',
        { alerts: 'not a list' },
        400,
        'no_normaliser',
      ],
      ['a JSON string', 'auto', '"just text"', 400, 'no_normaliser'],
      ['null', 'auto', 'null', 400, 'no_normaliser'],
      ['malformed JSON', 'auto', '{"alerts": [', 400, 'invalid_json'],
      ['prototype poisoning', 'auto', '{"__proto__": {"x": 1}, "alerts": []}', 400, 'invalid_json'],
      ['an empty body', 'auto', ' ', 400, 'invalid_input'],
    ];
    it.each(cases)('%s → %i %s', async (_name, source, payload, status, error) => {
      const before = head();
      const res = await post(source, typeof payload === 'string' ? payload : payload);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json<{ error: string }>().error).toBe(error);
      expect(head()).toBe(before);
    });

    it('invalid UTF-8 is a 400, not a silently replaced character', async () => {
      const before = head();
      const bytes = Buffer.concat([
        Buffer.from('{"alerts":[{"labels":{"alertname":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}}]}'),
      ]);
      const res = await post('alertmanager', bytes);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ error: string; field: string }>()).toMatchObject({
        error: 'invalid_utf8',
        field: 'body',
      });
      expect(head()).toBe(before);
    });

    it('a 10 MB body is refused with 413', async () => {
      const before = head();
      const res = await post('auto', JSON.stringify({ blob: 'x'.repeat(10 * 1024 * 1024) }));
      expect(res.statusCode).toBe(413);
      expect(head()).toBe(before);
    });

    it('deep nesting is read without a crash and refused', async () => {
      const before = head();
      const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
      const res = await post('auto', deep);
      expect([400, 413]).toContain(res.statusCode);
      const nested = `{"alerts":[{"labels":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}]}`;
      const res2 = await post('alertmanager', nested);
      expect(res2.statusCode, res2.body).toBeLessThan(500);
      expect(head()).toBeGreaterThanOrEqual(before);
    });

    it('needs the ingest token', async () => {
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/alerts/auto',
        payload: { a: 1 },
      });
      expect(res.statusCode).toBe(401);
    });
  });
});

// On its own server (investigation off): 20,000 alerts must not slow the tests above.
describe('a large alert group', () => {
  it('takes a valid Alertmanager group of 20,000 alerts (3.6 MiB) whole, in one commit, or none of it with 503', async () => {
    const own = await buildTestServer({ env: { SVC_ORCHESTRATE: '0' } });
    const ownHead = (): number => own.runtime.ledgerStore.head().seq;
    try {
      const before = ownHead();
      // 20 services (Alertmanager groups by alertname: one group, many instances and jobs).
      const alerts = Array.from({ length: 20_000 }, (_, i) => ({
        status: 'firing',
        labels: {
          alertname: 'DiskFull',
          instance: `n${String(i)}:9100`,
          job: `node-${String(i % 20)}`,
        },
        startsAt: '2026-11-22T09:00:00Z',
        endsAt: '0001-01-01T00:00:00Z',
        fingerprint: `fp-big-${String(i)}`,
      }));
      const text = JSON.stringify({
        version: '4',
        groupKey: '{}:{alertname="DiskFull"}',
        status: 'firing',
        receiver: 'svc',
        alerts,
      });
      expect(Buffer.byteLength(text)).toBeGreaterThan(3.5 * 1024 * 1024);
      expect(Buffer.byteLength(text)).toBeLessThan(ALERT_BODY_LIMIT);
      const send = () =>
        own.app.inject({
          method: 'POST',
          url: '/v1/alerts/alertmanager',
          headers: { ...asIngest(), 'content-type': 'application/json' },
          payload: text,
        });

      // No room for the group (SQLite full at its current size): 503, and none of it is kept.
      const pages = own.runtime.db.pragma('page_count', { simple: true }) as number;
      own.runtime.db.pragma(`max_page_count = ${String(pages + 8)}`);
      const full = await send();
      expect(full.statusCode, full.body.slice(0, 300)).toBe(503);
      expect(full.json()).toMatchObject({ error: 'storage_unavailable' });
      expect(ownHead()).toBe(before);
      expect(own.runtime.intakeStore.get('alertmanager', 'fp-big-0')).toBeNull();
      own.runtime.db.pragma('max_page_count = 1073741823');

      const res = await send();
      expect(res.statusCode, res.body.slice(0, 300)).toBe(202);
      const body = res.json<Result>();
      expect(body).toMatchObject({ accepted: 20_000, duplicates: 0 });
      expect(new Set(body.signals.map((s) => s.fingerprint)).size).toBe(20_000);
      // Every alert became its signal.fired event, in one writer job (one commit).
      const fired = own.runtime.ledgerStore
        .range(before, ownHead(), 100_000)
        .filter((e) => e.type === 'signal.fired').length;
      expect(fired).toBe(20_000);
      expect(own.runtime.intakeStore.get('alertmanager', 'fp-big-19999')).toMatchObject({
        status: 'firing',
      });
    } finally {
      await own.cleanup();
    }
  }, 120_000);
});

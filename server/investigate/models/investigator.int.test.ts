// The model investigator in the real server: real HTTP, real SQLite, a real http connector
// probing a real web server, and System 2 served by the project's own local
// endpoint running the tiny GGUF model through node-llama-cpp on the CPU. The packs' own checks
// cannot settle the alert (no ssh connector reaches the host), so the investigator proposes a
// check from the catalogue and the engine reads it. Recorded once, the whole investigation
// then replays from the cassette with no endpoint: the same calls, the same proposals, the
// same diagnosis and decision. Every bound holds, counted from the ledger.
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../e2e/lab/processes.js';
import { startLocalEndpoint, type LocalEndpoint } from '../../../models/index.js';
import { openTinyModel } from '../../../models/testing.js';
import {
  asAdmin,
  buildTestServer,
  type TestServer,
  episodeOf,
  postAlert,
} from '../../testing/test-server.js';

let tiny: Awaited<ReturnType<typeof openTinyModel>>;
let endpoint: LocalEndpoint;
let web: Server;
let webUrl: string;

beforeAll(async () => {
  tiny = await openTinyModel();
  endpoint = await startLocalEndpoint({ client: tiny.client, port: 0, host: '127.0.0.1' });
  web = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webUrl = `http://127.0.0.1:${String((web.address() as AddressInfo).port)}/`;
}, 60_000);

afterAll(async () => {
  await endpoint.close();
  web.closeAllConnections();
  await new Promise<void>((resolve) => web.close(() => resolve()));
  await tiny.close();
});

interface Run {
  calls: { purpose: string; ok: boolean; cached: boolean; error_kind?: string }[];
  proposed: { check: string; service: string; depth: number }[];
  summary: { stopped: string; s2_calls: number; reads: number; depth: number };
  hypotheses: { cause: string; confidence: string }[];
  findings: string[];
  decision: string;
}

async function investigate(env: Record<string, string>): Promise<Run> {
  const server: TestServer = await buildTestServer({ env });
  try {
    const put = await server.app.inject({
      method: 'PUT',
      url: '/v1/connectors/web-probe',
      headers: asAdmin(),
      payload: { kind: 'http', settings: { url: webUrl, service: 'web' }, timeout_s: 5 },
    });
    expect(put.statusCode, put.body).toBe(200);
    await until('operating', async () => {
      const res = await server.app.inject({ method: 'GET', url: '/v1/status', headers: asAdmin() });
      return res.json<{ mode: string }>().mode === 'operating' || undefined;
    });
    const posted = await postAlert(server, {
      name: 'WebDown',
      service: 'web',
      fingerprint: 'web-down',
      summary: 'web is down',
    });
    expect(posted.statusCode, posted.body).toBe(202);
    const id = episodeOf(posted) ?? '';
    const events = () =>
      server.runtime.reader.list({ trace: id, order: 'asc', limit: 500 }).events as {
        type: string;
        data: Record<string, unknown>;
      }[];
    // Finished, and its note written (the note is the last model call of an episode).
    await until('the note', () =>
      Promise.resolve(events().some((e) => e.type === 'investigation.note') || undefined),
    );
    const all = events();
    // Without the episode's id, which differs between runs.
    const of = (type: string) =>
      all
        .filter((e) => e.type === type)
        .map(({ data: { episode_id: _id, ...rest } }) => rest as Record<string, unknown>);
    // The live view showed the models step while the investigator worked.
    expect(of('investigation.step').map((d) => d['step'])).toContain('models');
    const hyps = of('investigation.hypotheses').at(-1)?.['hypotheses'] as Run['hypotheses'];
    return {
      calls: of('model.called') as unknown as Run['calls'],
      proposed: of('model.proposed') as unknown as Run['proposed'],
      summary: of('model.investigated')[0] as unknown as Run['summary'],
      hypotheses: hyps.map((h) => ({ cause: h.cause, confidence: h.confidence })),
      findings: of('check.ran').map((d) => (d['finding'] as { id: string }).id),
      decision: String(of('decision.made').at(-1)?.['decision']),
    };
  } finally {
    await server.cleanup();
  }
}

const bounds = { SVC_MCTS_S2_CALLS: '3', SVC_MCTS_READS: '2', SVC_MCTS_DEPTH: '2' };

describe.each(['mcts', 'loop'] as const)('the %s investigator', (kind) => {
  const cassette = () => join(tiny.dir, `cassette-${kind}`);
  let recorded: Run;

  it('proposes only catalogue checks within its bounds, counted in the ledger', async () => {
    recorded = await investigate({
      SVC_MODEL_URL: endpoint.url,
      SVC_MODEL: 'tiny',
      SVC_MODEL_CASSETTE: cassette(),
      SVC_MODEL_REPLAY: 'record',
      SVC_INVESTIGATOR: kind,
      ...bounds,
    });
    expect(recorded.calls.map((c) => c.purpose)).toContain('note');
    const asked = recorded.calls.filter((c) => c.purpose.startsWith('investigator.'));
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((c) => c.ok && !c.cached)).toBe(true);
    expect(recorded.summary.s2_calls).toBe(asked.length);
    expect(recorded.summary.s2_calls).toBeLessThanOrEqual(3);
    expect(recorded.summary.reads).toBe(recorded.proposed.length);
    expect(recorded.summary.reads).toBeLessThanOrEqual(2);
    expect(recorded.summary.depth).toBeLessThanOrEqual(2);
    // The only check a connector reaches outside the matched pack: the http probe of web.
    for (const p of recorded.proposed)
      expect(p).toMatchObject({ check: 'http.probe', service: 'web' });
    if (kind === 'mcts') {
      // A tree search always reads what it expands (its answers name at least one check).
      expect(recorded.proposed).toHaveLength(1);
      expect(recorded.findings.some((f) => f.startsWith('http.probe.'))).toBe(true);
    }
    expect(recorded.findings).toContain('host.services.unreadable');
    expect(readdirSync(cassette()).filter((f) => f.endsWith('.json')).length).toBeGreaterThan(0);
  }, 120_000);

  it('replays the whole investigation from the cassette, with no endpoint', async () => {
    const replayed = await investigate({
      SVC_MODEL: 'tiny',
      SVC_MODEL_CASSETTE: cassette(),
      SVC_MODEL_REPLAY: 'replay',
      SVC_INVESTIGATOR: kind,
      ...bounds,
    });
    expect(replayed.calls.map((c) => c.purpose)).toEqual(recorded.calls.map((c) => c.purpose));
    // Every call, the note among them, replays from the cassette.
    expect(recorded.calls.every((c) => c.ok)).toBe(true);
    expect(replayed.calls.every((c) => c.ok && c.cached)).toBe(true);
    expect(replayed.calls.filter((c) => c.purpose.startsWith('investigator.')).length).toBe(
      recorded.summary.s2_calls,
    );
    expect(replayed.proposed).toEqual(recorded.proposed);
    expect(replayed.summary).toEqual(recorded.summary);
    expect(replayed.findings).toEqual(recorded.findings);
    expect(replayed.hypotheses).toEqual(recorded.hypotheses);
    expect(replayed.decision).toBe(recorded.decision);
  }, 120_000);
});

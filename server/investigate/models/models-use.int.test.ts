// The models in the server against a real OpenAI-compatible endpoint (node:http on
// 127.0.0.1) and a real SQLite ledger: the note comes from System 2 when it answers and from
// the template when it answers too late (the investigation still finishes), System 1's gates
// lower or leave a proven lead and veto an unsafe action (nothing runs, the episode is handed
// over), each recording itself; every call is a `model.called` event with token counts and
// never the key; doctor's Models checks and GET /v1/status through the server.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { closeFields } from '../closing.js';
import { createOrchestrator, type Diagnosis } from '../orchestrator.js';
import type { FixChoice } from '../types.js';
import { createLedgerReader, createLedgerListStore } from '../../ledger/index.js';
import { systemClock } from '../../shared/clock.js';
import {
  asAdmin,
  asIngest,
  buildTestServer,
  makeDataDir,
  testEnv,
} from '../../testing/test-server.js';
import { DIAGNOSIS, FIX, planOf } from '../../testing/investigate/fixtures/nginx-down.js';
import {
  openEpisode,
  openInvestigationBench,
  type InvestigationBench,
} from '../../testing/investigate/fixtures/orchestrator-bench.js';
import { hostHasGpu } from './doctor.js';
import { gateEvidence } from './gate.js';
import { gateAction } from './gate-action.js';
import { noteOf, writeNote } from './note.js';
import { createModelUse, modelUseProjection } from './service.js';
import { ledgerRows } from '../../testing/ledger-rows.js';

const KEY = 'Planted-model-key-s3cret-7f3a9c';
const MODEL_NOTE = 'nginx stopped on web-1; the service asked a responder to restart it.';

/** A chat-completions endpoint: answers by purpose, after `delayMs`; records what it got. */
interface Endpoint {
  url: string;
  delayMs: number;
  enough: boolean;
  safe: boolean;
  seen: { auth: string | undefined; body: string }[];
  server: Server;
}

async function startEndpoint(): Promise<Endpoint> {
  const ep: Endpoint = {
    url: '',
    delayMs: 0,
    enough: true,
    safe: true,
    seen: [],
    server: null as never,
  };
  ep.server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      ep.seen.push({ auth: req.headers.authorization, body });
      const parsed = JSON.parse(body) as {
        model: string;
        response_format: { json_schema: { schema: { properties: Record<string, unknown> } } };
      };
      const props = parsed.response_format.json_schema.schema.properties;
      const value =
        'note' in props
          ? { note: MODEL_NOTE }
          : 'enough' in props
            ? { enough: ep.enough, why: ep.enough ? 'the unit is stopped' : 'one reading only' }
            : 'safe' in props
              ? { safe: ep.safe, why: ep.safe ? 'restarts the stopped unit' : 'not this host' }
              : { ok: true };
      const answer = JSON.stringify({
        model: parsed.model,
        choices: [{ message: { role: 'assistant', content: JSON.stringify(value) } }],
        usage: { prompt_tokens: 42, completion_tokens: 7 },
      });
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
      }, ep.delayMs);
    });
  });
  await new Promise<void>((resolve) => ep.server.listen(0, '127.0.0.1', resolve));
  ep.url = `http://127.0.0.1:${String((ep.server.address() as AddressInfo).port)}/v1`;
  return ep;
}
const stopEndpoint = (ep: Endpoint) =>
  new Promise<void>((resolve) => {
    ep.server.closeAllConnections();
    ep.server.close(() => resolve());
  });

const CHOICE: FixChoice = {
  pack: 'host',
  id: FIX.id,
  title: FIX.title,
  risk: 'low',
  kind: 'fix',
  allowed: true,
  safe: true,
  runnable: true,
};

/** Every file under `dir`, read as text: the ledger, its WAL, logs, cassettes. */
function everything(dir: string): string {
  let all = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    all += statSync(p).isDirectory() ? everything(p) : readFileSync(p).toString('latin1');
  }
  return all;
}

describe('the note and the System 1 gate, through the orchestrator', () => {
  let ep: Endpoint;
  let bench: InvestigationBench;

  beforeAll(async () => {
    ep = await startEndpoint();
  });
  afterAll(async () => {
    await stopEndpoint(ep);
  });
  beforeEach(() => {
    ep.delayMs = 0;
    ep.enough = true;
    ep.safe = true;
    ep.seen.length = 0;
    bench = openInvestigationBench('models-use-');
    bench.projections.register(modelUseProjection);
  });
  afterEach(() => {
    bench.close();
  });

  const dataOf = (
    events: readonly { type: string; data: string }[],
    type: string,
  ): Record<string, unknown> =>
    JSON.parse(events.find((e) => e.type === type)?.data ?? '{}') as Record<string, unknown>;

  /**
   * The composition of wire.ts around a real orchestrator (engine and decisions faked). With
   * `fix`, the proven lead has a runnable fix that L2 would run at once.
   */
  async function investigate(env: Record<string, string>, opts: { fix?: boolean } = {}) {
    const { dir: d, machineIdFile } = makeDataDir();
    const config = loadConfig(testEnv(d, machineIdFile, env), { port: 0, bind: '127.0.0.1' });
    rmSync(d, { recursive: true, force: true });
    const models = createModelUse({ config, ledger: bench.ledger, writer: bench.writer });
    const { store } = bench;
    const base = { ledger: bench.ledger, writer: bench.writer };
    const decided: Diagnosis[] = [];
    const ran: string[] = [];
    const orchestrator = createOrchestrator({
      store,
      ledger: bench.ledger,
      writer: bench.writer,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      maxConcurrent: 2,
      episode: bench.episode,
      diagnose: (ctx) => gateEvidence({ models, ...base }, ctx.episode_id, DIAGNOSIS),
      changes: () => [],
      autonomy: { levelOf: () => 'L1', fixMode: () => 'advise', halted: () => false },
      planFix: (episodeId) =>
        opts.fix === true ? { choice: CHOICE, plan: planOf(episodeId) } : null,
      changeWindow: () => null,
      approvalRoute: () => true,
      decide: (input) => {
        decided.push({ ...DIAGNOSIS, hypotheses: [...input.hypotheses] });
        if (input.hypotheses[0]?.confidence !== 'proven')
          return { decision: 'abstain', why: 'nothing proven', next: 'none' };
        return input.fix === null
          ? { decision: 'ask_human', why: 'proven; no fix runs here', next: 'none' }
          : { decision: 'act', why: 'proven; L2 runs the safe fix', next: 'act' };
      },
      approvals: { open: () => Promise.reject(new Error('no approvals here')) },
      actions: {
        dryRun: () => {
          ran.push('dry_run');
          return Promise.resolve({ ok: true, detail: 'would restart nginx' });
        },
        shadow: () => Promise.resolve(),
        execute: () => {
          ran.push('execute');
          return Promise.resolve('verified');
        },
      },
      planOf: () => null,
      vetoAction: (id, plan, diagnosis) => gateAction({ models, ...base }, id, plan, diagnosis),
      finished: async (id) => {
        await writeNote({ models, ...base, row: (e) => store.get(e) }, id);
      },
    });
    const id = openEpisode(bench, 'nginx');
    const started = Date.now();
    await orchestrator.start();
    await orchestrator.drained();
    orchestrator.stop();
    const reader = createLedgerReader({
      store: bench.ledgerStore,
      list: createLedgerListStore(bench.db),
      clock: systemClock,
    } as Parameters<typeof createLedgerReader>[0]);
    const events = ledgerRows(bench.db)
      .filter((r) => r.trace_id === id)
      .map((r) => ({ type: r.type, data: r.data, trace_id: id }));
    const tOpen = bench.episode(id)?.t_open ?? '';
    const closed = closeFields(store.get(id), tOpen, noteOf(reader, id));
    return { id, events, closed, decided, ran, seconds: (Date.now() - started) / 1000 };
  }

  it('writes the note with System 2, gates with System 1, and records each call', async () => {
    const r = await investigate({ SVC_MODEL_URL: ep.url, SVC_MODEL: 'tiny', SVC_MODEL_KEY: KEY });
    expect(r.closed?.['note']).toBe(MODEL_NOTE);
    const types = r.events.map((e) => e.type);
    expect(types.indexOf('decision.s1')).toBeLessThan(types.indexOf('decision.made'));
    expect(types.indexOf('investigation.note')).toBeGreaterThan(
      types.indexOf('investigation.finished'),
    );
    const called = r.events
      .filter((e) => e.type === 'model.called')
      .map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(called).toEqual([
      expect.objectContaining({
        purpose: 's1.enough',
        system: 's1',
        model: 'tiny',
        prompt_tokens: 42,
        completion_tokens: 7,
        cached: false,
        ok: true,
      }),
      expect.objectContaining({ purpose: 'note', system: 's2', prompt_tokens: 42, ok: true }),
    ]);
    const gate = dataOf(r.events, 'decision.s1');
    expect(gate).toMatchObject({ enough: true, verified: true, lowered: false });
    expect(r.decided[0]?.hypotheses[0]?.confidence).toBe('proven');
    // The key went only in the Authorization header: never in the ledger or a request body.
    expect(ep.seen.every((s) => s.auth === `Bearer ${KEY}`)).toBe(true);
    expect(ep.seen.some((s) => s.body.includes(KEY))).toBe(false);
    expect(everything(bench.dir)).not.toContain(KEY);
    // The prompt is not in the ledger: only its purpose.
    expect(JSON.stringify(called)).not.toContain('unit nginx is stopped');
  });

  it('a "no" from System 1 lowers a proven lead; it never raises one', async () => {
    ep.enough = false;
    const r = await investigate({ SVC_MODEL_URL: ep.url, SVC_MODEL_KEY: KEY });
    expect(r.decided[0]?.hypotheses[0]?.confidence).toBe('suspected');
    const gate = dataOf(r.events, 'decision.s1');
    expect(gate).toMatchObject({ enough: false, verified: true, lowered: true });
  });

  it('a "no" from System 1 on the action vetoes it: nothing runs, the episode is handed over', async () => {
    ep.safe = false;
    const r = await investigate({ SVC_MODEL_URL: ep.url, SVC_MODEL_KEY: KEY }, { fix: true });
    expect(r.ran).toEqual([]);
    expect(r.closed).toMatchObject({ decision: 'vetoed', result: 'handed_over', fix: FIX.id });
    const made = r.events
      .filter((e) => e.type === 'decision.made')
      .map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(made.map((d) => d['decision'])).toEqual(['act', 'vetoed']);
    expect(made[1]).toMatchObject({ why: 'System 1 vetoed: not this host', handover: true });
    const gates = r.events
      .filter((e) => e.type === 'decision.s1')
      .map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(gates.map((g) => g['gate'])).toEqual(['enough', 'action_safe']);
    expect(gates[1]).toMatchObject({ fix: FIX.id, safe: false, verified: true });
    // Only stable facts go to System 1: the filled call, never a reading.
    const asked = ep.seen.find((s) => s.body.includes('"safe":{"type":"boolean"}'));
    expect(asked?.body).toContain('restart');
    expect(asked?.body).not.toContain('unit nginx is stopped');
    // Said yes: the same fix runs.
    ep.safe = true;
    const yes = await investigate({ SVC_MODEL_URL: ep.url, SVC_MODEL_KEY: KEY }, { fix: true });
    expect(yes.ran).toEqual(['dry_run', 'execute']);
    expect(yes.closed).toMatchObject({ decision: 'act', action: 'verified' });
  });

  it('past SVC_MODEL_TIMEOUT_S the note is the template and the episode still finishes', async () => {
    ep.delayMs = 4000;
    const r = await investigate({
      SVC_MODEL_URL: ep.url,
      SVC_MODEL_KEY: KEY,
      SVC_MODEL_TIMEOUT_S: '1',
      SVC_S1_TIMEOUT_S: '1',
    });
    expect(r.seconds).toBeLessThan(3.5);
    const types = r.events.map((e) => e.type);
    expect(types).toContain('investigation.finished');
    const note = dataOf(r.events, 'investigation.note');
    expect(note['source']).toBe('template');
    expect(r.closed?.['note']).toBe(note['note']);
    expect(String(r.closed?.['note'])).toMatch(/^Cause: nginx is down \(proven\)\./);
    // The gate timed out: the decision stands as decided, unverified.
    const gate = dataOf(r.events, 'decision.s1');
    expect(gate).toMatchObject({ enough: null, verified: false, error_kind: 'timeout' });
    expect(r.decided[0]?.hypotheses[0]?.confidence).toBe('proven');
    const called = r.events
      .filter((e) => e.type === 'model.called')
      .map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(called.map((c) => [c['purpose'], c['ok'], c['error_kind']])).toEqual([
      ['s1.enough', false, 'timeout'],
      ['note', false, 'timeout'],
    ]);
  }, 15_000);

  it('without models: no model events, the template note at close', async () => {
    const r = await investigate({});
    expect(r.events.some((e) => e.type.startsWith('model.') || e.type === 'decision.s1')).toBe(
      false,
    );
    expect(r.events.some((e) => e.type === 'investigation.note')).toBe(false);
    expect(String(r.closed?.['note'])).toMatch(/^Cause: nginx is down/);
    expect(ep.seen).toHaveLength(0);
  });
});

describe('the server: status, doctor and reserved types', () => {
  let ep: Endpoint;
  beforeAll(async () => {
    ep = await startEndpoint();
  });
  afterAll(async () => {
    await stopEndpoint(ep);
  });

  const modelsChecks = async (server: Awaited<ReturnType<typeof buildTestServer>>) => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/v1/doctor?fresh=1',
      headers: asAdmin(),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res
      .json<{ checks: { area: string; check: string; status: string; detail: string }[] }>()
      .checks.filter((c) => c.area === 'Models');
  };

  it('shows the models in use, answers the doctor, refuses forged model events', async () => {
    const server = await buildTestServer({
      env: { SVC_MODEL_URL: `${ep.url}?x=1`, SVC_MODEL: 'tiny', SVC_MODEL_KEY: KEY },
    });
    try {
      const status = await server.app.inject({ method: 'GET', url: '/v1/status' });
      expect(status.json<{ models: unknown }>().models).toStrictEqual({
        placement: 'endpoint',
        system2: {
          configured: true,
          model: 'tiny',
          url_origin: new URL(ep.url).origin,
          investigator: 'loop',
          investigator_bounds: { s2_calls: 16, reads: 24, depth: 4 },
          tokens_today: 0,
          daily_tokens: 0,
        },
        system1: {
          configured: true,
          model: 'tiny',
          url_origin: new URL(ep.url).origin,
          tokens_today: 0,
          daily_tokens: 0,
        },
        cassette: null,
        local: null,
      });
      expect(status.body).not.toContain(KEY);
      expect(status.body).not.toContain('/v1?x=1');

      const checks = await modelsChecks(server);
      expect(checks.map((c) => [c.check, c.status])).toEqual([
        ['placement', 'ok'],
        ['System 1 and investigator', 'ok'],
      ]);
      expect(JSON.stringify(checks)).not.toContain(KEY);

      for (const type of ['model.called', 'investigation.note', 'decision.s1']) {
        const res = await server.app.inject({
          method: 'POST',
          url: '/v1/events',
          headers: asIngest(),
          payload: { type, actor: 'ci:forger', data: { ok: true } },
        });
        expect(res.statusCode, type).toBe(400);
      }
      // The health calls are ledger events too, with token counts and no key.
      const ledger = await server.app.inject({
        method: 'GET',
        url: '/v1/ledger?type=model.called',
        headers: asAdmin(),
      });
      const events = ledger.json<{ events: { data: Record<string, unknown> }[] }>().events;
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events[0]?.data).toMatchObject({ purpose: 'health', prompt_tokens: 42, ok: true });
      expect(ledger.body).not.toContain(KEY);
      await server.stop();
      expect(everything(server.dir)).not.toContain(KEY);
    } finally {
      await server.cleanup();
    }
  });

  it('fails the answers check when a configured endpoint does not answer', async () => {
    const down = await startEndpoint();
    await stopEndpoint(down);
    const server = await buildTestServer({
      env: { SVC_MODEL_URL: down.url, SVC_S1_URL: ep.url, SVC_MODEL_KEY: KEY },
    });
    try {
      const checks = await modelsChecks(server);
      const answers = checks.find((c) => c.check === 'System 1 and investigator');
      expect(answers?.status).toBe('fail');
      expect(answers?.detail).toMatch(/the investigator does not answer \(refused\)/);
      expect(answers?.detail).not.toMatch(/System 1/);
    } finally {
      await server.cleanup();
    }
  });

  it('with no models: placement fails without a GPU (warns with one), answers are ok', async () => {
    const server = await buildTestServer();
    try {
      const checks = await modelsChecks(server);
      // The specification: "fails on a GPU-less host whose models are missing".
      expect(checks.map((c) => [c.check, c.status, c.detail])).toEqual([
        hostHasGpu()
          ? ['placement', 'warn', 'no models: diagnosis runs without them, notes from templates']
          : [
              'placement',
              'fail',
              'no models and no GPU on this host: diagnosis runs without them, notes from templates',
            ],
        ['System 1 and investigator', 'ok', 'investigator unconfigured, System 1 unconfigured'],
      ]);
    } finally {
      await server.cleanup();
    }
  });
});

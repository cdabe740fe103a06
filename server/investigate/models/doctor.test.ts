// Doctor's Models checks. Placement follows the specification's row ("on a GPU or behind
// endpoints; fails on a GPU-less host whose models are missing or local"). The answers check
// warns while a daily token ceiling is spent, naming 00:00 UTC, on a fake clock and a real
// model service (fake endpoint, real ledger); status shows the same tokens.
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../../models/index.js';
import { completion } from '../../../models/testing.js';
import { loadConfig } from '../../config.js';
import { makeDataDir, testEnv } from '../../testing/test-server.js';
import { modelsView } from '../../status/index.js';
import { answerCheck, placementCheck } from './doctor.js';
import type { LocalModelView } from './local.js';
import { createModelUse } from './service.js';
import { openModelsBench, type ModelsBench } from '../../testing/investigate/models.js';

type Where = 'endpoint' | 'cassette' | 'local' | 'none';

/** The parts of the model service placement reads, for one way of configuring it. */
function models(where: Where, local: LocalModelView | null = null) {
  const system =
    where === 'none'
      ? null
      : { url_origin: where === 'endpoint' ? 'http://gpu:8080' : null, model: 'm' };
  return {
    configured: () => where !== 'none',
    describe: () => ({ system2: system, system1: system, cassette: null }),
    local: () => local,
  };
}

const run = async (where: Where, o: { local?: boolean; gpu: boolean; view?: LocalModelView }) =>
  placementCheck({
    models: models(where, o.view ?? null),
    local: o.local ?? false,
    hasGpu: () => o.gpu,
  }).run();

const READY: LocalModelView = { file: 'q.gguf', state: 'ready', gpu: 'cuda', reason: null };

describe('placement', () => {
  it('fails on a GPU-less host whose models are missing, naming what to set', async () => {
    const r = await run('none', { gpu: false });
    expect(r).toMatchObject({
      status: 'fail',
      detail:
        'no models and no GPU on this host: diagnosis runs without them, notes from templates',
    });
    expect(r.hint).toMatch(/SVC_MODEL_URL/);
    expect(r.hint).toMatch(/SVC_MODEL_CASSETTE with SVC_MODEL_REPLAY=replay/);
    // On a GPU host nothing is wrong yet: a model could run here.
    expect(await run('none', { gpu: true })).toMatchObject({ status: 'warn' });
  });

  it('fails on a GPU-less host whose model is local, and passes it on a GPU', async () => {
    const view: LocalModelView = { ...READY, state: 'refused', gpu: null, reason: 'no GPU' };
    const r = await run('local', { local: true, gpu: false, view });
    expect(r.status).toBe('fail');
    expect(r.detail).toBe(
      'SVC_MODEL_LOCAL=1 but this host has no GPU: models never run on the CPU (q.gguf refused)',
    );
    expect(r.hint).toMatch(/^unset SVC_MODEL_LOCAL and set SVC_MODEL_URL/);
    // SVC_MODEL_LOCAL=1 with an endpoint on this host: as local.
    expect((await run('endpoint', { local: true, gpu: false })).status).toBe('fail');
    expect(await run('local', { local: true, gpu: true, view: READY })).toEqual({
      status: 'ok',
      detail: 'local, q.gguf on this GPU (cuda): System 2 local, System 1 local',
      hint: '',
    });
  });

  it('fails a local model that was refused on a GPU host, with the reason', async () => {
    const view: LocalModelView = { ...READY, state: 'refused', gpu: null, reason: 'bad file' };
    expect(await run('local', { local: true, gpu: true, view })).toMatchObject({
      status: 'fail',
      detail: 'local model q.gguf refused: bad file',
    });
  });

  it('passes models behind endpoints or replayed from a cassette, GPU or not', async () => {
    expect(await run('endpoint', { gpu: false })).toEqual({
      status: 'ok',
      detail: 'behind endpoints: System 2 http://gpu:8080, System 1 http://gpu:8080',
      hint: '',
    });
    expect(await run('cassette', { gpu: false })).toEqual({
      status: 'ok',
      detail: 'replayed from a cassette: System 2 cassette, System 1 cassette',
      hint: '',
    });
  });
});

describe('answers', () => {
  it('warns while the local model loads, without probing it', async () => {
    let probed = 0;
    const local = { file: 'q.gguf', model: 'q.gguf', url_origin: null };
    const r = await answerCheck({
      models: {
        configured: () => true,
        replayOnly: () => false,
        call: () => {
          probed += 1;
          return Promise.reject(new Error('not yet'));
        },
        ceilings: () => ({ s1: null, s2: null }),
        describe: () => ({ system2: local, system1: local, cassette: null }),
        local: () => ({ ...READY, state: 'loading', gpu: null }),
      },
    }).run();
    expect(r).toEqual({
      status: 'warn',
      detail: 'the local model q.gguf is still loading',
      hint: 'a large model takes a minute or more to load: check again shortly',
    });
    expect(probed).toBe(0);
  });
});

describe('token ceilings in doctor and status', () => {
  let bench: ModelsBench;
  let now = Date.parse('2026-03-01T22:00:00.000Z');
  const clock = { now: () => now };
  let asked = 0;
  const fetch: FetchLike = async () => {
    asked += 1;
    return new Response(completion({ ok: true }, 40, 10));
  };

  beforeEach(() => {
    bench = openModelsBench('models-doctor-');
    now = Date.parse('2026-03-01T22:00:00.000Z');
    asked = 0;
  });
  afterEach(() => {
    bench.close();
  });

  const service = () => {
    const { dir: d, machineIdFile } = makeDataDir();
    const env = {
      SVC_MODEL_URL: 'http://model.test/v1',
      SVC_MODEL_DAILY_TOKENS: '50',
      SVC_S1_DAILY_TOKENS: '1000',
    };
    const config = loadConfig(testEnv(d, machineIdFile, env), { port: 0, bind: '127.0.0.1' });
    rmSync(d, { recursive: true, force: true });
    const models = createModelUse({
      config,
      ledger: bench.ledger,
      writer: bench.writer,
      fetch,
      clock,
    });
    return { models, view: modelsView(config, models) };
  };
  const NOTE = {
    purpose: 'note',
    system: 's',
    user: 'u',
    schema: { type: 'object' },
    max_tokens: 16,
  };

  it('warns while a ceiling is spent, until 00:00 UTC, and counts again the next day', async () => {
    const { models, view } = service();
    const check = answerCheck({ models });
    expect(await check.run()).toEqual({
      status: 'ok',
      detail:
        'investigator answers (0 of 50 tokens today), System 1 answers (0 of 1000 tokens today)',
      hint: '',
    });
    // The probes have their own ceilings: they never spend the investigator's.
    expect(models.ceilings().s2).toEqual({ day: '2026-03-01', used: 0, limit: 50 });
    await models.call('s2', NOTE, null);
    expect(models.ceilings().s2).toEqual({ day: '2026-03-01', used: 50, limit: 50 });
    expect(view().system2).toMatchObject({
      tokens_today: 50,
      daily_tokens: 50,
    });
    expect(view().system1).toMatchObject({
      tokens_today: 0,
      daily_tokens: 1000,
    });

    asked = 0;
    const spent = await check.run();
    expect(spent).toEqual({
      status: 'warn',
      detail:
        "the investigator's daily token ceiling is spent (50 of 50 tokens): its model steps are skipped until 2026-03-02T00:00:00.000Z",
      hint: 'wait for 00:00 UTC, or raise SVC_MODEL_DAILY_TOKENS / SVC_S1_DAILY_TOKENS',
    });
    // Only System 1 was probed: a spent system is not asked again.
    expect(asked).toBe(1);
    await expect(models.call('s2', NOTE, null)).rejects.toMatchObject({
      kind: 'ceiling_spent',
      until: '2026-03-02T00:00:00.000Z',
    });

    now = Date.parse('2026-03-02T00:00:01.000Z');
    expect((await check.run()).status).toBe('ok');
    expect(view().system2.tokens_today).toBe(0);
  });
});

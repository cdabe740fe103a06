// The local runtime in the server: SVC_MODEL_LOCAL=1 with a .gguf SVC_MODEL (relative to
// <SVC_DATA>/models/) is loaded in a child process by openLocalModel and answers System 2 and
// System 1 behind the ceiling and the ledger, through the real node-llama-cpp CPU path with a
// tiny model written here (the CPU only because a test asks for it). Without that request
// the model is refused on a GPU-less host: calls fail as `refused`, doctor and status say
// why. startServer ends the child process when it closes.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validate } from '../../../models/index.js';
import { request as VERDICT } from '../../../models/testing.js';
import { writeTinyGguf } from '../../../models/testing/tiny-gguf.js';
import { loadConfig, type Config } from '../../config.js';
import { startServer } from '../../index.js';
import { createLogger } from '../../logger.js';
import { makeDataDir, testEnv } from '../../testing/test-server.js';
import { modelsView } from '../../status/index.js';
import { hostHasGpu, placementCheck } from './doctor.js';
import { openLocalModel, type LocalModel } from './local.js';
import { createModelUse } from './service.js';
import { openModelsBench, type ModelsBench } from '../../testing/investigate/models.js';
import { ledgerRows } from '../../testing/ledger-rows.js';

let dir: string;
let machineIdFile: string;
beforeAll(async () => {
  ({ dir, machineIdFile } = makeDataDir());
  mkdirSync(join(dir, 'data', 'models'), { recursive: true });
  await writeTinyGguf(join(dir, 'data', 'models', 'tiny.gguf'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const configOf = (env: Record<string, string>): Config =>
  loadConfig(
    testEnv(dir, machineIdFile, { SVC_MODEL_LOCAL: '1', SVC_MODEL: 'tiny.gguf', ...env }),
    {
      port: 0,
      bind: '127.0.0.1',
    },
  );

describe('the local model as the transport of both systems', () => {
  let bench: ModelsBench;
  let local: LocalModel | null = null;
  beforeEach(() => {
    bench = openModelsBench('models-local-');
  });
  afterEach(async () => {
    await local?.close();
    local = null;
    bench.close();
  });

  it('answers System 2 and System 1 within the schema, counted and recorded', async () => {
    const config = configOf({ SVC_MODEL_DAILY_TOKENS: '100000' });
    local = await openLocalModel(config, { cpu: true });
    expect(local).not.toBeNull();
    expect(await local?.settled()).toEqual({
      file: 'tiny.gguf',
      state: 'ready',
      gpu: null,
      reason: null,
    });
    const models = createModelUse({
      config,
      ledger: bench.ledger,
      writer: bench.writer,
      ...(local && { local }),
    });
    const s2 = await models.call('s2', { ...VERDICT, purpose: 'note' }, null);
    expect(validate(VERDICT.schema, s2.value)).toEqual([]);
    expect(s2.model).toBe('tiny-test');
    const s1 = await models.call('s1', VERDICT, null);
    expect(s1.value).toEqual(s2.value);
    const used = s2.usage.prompt_tokens + s2.usage.completion_tokens;
    expect(models.ceilings().s2?.used).toBe(used);
    const events = ledgerRows(bench.db)
      .filter((r) => r.type === 'model.called')
      .map((r) => JSON.parse(r.data) as Record<string, unknown>);
    expect(events.map((e) => [e['system'], e['ok']])).toEqual([
      ['s2', true],
      ['s1', true],
    ]);
    const view = modelsView(config, models)();
    expect(view).toMatchObject({
      placement: 'local',
      system2: { model: 'tiny.gguf', url_origin: null, tokens_today: used, daily_tokens: 100000 },
      system1: { model: 'tiny.gguf', url_origin: null },
      local: { file: 'tiny.gguf', state: 'ready' },
    });
    // Never the path: status is public.
    expect(JSON.stringify(view)).not.toContain(dir);
  });

  it.skipIf(hostHasGpu())(
    'is refused on this GPU-less host: calls fail, doctor fails, status says why',
    async () => {
      const config = configOf({});
      local = await openLocalModel(config);
      const view = await local?.settled();
      expect(view).toMatchObject({ file: 'tiny.gguf', state: 'refused', gpu: null });
      expect(view?.reason).toMatch(/^no GPU found/);
      const models = createModelUse({
        config,
        ledger: bench.ledger,
        writer: bench.writer,
        ...(local && { local }),
      });
      await expect(models.call('s2', VERDICT, null)).rejects.toMatchObject({
        kind: 'refused',
        message: expect.stringMatching(/no GPU found/) as unknown,
      });
      const placement = await placementCheck({ models, local: true, hasGpu: hostHasGpu }).run();
      expect(placement).toMatchObject({
        status: 'fail',
        detail:
          'SVC_MODEL_LOCAL=1 but this host has no GPU: models never run on the CPU (tiny.gguf refused)',
      });
      expect(modelsView(config, models)().local).toMatchObject({ state: 'refused' });
    },
  );

  it('refuses a model file that is not there, naming the file only', async () => {
    local = await openLocalModel(configOf({ SVC_MODEL: 'gone.gguf' }));
    expect(await local?.settled()).toEqual({
      file: 'gone.gguf',
      state: 'refused',
      gpu: null,
      reason: 'model file gone.gguf not found',
    });
  });

  it('without SVC_MODEL_LOCAL, or with an endpoint URL, there is no local model', async () => {
    expect(await openLocalModel(configOf({ SVC_MODEL_LOCAL: '0' }))).toBeNull();
    expect(await openLocalModel(configOf({ SVC_MODEL_URL: 'http://127.0.0.1:9/v1' }))).toBeNull();
  });
});

describe('startServer owns the local model', () => {
  it('ends its child process when the server closes', async () => {
    const config = configOf({});
    const local = await openLocalModel(config, { cpu: true });
    expect(local).not.toBeNull();
    if (local === null) return;
    await local.settled();
    const server = await startServer(config, { log: createLogger('silent'), localModel: local });
    await server.close();
    await expect(local.client.call(VERDICT)).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/model process exited/) as unknown,
    });
  });
});

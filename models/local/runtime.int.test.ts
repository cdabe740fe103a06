// The local runtime through the real node-llama-cpp CPU path, with a tiny model written by
// the test (no download). A random model ignores the prompt: the checks are validity against
// the schema, determinism at temperature 0, token counts, and crash containment.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTinyModel, verdictRequest } from '../testing.js';
import { ModelError } from '../types.js';
import { validate } from '../validate.js';
import { createLocalClient } from './runtime.js';
import type { LocalClient } from './runtime.js';

let tiny: Awaited<ReturnType<typeof openTinyModel>>;
let client: LocalClient;

beforeAll(async () => {
  tiny = await openTinyModel();
  client = tiny.client;
});

afterAll(async () => {
  await tiny.close();
});

describe('local runtime (node-llama-cpp, CPU, tiny model)', () => {
  it('loads on the CPU and answers within the schema, deterministically', async () => {
    expect(await client.ready()).toEqual({ gpu: false });
    const first = await client.call(verdictRequest);
    expect(validate(verdictRequest.schema, first.value)).toEqual([]);
    expect(first.model).toBe('tiny-test');
    expect(first.cached).toBe(false);
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
    expect(first.usage.completion_tokens).toBeGreaterThan(0);
    const second = await client.call(verdictRequest);
    expect(second.value).toEqual(first.value);
    expect(second.usage).toEqual(first.usage);
  });

  it('turns an answer cut by max_tokens into invalid_answer', async () => {
    const call = client.call({ ...verdictRequest, max_tokens: 3 });
    await expect(call).rejects.toMatchObject({ name: 'ModelError', kind: 'invalid_answer' });
  });

  it('contains a malformed model file in the child process', async () => {
    const bad = join(tiny.dir, 'bad.gguf');
    await writeFile(bad, Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(64, 0xff)]));
    const broken = createLocalClient({ modelPath: bad, gpu: false, threads: 1 });
    await expect(broken.ready()).rejects.toThrow();
    const call = broken.call(verdictRequest);
    await expect(call).rejects.toBeInstanceOf(ModelError);
    await expect(call).rejects.toMatchObject({ kind: 'refused', status: null });
    await broken.close();
    // The good client in this process is unaffected.
    expect(validate(verdictRequest.schema, (await client.call(verdictRequest)).value)).toEqual([]);
  });
});

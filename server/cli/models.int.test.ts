// svc-core models serve from the bundle (dist/svc-core.mjs, whose model runs in
// dist/models-worker.mjs): with --cpu it serves a tiny GGUF model written here as an
// OpenAI-compatible endpoint, answering within a json_schema response_format; without it, on
// this GPU-less host, it exits non-zero naming the missing GPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '../../models/index.js';
import { verdictRequest } from '../../models/testing.js';
import { writeTinyGguf } from '../../models/testing/tiny-gguf.js';
import { hostHasGpu } from '../investigate/index.js';
import { CLI, ROOT, childEnv, requireBundle, runCli } from '../testing/processes.js';

requireBundle();

const { system, user, schema: SCHEMA, max_tokens } = verdictRequest;

let dir: string;
let model: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-models-cli-'));
  model = await writeTinyGguf(join(dir, 'tiny.gguf'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `svc-core models serve ARGS`; resolves with the URL it prints once serving. */
function serve(
  args: readonly string[],
): Promise<{ child: ChildProcess; url: string; err: () => string }> {
  const child = spawn(process.execPath, [CLI, 'models', 'serve', ...args], {
    env: childEnv({}),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const url = /at (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url !== undefined) resolve({ child, url, err: () => stderr });
    });
    child.once('exit', (code) => {
      reject(new Error(`svc-core exited ${String(code)} before serving: ${stderr}`));
    });
  });
}

describe('svc-core models serve', () => {
  it('--cpu: serves the model with schema-valid answers, says it is for tests, stops on SIGTERM', async () => {
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, 'serve-key-0123456789\n', { mode: 0o600 });
    const { child, url, err } = await serve([
      '--model',
      model,
      '--cpu',
      '--port',
      '0',
      '--key-file',
      keyFile,
    ]);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(err()).toMatch(/--cpu runs the model on the CPU, for tests only/);
      const ask = (key: string) =>
        fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'local',
            messages: [
              { role: 'system', content: system },
              { role: 'user', content: user },
            ],
            max_tokens,
            response_format: {
              type: 'json_schema',
              json_schema: { name: 's1_enough', schema: SCHEMA, strict: true },
            },
          }),
        });
      expect((await ask('wrong')).status).toBe(401);
      const res = await ask('serve-key-0123456789');
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        model: string;
        choices: { message: { content: string } }[];
        usage: { prompt_tokens: number; completion_tokens: number };
      };
      expect(body.model).toBe('tiny-test');
      const value: unknown = JSON.parse(body.choices[0]?.message.content ?? 'null');
      expect(validate(SCHEMA, value)).toEqual([]);
      expect(body.usage.completion_tokens).toBeGreaterThan(0);
      expect(err()).not.toContain('serve-key-0123456789');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it.skipIf(hostHasGpu())(
    'without --cpu on a GPU-less host: exits 1 naming the missing GPU',
    async () => {
      const r = await runCli({}, ['models', 'serve', '--model', model, '--port', '0']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^svc-core models serve: no GPU found/);
    },
  );

  it('bad usage exits 2: no model, or another address without a key', async () => {
    const none = await runCli({}, ['models', 'serve']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--model FILE is required/);
    const open = await runCli({}, ['models', 'serve', '--model', model, '--host', '0.0.0.0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/--host 0\.0\.0\.0 is not loopback: give --key-file/);
  });
});

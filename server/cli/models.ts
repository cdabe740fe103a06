// svc-core models serve: this workstation's GPU as an OpenAI-compatible endpoint
// (POST /v1/chat/completions with response_format json_schema), so other installs use it
// through their own SVC_MODEL_URL. The model runs in a child process (models/local). Without
// a GPU it refuses, unless --cpu, which is for tests only (far too slow for an incident).
// Runs until SIGINT or SIGTERM; exit 0 then, 1 when the model is refused, 2 on bad usage.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLocalRuntime, startLocalEndpoint } from '../../models/index.js';
import type { LocalEndpoint } from '../../models/index.js';

type Out = { log(line: string): void; error(line: string): void };

export const MODELS_USAGE = `  models serve --model FILE [--host 127.0.0.1] [--port 8701] [--key-file F] [--cpu]
                                  serve a GGUF model on this host's GPU as an
                                  OpenAI-compatible endpoint for SVC_MODEL_URL; a key file
                                  makes requests carry it; --cpu: tests only`;

export interface ModelsCliDeps {
  readonly out: Out;
  /** Resolves when the command should stop (SIGINT, SIGTERM by default). */
  readonly stopped?: () => Promise<string>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

const onSignal = (): Promise<string> =>
  new Promise((resolveStop) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        resolveStop(signal);
      });
  });

export async function modelsCommand(args: readonly string[], deps: ModelsCliDeps): Promise<number> {
  const { out } = deps;
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      model: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8701' },
      'key-file': { type: 'string' },
      cpu: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const usage = (why: string): number => {
    out.error(`svc-core models: ${why}\n${MODELS_USAGE}`);
    return 2;
  };
  if (positionals.length !== 1 || positionals[0] !== 'serve') return usage('use serve');
  if (values.model === undefined) return usage('--model FILE is required');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return usage('--port is 0 to 65535');
  const host = values.host;
  let key: string | null = null;
  if (values['key-file'] !== undefined) {
    key = readFileSync(values['key-file'], 'utf8').trim();
    if (key === '') return usage('the key file is empty');
  }
  if (isIP(host) === 0 && host !== 'localhost') return usage(`--host ${host} is not an address`);
  // Beyond loopback the endpoint answers anyone who can reach it: only with a key.
  if (!LOOPBACK.has(host) && key === null)
    return usage(`--host ${host} is not loopback: give --key-file (and put TLS in front)`);
  if (values.cpu)
    out.error(
      'svc-core models serve: --cpu runs the model on the CPU, for tests only: far too slow to answer an investigation',
    );

  const modelPath = resolve(values.model);
  const client = await createLocalRuntime({
    modelPath,
    gpu: values.cpu ? false : 'auto',
    requireGpu: !values.cpu,
  });
  let backend: string | false;
  try {
    backend = (await client.ready()).gpu;
  } catch (err) {
    await client.close();
    out.error(`svc-core models serve: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  let endpoint: LocalEndpoint;
  try {
    endpoint = await startLocalEndpoint({ client, port, host, key });
  } catch (err) {
    await client.close();
    throw err;
  }
  out.log(
    `serving ${basename(modelPath)} on ${backend === false ? 'the CPU' : backend} at ${endpoint.url}${key === null ? '' : ' (key required)'}`,
  );
  const signal = await (deps.stopped ?? onSignal)();
  out.error(`svc-core models serve: ${signal}: stopping`);
  await endpoint.close();
  await client.close();
  return 0;
}

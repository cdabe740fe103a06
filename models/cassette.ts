// Cassettes (SVC_MODEL_CASSETTE, SVC_MODEL_REPLAY): each call and its answer stored under the
// SHA-256 of the request body as sent, so investigations replay exactly in tests and benches
// without an endpoint or GPU. The body never holds the bearer key (it travels in a header).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ModelError } from './types.js';
import type { ModelAnswer, ModelClient, ModelRequest } from './types.js';

export type CassetteMode = 'record' | 'replay' | 'auto';

/** One `<key>.json` file. */
export interface CassetteEntry {
  purpose: string;
  request: unknown;
  answer: ModelAnswer;
}

export interface CassetteOptions {
  dir: string;
  mode: CassetteMode;
  /** The body the inner client would send for a request (see chatBody in openai.ts). */
  bodyOf(request: ModelRequest): unknown;
}

/** JSON with object keys sorted at every level, so equal requests give equal keys. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function cassetteKey(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

async function readEntry(path: string): Promise<CassetteEntry | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as CassetteEntry;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Temporary file then rename: a reader never sees half an entry. 0600: prompts hold evidence. */
async function writeEntry(dir: string, path: string, entry: CassetteEntry): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

export function withCassette(inner: ModelClient, options: CassetteOptions): ModelClient {
  const { dir, mode } = options;
  return {
    async call(request, signal) {
      const body = options.bodyOf(request);
      const key = cassetteKey(body);
      const path = join(dir, `${key}.json`);
      if (mode !== 'record') {
        const entry = await readEntry(path);
        if (entry) return { ...entry.answer, cached: true };
        if (mode === 'replay') {
          throw new ModelError(
            'cassette_miss',
            `no cassette for model call "${request.purpose}" (key ${key}) in ${dir}; record it with SVC_MODEL_REPLAY=record or auto`,
            { purpose: request.purpose, cassetteKey: key },
          );
        }
      }
      const answer = await inner.call(request, signal);
      await writeEntry(dir, path, { purpose: request.purpose, request: body, answer });
      return answer;
    },
  };
}

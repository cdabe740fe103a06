// Fixtures for normaliser tests: the project's own (server/testing/intake/fixtures/<source>/) always,
// and the shared public payloads (../shared/fixtures/alerts/<source>/) when that folder is
// beside the project, as it is in CI; a plain clone passes without it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NormaliseContext } from '../../intake/signal.js';

const PROJECT = fileURLToPath(new URL('./fixtures/', import.meta.url));
const SHARED = fileURLToPath(new URL('../../../../shared/fixtures/alerts/', import.meta.url));

export const hasShared = existsSync(SHARED);

export interface Fixture {
  readonly file: string;
  readonly body: unknown;
}

function read(dir: string, source: string): Fixture[] {
  const folder = join(dir, source);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      body: JSON.parse(readFileSync(join(folder, file), 'utf8')) as unknown,
    }));
}

export const projectFixtures = (source: string): Fixture[] => read(PROJECT, source);
export const sharedFixtures = (source: string): Fixture[] =>
  hasShared ? read(SHARED, source) : [];
export const sharedSources = (): string[] =>
  hasShared
    ? readdirSync(SHARED, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
    : [];

export const CONTEXT: NormaliseContext = { receivedAt: '2026-11-22T12:00:00.000Z', headers: {} };

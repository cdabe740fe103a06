// SVC_FIPS=1: seals are ECDSA P-256 signed notes; seals made before the switch keep
// verifying with the Ed25519 key; a changed P-256 seal is caught at its segment.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { makeDataDir, testEnv } from '../testing/test-server.js';
import { parseCheckpoint } from './checkpoint.js';

const made = makeDataDir();
const file = join(made.dir, 'data', 'svc.db');

function runtime(fips: boolean) {
  const env = testEnv(made.dir, made.machineIdFile, { SVC_FIPS: fips ? '1' : '0' });
  return createRuntime(loadConfig(env), { log: createLogger('silent') });
}

async function appendAndSeal(fips: boolean, events: number): Promise<void> {
  const rt = runtime(fips);
  try {
    await rt.writer.transact(() => {
      for (let i = 0; i < events; i++)
        rt.ledger.append({ type: 'human.action', actor: 'ci:fips', data: { i } });
    });
    rt.sealer?.sealNow();
  } finally {
    rt.close();
  }
}

async function verify(fips: boolean) {
  const rt = runtime(fips);
  try {
    return await rt.reader.verify();
  } finally {
    rt.close();
  }
}

afterAll(() => {
  rmSync(made.dir, { recursive: true, force: true });
});

describe('ledger seals under SVC_FIPS', () => {
  it('seals with Ed25519 first, then with ECDSA P-256 after the switch, and both verify', async () => {
    await appendAndSeal(false, 1_000);
    await appendAndSeal(true, 1_000);
    const db = new Database(file, { readonly: true });
    const algorithms = db.prepare('SELECT algorithm FROM ledger_segments ORDER BY segment').all();
    const last = db
      .prepare('SELECT checkpoint FROM ledger_segments ORDER BY segment DESC LIMIT 1')
      .get() as { checkpoint: string };
    db.close();
    expect(algorithms).toEqual([{ algorithm: 'ed25519' }, { algorithm: 'ecdsa-p256' }]);
    expect(parseCheckpoint(last.checkpoint).signatures).toHaveLength(1);
    const report = await verify(true);
    expect(report.failure).toBeNull();
    expect(report.segments).toBe(2);
    expect(report.algorithm).toBe('ecdsa-p256');
    expect((await verify(false)).failure).toBeNull();
  });

  it('names a changed P-256 seal at the first seq of its segment', async () => {
    const db = new Database(file);
    db.exec('DROP TRIGGER ledger_segments_no_update');
    const row = db.prepare('SELECT checkpoint FROM ledger_segments WHERE segment = 2').get() as {
      checkpoint: string;
    };
    // Flip one character of the signature (the last line's base64).
    const lines = row.checkpoint.trimEnd().split('\n');
    const sig = lines[lines.length - 1] ?? '';
    const flipped = sig.slice(0, -6) + (sig.at(-6) === 'A' ? 'B' : 'A') + sig.slice(-5);
    lines[lines.length - 1] = flipped;
    db.prepare('UPDATE ledger_segments SET checkpoint = ? WHERE segment = 2').run(
      `${lines.join('\n')}\n`,
    );
    db.close();
    const report = await verify(true);
    expect(report.failure).toMatchObject({ check: 'seal', segment: 2, seq: 1001 });
  });
});

// The doctor's ledger check: a full verify at most hourly, in between only what was added
// since; the full verify still finds an old row changed in between.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { createFakeClock } from '../shared/clock.js';
import { makeDataDir, testEnv } from '../testing/test-server.js';
import { FULL_VERIFY_EVERY_MS } from './ledger-read.service.js';

const made = makeDataDir();
const clock = createFakeClock('2026-11-01T00:00:00.000Z');
const rt = createRuntime(loadConfig(testEnv(made.dir, made.machineIdFile)), {
  log: createLogger('silent'),
  clock,
});

async function append(n: number): Promise<void> {
  await rt.writer.transact(() => {
    for (let i = 0; i < n; i++)
      rt.ledger.append({ type: 'human.action', actor: 'ci:t', data: { i } });
  });
  rt.sealer?.sealNow();
}

function tamper(seq: number): void {
  const db = new Database(join(made.dir, 'data', 'svc.db'));
  db.exec('DROP TRIGGER IF EXISTS ledger_no_update');
  db.prepare(`UPDATE ledger SET actor = 'mallory' WHERE seq = ?`).run(seq);
  db.close();
}

afterAll(() => {
  rt.close();
  rmSync(made.dir, { recursive: true, force: true });
});

describe('reader.verifyRecent', () => {
  it('verifies everything first, then only the segments sealed since and the tail', async () => {
    await append(2_500); // segments 1–2 sealed, 501 events (with the 2 seal events) unsealed
    const first = await rt.reader.verifyRecent();
    expect(first).toMatchObject({ ok: true, full: true, checked: 2_502, segments: 2 });

    await append(1_000); // segment 3 sealed
    const second = await rt.reader.verifyRecent();
    expect(second).toMatchObject({ ok: true, full: false, segments: 3, sealed_through: 3_000 });
    expect(second.checked).toBe(3_503 - 2_000); // from the end of segment 2 to the head
  });

  it('catches a new row changed at once, an old one at the next full verify', async () => {
    tamper(3_200);
    expect((await rt.reader.verifyRecent()).failure).toMatchObject({ seq: 3_200, check: 'chain' });

    tamper(10);
    clock.advance(FULL_VERIFY_EVERY_MS);
    const full = await rt.reader.verifyRecent();
    expect(full).toMatchObject({ full: true, ok: false });
    expect(full.failure).toMatchObject({ seq: 10, check: 'chain' });
  });
});

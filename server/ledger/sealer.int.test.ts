// A seal is made only from rows read back and re-hashed: a row changed behind the service's
// back before its segment is sealed stops the seal, naming the row, and nothing is sealed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { tamper } from '../testing/tamper.js';
import { makeDataDir, testEnv } from '../testing/test-server.js';
import { SealRefusedError, SEGMENT_SIZE } from './sealer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function runtimeWithEvents(n: number) {
  const { dir } = makeDataDir();
  dirs.push(dir);
  const rt = createRuntime(loadConfig(testEnv(dir, join(dir, 'machine-id'))), {
    log: createLogger('silent'),
  });
  // transactNow: no batch listener runs, so nothing seals before the test asks.
  rt.writer.transactNow(() => {
    for (let i = 0; i < n; i++)
      rt.ledger.append({ type: 'human.action', actor: 'ci:test', data: { i } });
  });
  return { rt, file: join(dir, 'data', 'svc.db') };
}

it('seals a full segment read back intact, and refuses one holding a changed row, naming its seq', () => {
  const intact = runtimeWithEvents(SEGMENT_SIZE);
  try {
    expect(intact.rt.sealer?.sealNow()).toBe(1);
    expect(intact.rt.ledgerStore.lastSegment()?.last_seq).toBe(SEGMENT_SIZE);
  } finally {
    intact.rt.close();
  }

  const changed = runtimeWithEvents(SEGMENT_SIZE);
  tamper(changed.file, 'ledger', { data: '{"i":"changed"}' }, { seq: 600 });
  try {
    let refusal: unknown = null;
    try {
      changed.rt.sealer?.sealNow();
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(SealRefusedError);
    expect((refusal as SealRefusedError).seq).toBe(600);
    expect(changed.rt.ledgerStore.lastSegment()).toBeNull();
  } finally {
    changed.rt.close();
  }
});

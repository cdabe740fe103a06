// Verify's read of the chain: SQLite renders each stored event's canonical JSON, and it must
// be byte for byte the text the writer hashed (canonicalEvent), or verify would fall back to
// the slow path on every row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { openLedgerBench } from '../testing/ledger-bench.js';
import { chainHash, canonicalEvent } from './hash.js';
import type { RawEvent } from './ledger.types.js';
import { GENESIS_HASH } from './ledger.types.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
const bench = openLedgerBench(join(dir, 'svc.db'), createFakeClock('2026-11-01T00:00:00.000Z'));

afterAll(() => {
  bench.db.close();
  rmSync(dir, { recursive: true, force: true });
});

// Every character JSON.stringify escapes (quote, backslash, U+0000–U+001F), DEL, non-ASCII
// from two to four UTF-8 bytes, and the separators JavaScript leaves alone.
const ASCII = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).join('');
const STRINGS = [ASCII, 'é€😀 ü', '\u2028\u2029', '</script>', '', '"quoted" \\ back'];

describe('ledger store: rangeCanonical', () => {
  it('renders each event as canonicalEvent does, with its hash in lower-case hex', () => {
    const events: RawEvent[] = STRINGS.flatMap((s, i) => [
      {
        seq: 2 * i + 1,
        ts: s,
        type: s,
        actor: s,
        data: JSON.stringify({ s }),
        reason: s,
        trace_id: s,
      },
      {
        seq: 2 * i + 2,
        ts: '2026-11-01T00:00:00.000Z',
        type: 'human.action',
        actor: 'ci:test',
        data: '{}',
        reason: null,
        trace_id: null,
      },
    ]);
    let prev: Buffer = GENESIS_HASH;
    const hashes: string[] = [];
    for (const e of events) {
      prev = chainHash(prev, e);
      hashes.push(prev.toString('hex'));
      bench.ledgerStore.insert(e, prev);
    }
    const rows = bench.ledgerStore.rangeCanonical(0, events.length, 1000);
    expect(rows).toEqual(events.map((e, i) => [e.seq, canonicalEvent(e), hashes[i]]));
  });

  it('reads at most limit events after afterSeq up to toSeq, in order', () => {
    expect(bench.ledgerStore.rangeCanonical(3, 7, 2).map((r) => r[0])).toEqual([4, 5]);
    expect(bench.ledgerStore.rangeCanonical(3, 5, 10).map((r) => r[0])).toEqual([4, 5]);
  });

  it('gives null text for a value that is not text, so verify reads that row exactly', () => {
    const db = bench.db;
    db.exec('DROP TRIGGER ledger_no_update');
    // 'ci:test' as a BLOB is valid binary JSON to json_quote (it would render as i:test).
    db.prepare(`UPDATE ledger SET actor = CAST(actor AS BLOB) WHERE seq = 2`).run();
    db.prepare(`UPDATE ledger SET trace_id = x'37' WHERE seq = 4`).run();
    const rows = bench.ledgerStore.rangeCanonical(1, 4, 10);
    expect(rows.map((r) => r[1])).toEqual([null, expect.any(String), null]);
  });
});

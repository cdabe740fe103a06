// The verify path's chain hasher (one reused buffer, hex in and out) against chainHash.
import { describe, expect, it } from 'vitest';
import { canonicalEvent, chainHash, ChainHasher } from './hash.js';
import { GENESIS_HASH, type RawEvent } from './ledger.types.js';

const event = (seq: number, data: string): RawEvent => ({
  seq,
  ts: '2026-11-01T00:00:00.000Z',
  type: 'human.action',
  actor: 'ci:test',
  data,
  reason: seq % 2 === 0 ? 'why' : null,
  trace_id: null,
});

describe('ChainHasher', () => {
  it('recomputes the chain as chainHash does, across texts that outgrow its buffer', () => {
    const events = [
      event(1, '{}'),
      event(2, JSON.stringify({ s: 'é€😀'.repeat(3000) })), // 30 KB of UTF-8: the buffer grows
      event(3, JSON.stringify({ s: 'x'.repeat(100_000) })),
      event(4, '{"a":1}'),
    ];
    const hasher = new ChainHasher(GENESIS_HASH);
    let prev: Buffer = GENESIS_HASH;
    for (const e of events) {
      prev = chainHash(prev, e);
      const h = hasher.next(canonicalEvent(e));
      expect(h).toBe(prev.toString('hex'));
      hasher.advance(h);
      expect(hasher.prev()).toEqual(prev);
    }
  });

  it('does not advance by itself: next is a candidate until advance takes it', () => {
    const hasher = new ChainHasher(GENESIS_HASH);
    const text = canonicalEvent(event(1, '{}'));
    expect(hasher.next(text)).toBe(hasher.next(text));
    expect(hasher.prev()).toEqual(GENESIS_HASH);
  });
});

import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appendRecord, recordHash, winsFork, type LogRecord } from './authority-log.js';

const KC = 'kc_forkforkforkforkforkforkfo';
const key = generateKeyPairSync('ed25519').privateKey;
const at = '2026-11-28T12:00:00.000Z';

const add = (head: LogRecord | null, epoch: number, type: string, body: Record<string, unknown>) =>
  appendRecord(head, { keychain_id: KC, epoch, type, body }, { fp: 'A', key }, at);

describe('choosing between two take-overs at one epoch', () => {
  const genesis = add(null, 1, 'genesis', { home_fp: 'A' });
  const byB = add(genesis, 2, 'takeover', { to: 'B' });
  const byC = add(genesis, 2, 'takeover', { to: 'C' });
  const [low, high] = recordHash(byB) < recordHash(byC) ? [byB, byC] : [byC, byB];

  it('lets the lower record hash win, on either side', () => {
    expect(winsFork([genesis, high], [genesis, low])).toBe(true);
    expect(winsFork([genesis, low], [genesis, high])).toBe(false);
  });

  it('is no fork when one log only extends the other, or they part before a take-over', () => {
    expect(winsFork([genesis], [genesis, low])).toBe(false);
    expect(winsFork([genesis, low], [genesis, low])).toBe(false);
    const renamed = add(genesis, 1, 'rename', { fp: 'A', label: 'x' });
    expect(winsFork([genesis, renamed], [genesis, low])).toBe(false);
    const otherGenesis = add(null, 1, 'genesis', { home_fp: 'Z' });
    expect(winsFork([otherGenesis], [genesis])).toBe(false);
  });

  it('never rewrites history: a take-over followed by a later epoch cannot be forked', () => {
    const later = add(high, 3, 'takeover', { to: 'D' });
    expect(winsFork([genesis, high, later], [genesis, low])).toBe(false);
    // Nor can a fork carry a higher epoch stacked on the winning claim.
    const stacked = add(low, 3, 'takeover', { to: 'E' });
    expect(winsFork([genesis, high], [genesis, low, stacked])).toBe(false);
    // Records at the same epoch after either claim are fine (a rename, a member added).
    const renamed = add(low, 2, 'rename', { fp: 'B', label: 'b' });
    expect(winsFork([genesis, high], [genesis, low, renamed])).toBe(true);
  });

  it('is no fork between take-overs at different epochs, whatever their hashes', () => {
    for (const n of [3, 4, 5, 6, 7, 8]) {
      const odd = add(genesis, n, 'takeover', { to: 'D' });
      expect(winsFork([genesis, byB], [genesis, odd])).toBe(false);
      expect(winsFork([genesis, odd], [genesis, byB])).toBe(false);
    }
  });
});

import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  adoptsMembers,
  appendRecord,
  forkBetween,
  recordHash,
  winsFork,
  type LogRecord,
} from './authority-log.js';

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

describe("a fork where one claimant missed the old home's last records", () => {
  const genesis = add(null, 1, 'genesis', { home_fp: 'A' });
  const addB = add(genesis, 1, 'member_add', { fp: 'B' });
  const addC = add(addB, 1, 'member_add', { fp: 'C' });
  // B took over before it pulled C's joining; C saw it, then took over too.
  const byB = add(addB, 2, 'takeover', { to: 'B' });
  const byC = add(addC, 2, 'takeover', { to: 'C' });
  const bLog = [genesis, addB, byB];
  const cLog = [genesis, addB, addC, byC];

  it('is still a fork between the two claims, decided by their hashes alone', () => {
    const fromB = forkBetween(bLog, cLog);
    expect(fromB).toMatchObject({
      at: 2,
      ours: byB,
      theirs: byC,
      oursOnly: [],
      theirsOnly: [addC],
    });
    expect(forkBetween(cLog, bLog)).toMatchObject({ oursOnly: [addC], theirsOnly: [] });
    const bWins = recordHash(byB) < recordHash(byC);
    expect(winsFork(cLog, bLog)).toBe(bWins);
    expect(winsFork(bLog, cLog)).toBe(!bWins);
  });

  it('lets the loser follow only once the winner holds the members it missed', () => {
    expect(adoptsMembers([addC], bLog)).toBe(false);
    const adopted = add(byB, 2, 'member_add', { fp: 'C', adopted: recordHash(addC) });
    const bAfter = [...bLog, adopted];
    expect(adoptsMembers([addC], bAfter)).toBe(true);
    // The adopted copy is a record at the winner's epoch: still the same fork.
    expect(forkBetween(cLog, bAfter)).toMatchObject({ ours: byC, theirs: byB, oursOnly: [addC] });
    // A copy of another record does not stand in for it.
    const other = add(byB, 2, 'member_add', { fp: 'C', adopted: recordHash(addB) });
    expect(adoptsMembers([addC], [...bLog, other])).toBe(false);
  });

  it('is no fork when both sides hold different records of the old home at one place', () => {
    const addD = add(addB, 1, 'member_add', { fp: 'D' });
    const byD = add(addD, 2, 'takeover', { to: 'D' });
    expect(forkBetween(cLog, [genesis, addB, addD, byD])).toBeNull();
  });

  it('is no fork when a claim is not at the epoch after the common part', () => {
    const handover = add(addB, 2, 'handover', { to: 'B' });
    const byC3 = add(handover, 3, 'takeover', { to: 'C' });
    expect(forkBetween(bLog, [genesis, addB, handover, byC3])).toBeNull();
  });
});

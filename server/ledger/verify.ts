// Recomputes the chain, the sequence, every segment digest and every seal, and names the
// first seq where anything fails. Reads in chunks and yields between them, so a long
// verify never freezes the server.
import type { KeyObject } from 'node:crypto';
import { sealHash, verifyCheckpoint, parseCheckpoint } from './checkpoint.js';
import { chainHashOfRow } from './hash.js';
import type { LedgerStore, SegmentRow } from './ledger.store.js';
import { GENESIS_HASH } from './ledger.types.js';
import { merkleRoot } from './merkle.js';

export const VerifyCheck = {
  Chain: 'chain',
  Sequence: 'sequence',
  Digest: 'digest',
  Seal: 'seal',
  Checkpoint: 'checkpoint',
} as const;
export type VerifyCheck = (typeof VerifyCheck)[keyof typeof VerifyCheck];

export interface VerifyFailure {
  readonly seq: number;
  readonly check: VerifyCheck;
  readonly segment: number | null;
  readonly message: string;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly checked: number;
  readonly head: { readonly seq: number; readonly hash: string | null };
  readonly segments: number;
  readonly sealed_through: number;
  readonly failure: VerifyFailure | null;
  readonly duration_ms: number;
  readonly events_per_s: number;
}

export interface VerifyDeps {
  readonly store: LedgerStore;
  /** The install's public seal key for an algorithm (seals made before SVC_FIPS=1 stay Ed25519). */
  readonly keyFor: (algorithm: string) => KeyObject | null;
  readonly keyName: string;
}

export interface VerifyOptions {
  /** A checkpoint saved elsewhere: the log must still contain it (no lost tail, no older file). */
  readonly checkpoint?: string;
  readonly chunk?: number;
  /** Called between chunks; the server passes a yield to the event loop. */
  readonly pause?: () => Promise<void>;
}

class Failed extends Error {
  readonly failure: VerifyFailure;
  constructor(failure: VerifyFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

function fail(
  check: VerifyCheck,
  seq: number,
  message: string,
  segment: number | null = null,
): never {
  throw new Failed({ seq, check, segment, message });
}

export async function verifyLedger(
  deps: VerifyDeps,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const { store } = deps;
  const started = performance.now();
  const chunk = options.chunk ?? 2_000;
  const head = store.head();
  const segments = store.segments();
  let checked = 0;
  let prev: Buffer = GENESIS_HASH;
  let failure: VerifyFailure | null = null;

  try {
    checkSegmentList(segments);
    let segIndex = 0;
    let leaves: Buffer[] = [];
    let expected = 1;
    let after = 0;
    for (;;) {
      const rows = store.rangeRows(after, head.seq, chunk);
      if (rows.length === 0) break;
      for (const row of rows) {
        const seq = row[0];
        const stored = row[7];
        if (seq !== expected) {
          fail(
            VerifyCheck.Sequence,
            expected,
            `seq ${String(expected)} is missing: the next stored event is seq ${String(seq)}`,
          );
        }
        const h = chainHashOfRow(prev, row);
        if (!h.equals(stored)) {
          fail(
            VerifyCheck.Chain,
            seq,
            `the event at seq ${String(seq)} does not match its chain hash: it was changed, moved or replaced`,
          );
        }
        prev = h;
        checked++;
        expected++;
        const seg = segments[segIndex];
        if (seg !== undefined) {
          leaves.push(stored);
          if (seq === seg.last_seq) {
            checkSegment(deps, seg, leaves, h, segments[segIndex - 1]);
            leaves = [];
            segIndex++;
          }
        }
      }
      after = rows[rows.length - 1]?.[0] ?? after;
      if (options.pause) await options.pause();
    }
    const unfinished = segments[segIndex];
    if (unfinished !== undefined) {
      fail(
        VerifyCheck.Sequence,
        expected,
        `segment ${String(unfinished.segment)} seals events up to seq ${String(unfinished.last_seq)}, but the ledger ends at seq ${String(expected - 1)}`,
        unfinished.segment,
      );
    }
    if (options.checkpoint !== undefined) {
      checkExternal(deps, options.checkpoint, head.seq);
    }
  } catch (err) {
    if (!(err instanceof Failed)) throw err;
    failure = err.failure;
  }

  const ms = performance.now() - started;
  return {
    ok: failure === null,
    checked,
    head: { seq: head.seq, hash: head.hash?.toString('hex') ?? null },
    segments: segments.length,
    sealed_through: segments[segments.length - 1]?.last_seq ?? 0,
    failure,
    duration_ms: Math.round(ms),
    events_per_s: ms > 0 ? Math.round((checked / ms) * 1000) : 0,
  };
}

/** Segments must be numbered 1, 2, 3 … and cover seq 1 onwards without gaps or overlaps. */
function checkSegmentList(segments: readonly SegmentRow[]): void {
  let nextFirst = 1;
  segments.forEach((s, i) => {
    if (s.segment !== i + 1 || s.first_seq !== nextFirst || s.last_seq < s.first_seq) {
      fail(
        VerifyCheck.Seal,
        Math.min(nextFirst, s.first_seq),
        `segment ${String(s.segment)} (seq ${String(s.first_seq)}–${String(s.last_seq)}) does not follow the previous segment, which ended at seq ${String(nextFirst - 1)}`,
        s.segment,
      );
    }
    nextFirst = s.last_seq + 1;
  });
}

function checkSegment(
  deps: VerifyDeps,
  seg: SegmentRow,
  leaves: Buffer[],
  chainAtEnd: Buffer,
  previous: SegmentRow | undefined,
): void {
  const at = seg.first_seq;
  const digest = merkleRoot(leaves);
  if (!digest.equals(seg.digest)) {
    fail(
      VerifyCheck.Digest,
      at,
      `segment ${String(seg.segment)} (seq ${String(seg.first_seq)}–${String(seg.last_seq)}): its events no longer produce the sealed digest`,
      seg.segment,
    );
  }
  const key = deps.keyFor(seg.algorithm);
  if (key === null) {
    fail(
      VerifyCheck.Seal,
      at,
      `segment ${String(seg.segment)}: no ${seg.algorithm} install key to check its seal`,
      seg.segment,
    );
  }
  const verdict = verifyCheckpoint(seg.checkpoint, key, deps.keyName);
  if (!verdict.ok) {
    fail(
      VerifyCheck.Seal,
      at,
      `segment ${String(seg.segment)}: the seal does not verify (${verdict.why})`,
      seg.segment,
    );
  }
  const body = verdict.body;
  const expectedPrev = previous ? sealHash(previous.checkpoint) : null;
  const problems = [
    body.size !== seg.last_seq && `it covers seq ${String(body.size)}, not ${String(seg.last_seq)}`,
    !body.root.equals(chainAtEnd) && 'its root is not the chain hash at the segment end',
    !body.digest.equals(digest) && 'its digest is not the segment digest',
    body.segment !== seg.segment && `it names segment ${String(body.segment)}`,
    body.firstSeq !== seg.first_seq && `it starts at seq ${String(body.firstSeq)}`,
    !sameOrBothNull(body.prevSealHash, expectedPrev) && 'it does not link to the previous seal',
  ].filter((p): p is string => typeof p === 'string');
  if (problems.length > 0) {
    fail(
      VerifyCheck.Seal,
      at,
      `segment ${String(seg.segment)}: the seal does not match the ledger (${problems.join('; ')})`,
      seg.segment,
    );
  }
}

function sameOrBothNull(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/** Compare the log with a checkpoint kept elsewhere: it must not be smaller nor differ. */
function checkExternal(deps: VerifyDeps, note: string, headSeq: number): void {
  let body;
  try {
    body = parseCheckpoint(note).body;
  } catch (err) {
    fail(
      VerifyCheck.Checkpoint,
      0,
      `the saved checkpoint cannot be read: ${(err as Error).message}`,
    );
  }
  const verdicts = ['ed25519', 'ecdsa-p256'].map((alg) => {
    const key = deps.keyFor(alg);
    return key === null
      ? { ok: false as const, why: `no ${alg} key` }
      : verifyCheckpoint(note, key, deps.keyName);
  });
  if (!verdicts.some((v) => v.ok)) {
    const why = verdicts.map((v) => (v.ok ? '' : v.why)).join('; ');
    fail(
      VerifyCheck.Checkpoint,
      body.size,
      `the saved checkpoint is not signed by this install: ${why}`,
    );
  }
  if (body.size > headSeq) {
    fail(
      VerifyCheck.Checkpoint,
      headSeq + 1,
      `the saved checkpoint covers seq ${String(body.size)} but the ledger ends at seq ${String(headSeq)}: events were removed or an older database was restored`,
    );
  }
  const at = deps.store.hashAt(body.size);
  if (at === null || !at.equals(body.root)) {
    fail(
      VerifyCheck.Checkpoint,
      body.size,
      `the ledger at seq ${String(body.size)} differs from the saved checkpoint`,
    );
  }
}

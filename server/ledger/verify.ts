// Recomputes the chain, the sequence, every segment digest and every seal, and names the
// first seq where anything fails. Reads in chunks and yields between them, so a long
// verify never freezes the server.
import type { KeyObject } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { sealHash, verifyCheckpoint, parseCheckpoint } from './checkpoint.js';
import { ChainHasher, chainHashOfRow } from './hash.js';
import type { LedgerStore, SegmentRow } from './ledger.store.js';
import { GENESIS_HASH } from './ledger.types.js';
import { MerkleBuilder } from './merkle.js';

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
  /**
   * The fingerprint of the install key in the data folder; when given, it must be the one the
   * ledger's first event pinned, so a swapped key cannot vouch for re-made seals.
   */
  readonly keyFingerprint?: string;
}

export interface VerifyOptions {
  readonly chunk?: number;
  /** Called between chunks; the server passes a yield to the event loop. */
  readonly pause?: () => Promise<void>;
  /** Verifies spans on other threads; without it everything runs here. */
  readonly runner?: SpanRunner;
  /** How many spans for a large ledger (default: one per 10,000 events, more than threads). */
  readonly parts?: number;
  /** The ledger size from which spans run in parallel (default 100,000). */
  readonly parallelFrom?: number;
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

/** A stretch of the ledger that starts right after a sealed segment (or at seq 1). */
export interface Span {
  /** The last seq before the span (0 for the start of the ledger). */
  readonly after: number;
  /** The last seq of the span. */
  readonly to: number;
  /** Index in the segment list of the first segment inside the span. */
  readonly segIndex: number;
  readonly isLast: boolean;
}

export interface SpanResult {
  readonly checked: number;
  readonly failure: VerifyFailure | null;
}

/** Runs spans on worker threads (verify-threads.ts). */
export interface SpanRunner {
  /** How many spans it runs at once: one per worker thread. */
  readonly threads: number;
  /** Verify a span on a worker thread; rejects when that thread fails. */
  run(span: Span): Promise<SpanResult>;
  /** Stop the worker threads; a later run starts them again. */
  close(): Promise<void>;
}

/** About how many events a span holds when spans are shared between threads. */
const SPAN_EVENTS = 10_000;

/**
 * Verify one span: chain, sequence, and the segments inside it. A span after the first
 * starts from the stored hash of its previous event, which the previous span checks
 * against the recomputed chain; so spans verified apart prove what one pass would.
 *
 * Rows come as SQLite's rendering of each event's canonical text (rangeCanonical); a row
 * whose rendering does not give its stored hash is read again as columns and hashed as the
 * writer did (chainHashOfRow) before it is called changed, so the fast read can only spare
 * work, never report a failure the exact one would not.
 */
export async function verifySpan(
  deps: VerifyDeps,
  segments: readonly SegmentRow[],
  span: Span,
  options: { chunk?: number; pause?: () => Promise<void> } = {},
): Promise<SpanResult> {
  const { store } = deps;
  const chunk = options.chunk ?? 2_000;
  let checked = 0;
  try {
    const start = span.after === 0 ? GENESIS_HASH : store.hashAt(span.after);
    if (start === null) {
      fail(VerifyCheck.Sequence, span.after, `seq ${String(span.after)} is missing`);
    }
    const chain = new ChainHasher(start);
    const tree = new MerkleBuilder();
    let segIndex = span.segIndex;
    let expected = span.after + 1;
    let after = span.after;
    for (;;) {
      const rows = store.rangeCanonical(after, span.to, chunk);
      if (rows.length === 0) break;
      for (const row of rows) {
        const seq = row[0];
        const stored = row[2];
        if (seq !== expected) {
          fail(
            VerifyCheck.Sequence,
            expected,
            `seq ${String(expected)} is missing: the next stored event is seq ${String(seq)}`,
          );
        }
        const text = row[1];
        let h = text === null ? null : chain.next(text);
        if (h !== stored) h = exactChainHash(store, chain.prev(), seq);
        if (h === null) {
          fail(
            VerifyCheck.Chain,
            seq,
            `the event at seq ${String(seq)} does not match its chain hash: it was changed, moved or replaced`,
          );
        }
        chain.advance(h);
        checked++;
        expected++;
        const seg = segments[segIndex];
        if (seg !== undefined) {
          tree.addHex(h);
          if (seq === seg.last_seq) {
            checkSegment(deps, seg, tree.root(), chain.prev(), segments[segIndex - 1]);
            segIndex++;
          }
        }
      }
      after = rows[rows.length - 1]?.[0] ?? after;
      if (options.pause) await options.pause();
    }
    if (expected !== span.to + 1) {
      fail(VerifyCheck.Sequence, expected, `seq ${String(expected)} is missing`);
    }
    const unfinished = span.isLast ? segments[segIndex] : undefined;
    if (unfinished !== undefined) {
      fail(
        VerifyCheck.Sequence,
        expected,
        `segment ${String(unfinished.segment)} seals events up to seq ${String(unfinished.last_seq)}, but the ledger ends at seq ${String(expected - 1)}`,
        unfinished.segment,
      );
    }
  } catch (err) {
    if (!(err instanceof Failed)) throw err;
    return { checked, failure: err.failure };
  }
  return { checked, failure: null };
}

/**
 * The stored hash of the event at `seq`, in hex, if the event read as columns and made
 * canonical as the writer made it chains from `prev` to that hash; else null.
 */
function exactChainHash(store: LedgerStore, prev: Buffer, seq: number): string | null {
  const row = store.rangeRows(seq - 1, seq, 1)[0];
  if (row === undefined) return null;
  const stored: unknown = row[7];
  return Buffer.isBuffer(stored) && chainHashOfRow(prev, row).equals(stored)
    ? stored.toString('hex')
    : null;
}

/** Split at segment ends into about `parts` spans of similar size; the unsealed tail goes last. */
export function splitSpans(
  segments: readonly SegmentRow[],
  headSeq: number,
  parts: number,
): Span[] {
  const spans: Span[] = [];
  let after = 0;
  let segIndex = 0;
  for (let k = 1; k < parts; k++) {
    const target = Math.round((headSeq * k) / parts);
    let i = segIndex;
    while (i < segments.length && (segments[i]?.last_seq ?? Infinity) < target) i++;
    const seg = segments[i];
    if (seg === undefined || seg.last_seq >= headSeq) break;
    if (seg.last_seq <= after) continue;
    spans.push({ after, to: seg.last_seq, segIndex, isLast: false });
    after = seg.last_seq;
    segIndex = i + 1;
  }
  spans.push({ after, to: headSeq, segIndex, isLast: true });
  return spans;
}

export async function verifyLedger(
  deps: VerifyDeps,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const { store } = deps;
  const started = performance.now();
  const head = store.head();
  const segments = store.segments();
  let checked = 0;
  let failure: VerifyFailure | null = null;
  const local = (span: Span): Promise<SpanResult> =>
    verifySpan(deps, segments, span, {
      ...(options.chunk !== undefined && { chunk: options.chunk }),
      ...(options.pause !== undefined && { pause: options.pause }),
    });

  try {
    checkSegmentList(segments);
  } catch (err) {
    if (!(err instanceof Failed)) throw err;
    failure = err.failure;
  }
  if (failure === null) {
    const runner = head.seq >= (options.parallelFrom ?? 100_000) ? (options.runner ?? null) : null;
    const parts =
      runner === null
        ? 1
        : (options.parts ?? Math.max(runner.threads + 1, Math.ceil(head.seq / SPAN_EVENTS)));
    const results = await runSpans(splitSpans(segments, head.seq, parts), local, runner);
    checked = results.reduce((n, r) => n + r.checked, 0);
    failure = results.find((r) => r.failure !== null)?.failure ?? null;
  }
  if (failure === null) {
    const swapped = pinnedKeyFailure(deps);
    if (swapped !== null) {
      failure = {
        seq: swapped.seq,
        check: VerifyCheck.Seal,
        segment: null,
        message: `the install key has fingerprint ${deps.keyFingerprint ?? ''}, but the ledger pins ${swapped.pinned} (system.installed at seq ${String(swapped.seq)}): the key was replaced, and seals made by another key prove nothing`,
      };
    }
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

/**
 * Run the spans on this thread and on the runner's threads at once: each takes the next span
 * in order when it is done with one, so a thread that starts late (a worker loading its code)
 * or runs slowly takes fewer. A worker that fails leaves its span to this thread and takes
 * no more. Results come back in span order.
 */
async function runSpans(
  spans: readonly Span[],
  local: (span: Span) => Promise<SpanResult>,
  runner: SpanRunner | null,
): Promise<SpanResult[]> {
  const results: SpanResult[] = [];
  let next = 0;
  const take = (): { index: number; span: Span } | null => {
    const index = next++;
    const span = spans[index];
    return span === undefined ? null : { index, span };
  };
  const here = async (): Promise<void> => {
    for (let job = take(); job !== null; job = take()) {
      results[job.index] = await local(job.span);
      await yieldToLoop(); // a worker's answer waits in the event loop for its next span
    }
  };
  const there = async (on: SpanRunner): Promise<void> => {
    for (let job = take(); job !== null; job = take()) {
      try {
        results[job.index] = await on.run(job.span);
      } catch {
        results[job.index] = await local(job.span);
        return;
      }
    }
  };
  // The workers take their first spans before this thread starts on its own.
  const lanes = runner === null ? [] : Array.from({ length: runner.threads }, () => there(runner));
  await Promise.all([...lanes, here()]);
  return results;
}

/** The pinned key fingerprint when the data folder's key is another one; else null. */
export function pinnedKeyFailure(deps: VerifyDeps): { seq: number; pinned: string } | null {
  if (deps.keyFingerprint === undefined) return null;
  const pin = deps.store.pinnedKey();
  return pin !== null && pin.fingerprint !== deps.keyFingerprint
    ? { seq: pin.seq, pinned: pin.fingerprint }
    : null;
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

/** A sealed segment: `digest` is the Merkle root of its recomputed chain hashes. */
function checkSegment(
  deps: VerifyDeps,
  seg: SegmentRow,
  digest: Buffer,
  chainAtEnd: Buffer,
  previous: SegmentRow | undefined,
): void {
  const at = seg.first_seq;
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

/**
 * Compare the log, whose head is `headSeq`, with a checkpoint kept elsewhere: it must not be
 * smaller nor differ, and the checkpoint must be signed by this install's key. Cheap (one row
 * read), so it runs on every verify, even when the chain's report is reused.
 */
export function checkCheckpoint(
  deps: VerifyDeps,
  note: string,
  headSeq: number,
): VerifyFailure | null {
  try {
    checkExternal(deps, note, headSeq);
    return null;
  } catch (err) {
    if (!(err instanceof Failed)) throw err;
    return err.failure;
  }
}

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

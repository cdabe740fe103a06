// Closes segments: every SEGMENT_SIZE events, and at least every SEAL_AGE_MS when events
// arrived. A seal is made only from rows read back from the database and re-verified,
// never from the in-memory copy, so a flipped bit is never sealed.
import type { Writer } from '../db/writer.js';
import type { Clock } from '../shared/clock.js';
import { sealHash, signCheckpoint, type SealKey } from './checkpoint.js';
import { saveCheckpoint } from './checkpoint-file.js';
import { chainHashOfRow } from './hash.js';
import type { DomainLedger } from './ledger.service.js';
import type { LedgerStore } from './ledger.store.js';
import { GENESIS_HASH } from './ledger.types.js';
import { merkleRoot } from './merkle.js';
import type { LedgerEvents } from './ledger.events.js';

export const SEGMENT_SIZE = 1000;
export const SEAL_AGE_MS = 10 * 60 * 1000;
export const SEALED_TYPE = 'ledger.sealed';

interface Deps {
  readonly store: LedgerStore;
  readonly ledger: DomainLedger<LedgerEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly key: SealKey;
  readonly origin: string;
  readonly log: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Where the newest seal is saved outside the database (checkpoint-file.ts). */
  readonly checkpointFile?: string;
  readonly segmentSize?: number;
  readonly sealAgeMs?: number;
}

export class SealRefusedError extends Error {
  readonly seq: number;
  constructor(seq: number) {
    super(`refusing to seal: the stored event at seq ${String(seq)} does not match its chain hash`);
    this.seq = seq;
  }
}

export function createSealer(deps: Deps) {
  const { store, ledger, writer, clock, key, origin, log } = deps;
  const size = deps.segmentSize ?? SEGMENT_SIZE;
  const maxAge = deps.sealAgeMs ?? SEAL_AGE_MS;
  let timer: NodeJS.Timeout | null = null;
  let inFlight = false;
  let lastRefusal: SealRefusedError | null = null;
  // The last sealed seq, read once and again only after a seal: afterBatch runs per commit.
  let sealedThrough: number | null = null;
  const sealedSeq = (): number => (sealedThrough ??= store.lastSegment()?.last_seq ?? 0);

  /** Seal one segment (afterSeq, toSeq]; runs inside a writer job. */
  function sealSegment(afterSeq: number, toSeq: number): void {
    const previous = store.lastSegment();
    // Rows as arrays (seq … hash): a seal reads back a thousand rows during intake.
    const rows = store.rangeRows(afterSeq, toSeq, toSeq - afterSeq);
    let prev = afterSeq === 0 ? GENESIS_HASH : store.hashAt(afterSeq);
    if (prev === null) throw new SealRefusedError(afterSeq);
    const hashes: Buffer[] = [];
    for (const row of rows) {
      const h = chainHashOfRow(prev, row);
      if (!h.equals(row[7])) throw new SealRefusedError(row[0]);
      hashes.push(row[7]);
      prev = h;
    }
    if (rows.length !== toSeq - afterSeq) throw new SealRefusedError(afterSeq + rows.length + 1);
    const digest = merkleRoot(hashes);
    const segment = (previous?.segment ?? 0) + 1;
    const checkpoint = signCheckpoint(
      {
        origin,
        size: toSeq,
        root: prev,
        segment,
        digest,
        firstSeq: afterSeq + 1,
        prevSealHash: previous ? sealHash(previous.checkpoint) : null,
      },
      key,
    );
    store.insertSegment({
      segment,
      first_seq: afterSeq + 1,
      last_seq: toSeq,
      digest,
      checkpoint,
      algorithm: key.algorithm,
      sealed_at: clock.nowIso(),
    });
    // The seal is itself an event: it reaches syslog and the JSON logs, the witnesses
    // outside this database that can catch a deleted tail or a restored old file.
    ledger.append({
      type: SEALED_TYPE,
      actor: 'system',
      data: {
        segment,
        first_seq: afterSeq + 1,
        last_seq: toSeq,
        digest: digest.toString('base64'),
        checkpoint,
      },
    });
    log.info(
      { segment, first_seq: afterSeq + 1, last_seq: toSeq, checkpoint },
      'ledger segment sealed',
    );
    const file = deps.checkpointFile;
    if (file !== undefined) {
      // After the commit only, so the file is never ahead of the database.
      writer.afterCommit(() => {
        try {
          saveCheckpoint(file, checkpoint);
        } catch (err) {
          log.error({ err, file }, 'saving the ledger checkpoint beside the database failed');
        }
      });
    }
  }

  /** Seal what is due; runs inside a writer job. Returns how many segments it sealed. */
  function sealDue(timed: boolean): number {
    let sealed = 0;
    for (;;) {
      const from = store.lastSegment()?.last_seq ?? 0;
      const head = store.head().seq;
      if (head - from >= size) {
        sealSegment(from, from + size);
      } else if (timed && head > from && isOld(from) && hasOwnEvents(from)) {
        sealSegment(from, head);
      } else {
        return sealed;
      }
      sealed++;
    }
  }

  function isOld(afterSeq: number): boolean {
    const ts = store.firstTsAfter(afterSeq);
    return ts !== null && clock.now() - Date.parse(ts) >= maxAge;
  }

  /** A lone seal event must not cause another timed seal, or the log would never rest. */
  function hasOwnEvents(afterSeq: number): boolean {
    return store.typesAfter(afterSeq).some((t) => t !== SEALED_TYPE);
  }

  function run(timed: boolean): void {
    if (inFlight) return;
    inFlight = true;
    writer
      .transact(() => sealDue(timed))
      .then(() => {
        lastRefusal = null;
      })
      .catch((err: unknown) => {
        // Stopping: the segment is sealed at the next start (sealNow), nothing is lost.
        const code = (err as { code?: unknown }).code;
        if (code === 'storage_closed') return;
        // A burst filled the writer's queue: the next committed batch tries again.
        if (code === 'storage_busy') return;
        if (err instanceof SealRefusedError) lastRefusal = err;
        log.error({ err }, 'ledger sealing failed');
      })
      .finally(() => {
        inFlight = false;
        sealedThrough = null;
      });
  }

  return {
    /** Seal complete segments now (start-up: a crash may have left one unsealed). */
    sealNow(timed = false): number {
      try {
        return writer.transactNow(() => sealDue(timed));
      } finally {
        sealedThrough = null;
      }
    },
    /** After each committed batch: seal when a segment is full. */
    afterBatch(): void {
      // The ledger's committed head is current here: afterCommit callbacks ran before.
      if (ledger.headSeq() - sealedSeq() >= size) run(false);
    },
    start(intervalMs = 30_000): void {
      timer = setInterval(() => {
        run(true);
      }, intervalMs);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = null;
    },
    lastRefusal: (): SealRefusedError | null => lastRefusal,
  };
}
export type Sealer = ReturnType<typeof createSealer>;

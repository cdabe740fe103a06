import { hash } from 'node:crypto';
import type { RawRow } from './ledger.store.js';
import type { RawEvent } from './ledger.types.js';

/**
 * The canonical JSON of an event, built by concatenation in sorted key order (actor, data,
 * reason, seq, trace_id, ts, type). `data` is already stored as canonical JSON text, so
 * this equals canonicalJson(event) without re-serialising data on the verify hot path.
 */
export function canonicalEvent(e: RawEvent): string {
  return canonicalOf(e.seq, e.ts, e.type, e.actor, e.data, e.reason, e.trace_id);
}

function canonicalOf(
  seq: number,
  ts: string,
  type: string,
  actor: string,
  data: string,
  reason: string | null,
  traceId: string | null,
): string {
  return (
    `{"actor":${JSON.stringify(actor)},"data":${data},"reason":${reason === null ? 'null' : JSON.stringify(reason)}` +
    `,"seq":${String(seq)},"trace_id":${traceId === null ? 'null' : JSON.stringify(traceId)}` +
    `,"ts":${JSON.stringify(ts)},"type":${JSON.stringify(type)}}`
  );
}

// One reusable input buffer and a one-shot `crypto.hash`: verify hashes every event, and a
// Hash object plus two updates per event cost more than the hashing itself.
let scratch = Buffer.allocUnsafe(16 * 1024);

/** hash = SHA-256(previous hash ‖ canonical JSON of the event). */
export function chainHash(prev: Uint8Array, e: RawEvent): Buffer {
  return hashText(prev, canonicalEvent(e));
}

/** chainHash of a stored row as the driver returns it in raw (array) mode. */
export function chainHashOfRow(prev: Uint8Array, row: RawRow): Buffer {
  return hashText(prev, canonicalOf(row[0], row[1], row[2], row[3], row[4], row[5], row[6]));
}

function hashText(prev: Uint8Array, text: string): Buffer {
  const most = prev.length + text.length * 3; // UTF-8 takes at most 3 bytes per UTF-16 unit
  if (most > scratch.length) scratch = Buffer.allocUnsafe(Math.max(most, scratch.length * 2));
  scratch.set(prev, 0);
  const written = scratch.write(text, prev.length, 'utf8');
  return hash('sha256', scratch.subarray(0, prev.length + written), 'buffer');
}

/**
 * The chain as verify recomputes it: one buffer holds the previous hash followed by the next
 * event's canonical text, hashed in one call; hashes go in and out as hex, which is cheaper
 * than a Buffer per event. A view per input length is kept, so hashing allocates no Buffer.
 */
export class ChainHasher {
  private buf = Buffer.allocUnsafe(16 * 1024);
  private views: (Buffer | undefined)[] = [];

  constructor(start: Uint8Array) {
    this.buf.set(start.subarray(0, 32), 0);
  }

  /** SHA-256(previous hash ‖ text) in hex; the chain does not move until advance. */
  next(text: string): string {
    const most = 32 + text.length * 3; // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (most > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(most, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, 32);
      this.buf = bigger;
      this.views = [];
    }
    const n = 32 + this.buf.write(text, 32, 'utf8');
    const view = (this.views[n] ??= this.buf.subarray(0, n));
    return hash('sha256', view, 'hex');
  }

  /** Make `hex` (a hash from next, or a stored one) the previous hash. */
  advance(hex: string): void {
    this.buf.write(hex, 0, 32, 'hex');
  }

  /** A copy of the previous hash. */
  prev(): Buffer {
    return Buffer.from(this.buf.subarray(0, 32));
  }
}

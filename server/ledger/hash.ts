import { createHash } from 'node:crypto';
import type { RawEvent } from './ledger.types.js';

/**
 * The canonical JSON of an event, built by concatenation in sorted key order (actor, data,
 * reason, seq, trace_id, ts, type). `data` is already stored as canonical JSON text, so
 * this equals canonicalJson(event) without re-serialising data on the verify hot path.
 */
export function canonicalEvent(e: RawEvent): string {
  return (
    `{"actor":${JSON.stringify(e.actor)},"data":${e.data},"reason":${e.reason === null ? 'null' : JSON.stringify(e.reason)}` +
    `,"seq":${String(e.seq)},"trace_id":${e.trace_id === null ? 'null' : JSON.stringify(e.trace_id)}` +
    `,"ts":${JSON.stringify(e.ts)},"type":${JSON.stringify(e.type)}}`
  );
}

/** hash = SHA-256(previous hash ‖ canonical JSON of the event). */
export function chainHash(prev: Uint8Array, e: RawEvent): Buffer {
  return createHash('sha256').update(prev).update(canonicalEvent(e)).digest();
}

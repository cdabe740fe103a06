// The only file of the ledger that holds SQL for events and segments.
import type { Database } from 'better-sqlite3';
import { categoryOf, type RawEvent } from './ledger.types.js';

export interface SegmentRow {
  readonly segment: number;
  readonly first_seq: number;
  readonly last_seq: number;
  readonly digest: Buffer;
  readonly checkpoint: string;
  readonly algorithm: string;
  readonly sealed_at: string;
}

/** seq, ts, type, actor, data, reason, trace_id, hash */
export type RawRow = [number, string, string, string, string, string | null, string | null, Buffer];

/** seq, the event's canonical JSON (null when a value is not text), its hash in lower-case hex */
export type CanonicalRow = [number, string | null, string];

// The text canonicalEvent (hash.ts) builds, built by SQLite: json_quote escapes exactly what
// JSON.stringify does for text (ledger.store.test.ts), so verify reads one string per event
// instead of five, and the hash as a string, not a Buffer. A value that is not text (only
// by tampering) gives null, and verify reads that row through rangeRows: json_quote would
// read a BLOB as SQLite's binary JSON, so a blob could render as the text it replaced.
const CANONICAL_SQL = `CASE WHEN typeof(ts) = 'text' AND typeof(type) = 'text' AND typeof(actor) = 'text'
    AND typeof(data) = 'text' AND typeof(reason) IN ('text', 'null') AND typeof(trace_id) IN ('text', 'null')
  THEN '{"actor":' || json_quote(actor) || ',"data":' || data || ',"reason":' || json_quote(reason)
    || ',"seq":' || seq || ',"trace_id":' || json_quote(trace_id) || ',"ts":' || json_quote(ts)
    || ',"type":' || json_quote(type) || '}' END`;

export interface Head {
  readonly seq: number;
  readonly hash: Buffer | null;
}

export function createLedgerStore(db: Database) {
  const insert = db.prepare<
    [number, string, string, string, string, string, string | null, string | null, Buffer]
  >(
    `INSERT INTO ledger (seq, ts, type, category, actor, data, reason, trace_id, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const head = db.prepare<[], { seq: number; hash: Buffer }>(
    `SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1`,
  );
  const hashAt = db.prepare<[number], { hash: Buffer }>(`SELECT hash FROM ledger WHERE seq = ?`);
  const range = db.prepare<[number, number, number], RawEvent & { hash: Buffer }>(
    `SELECT seq, ts, type, actor, data, reason, trace_id, hash FROM ledger WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  );
  const rangeRows = db
    .prepare<[number, number, number], RawRow>(
      `SELECT seq, ts, type, actor, data, reason, trace_id, hash FROM ledger WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
    )
    .raw(true);
  const rangeCanonical = db
    .prepare<[number, number, number], CanonicalRow>(
      `SELECT seq, ${CANONICAL_SQL}, CASE WHEN typeof(hash) = 'blob' THEN lower(hex(hash)) ELSE '' END FROM ledger WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
    )
    .raw(true);
  const lastSegment = db.prepare<[], SegmentRow>(
    `SELECT * FROM ledger_segments ORDER BY segment DESC LIMIT 1`,
  );
  const segments = db.prepare<[], SegmentRow>(`SELECT * FROM ledger_segments ORDER BY segment`);
  const insertSegment = db.prepare<[number, number, number, Buffer, string, string, string]>(
    `INSERT INTO ledger_segments (segment, first_seq, last_seq, digest, checkpoint, algorithm, sealed_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const typesAfter = db.prepare<[number], { type: string }>(
    `SELECT DISTINCT type FROM ledger WHERE seq > ?`,
  );
  const installed = db.prepare<[], { seq: number; data: string }>(
    `SELECT seq, data FROM ledger WHERE type = 'system.installed' ORDER BY seq LIMIT 1`,
  );
  const firstTsAfter = db.prepare<[number], { ts: string }>(
    `SELECT ts FROM ledger WHERE seq > ? ORDER BY seq LIMIT 1`,
  );

  return {
    insert(e: RawEvent, hash: Buffer): void {
      insert.run(
        e.seq,
        e.ts,
        e.type,
        categoryOf(e.type),
        e.actor,
        e.data,
        e.reason,
        e.trace_id,
        hash,
      );
    },
    head(): Head {
      const row = head.get();
      return row ? { seq: row.seq, hash: row.hash } : { seq: 0, hash: null };
    },
    hashAt: (seq: number): Buffer | null => hashAt.get(seq)?.hash ?? null,
    /** Events with afterSeq < seq <= toSeq, at most `limit`, in order. */
    range: (afterSeq: number, toSeq: number, limit: number) => range.all(afterSeq, toSeq, limit),
    /** As range, as arrays (no per-row objects from the driver): the verify hot path. */
    rangeRows: (afterSeq: number, toSeq: number, limit: number) =>
      rangeRows.all(afterSeq, toSeq, limit),
    /** As range, each event as its canonical JSON text and hash (CanonicalRow): faster still. */
    rangeCanonical: (afterSeq: number, toSeq: number, limit: number) =>
      rangeCanonical.all(afterSeq, toSeq, limit),
    lastSegment: (): SegmentRow | null => lastSegment.get() ?? null,
    segments: (): SegmentRow[] => segments.all(),
    insertSegment(s: SegmentRow): void {
      insertSegment.run(
        s.segment,
        s.first_seq,
        s.last_seq,
        s.digest,
        s.checkpoint,
        s.algorithm,
        s.sealed_at,
      );
    },
    typesAfter: (seq: number): string[] => typesAfter.all(seq).map((r) => r.type),
    firstTsAfter: (seq: number): string | null => firstTsAfter.get(seq)?.ts ?? null,
    /** The install key fingerprint the first start recorded (system.installed), with its seq. */
    pinnedKey(): { seq: number; fingerprint: string } | null {
      const row = installed.get();
      if (row === undefined) return null;
      let fingerprint: unknown;
      try {
        fingerprint = (JSON.parse(row.data) as { key_fingerprint?: unknown }).key_fingerprint;
      } catch {
        return null; // a garbled row: the chain check names it
      }
      return typeof fingerprint === 'string' ? { seq: row.seq, fingerprint } : null;
    },
  };
}
export type LedgerStore = ReturnType<typeof createLedgerStore>;

/** One event of the ledger as stored and served. */
export interface LedgerEvent {
  readonly seq: number;
  readonly ts: string;
  readonly type: string;
  readonly actor: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly reason: string | null;
  readonly trace_id: string | null;
}

/** What a caller asks to append; seq, ts and the hash are the ledger's. */
export interface AppendInput {
  readonly type: string;
  readonly actor: string;
  readonly data?: Readonly<Record<string, unknown>>;
  readonly reason?: string | null;
  readonly trace_id?: string | null;
}

/** A ledger row with its data still as canonical JSON text, as verify reads it. */
export interface RawEvent {
  readonly seq: number;
  readonly ts: string;
  readonly type: string;
  readonly actor: string;
  readonly data: string;
  readonly reason: string | null;
  readonly trace_id: string | null;
}

export const GENESIS_HASH: Buffer = Buffer.alloc(32);

export function categoryOf(type: string): string {
  const dot = type.indexOf('.');
  return dot === -1 ? type : type.slice(0, dot);
}

/** A stored row as an event: its data parsed from canonical JSON. */
export function toLedgerEvent(r: RawEvent): LedgerEvent {
  return {
    seq: r.seq,
    ts: r.ts,
    type: r.type,
    actor: r.actor,
    data: JSON.parse(r.data) as Record<string, unknown>,
    reason: r.reason,
    trace_id: r.trace_id,
  };
}

import type { Writer } from '../db/writer.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import { chainHash } from './hash.js';
import type { LedgerStore } from './ledger.store.js';
import { GENESIS_HASH, type AppendInput, type LedgerEvent } from './ledger.types.js';
import type { Projections } from './projections.js';

interface Deps {
  /** Whether a transaction is open on the store's connection. */
  readonly inTransaction: () => boolean;
  readonly store: LedgerStore;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly projections: Projections;
}

export type CommitListener = (event: LedgerEvent) => void;

export function createLedgerService({ inTransaction, store, writer, clock, projections }: Deps) {
  const listeners: CommitListener[] = [];
  let headSeq = store.head().seq;
  // The head as of the last append, so appends need no query; dropped on any rollback.
  let head: { seq: number; hash: Buffer | null } | null = null;
  writer.onRollback(() => {
    head = null;
  });

  return {
    /**
     * Append one event. Must run inside a writer job: the event commits with the state
     * changes around it, and listeners (syslog, metrics, live seq) hear it after commit.
     */
    append(input: AppendInput): LedgerEvent {
      if (!inTransaction()) throw new Error('ledger.append must run inside a writer transaction');
      const prev = head ?? store.head();
      const event: LedgerEvent = {
        seq: prev.seq + 1,
        ts: clock.nowIso(),
        type: input.type,
        actor: input.actor,
        data: input.data ?? {},
        reason: input.reason ?? null,
        trace_id: input.trace_id ?? null,
      };
      const raw = { ...event, data: canonicalJson(event.data) };
      const hash = chainHash(prev.hash ?? GENESIS_HASH, raw);
      store.insert(raw, hash);
      head = { seq: event.seq, hash };
      projections.apply(event);
      writer.afterCommit(() => {
        headSeq = Math.max(headSeq, event.seq);
        for (const l of listeners) l(event);
      });
      return event;
    },
    /** Hear every committed event, in order. */
    onCommit(listener: CommitListener): void {
      listeners.push(listener);
    },
    /** The last committed seq, without a query. */
    headSeq: (): number => headSeq,
    head: () => store.head(),
  };
}
export type LedgerService = ReturnType<typeof createLedgerService>;

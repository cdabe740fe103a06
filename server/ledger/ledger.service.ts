import type { Writer } from '../db/writer.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import type { EventAppender, EventRegistry } from './catalogue.js';
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
  /** The event catalogue: append refuses a type it lacks or data that fails its schema. */
  readonly events: EventRegistry;
}

export type CommitListener = (event: LedgerEvent) => void;

export function createLedgerService({
  inTransaction,
  store,
  writer,
  clock,
  projections,
  events,
}: Deps) {
  const listeners: CommitListener[] = [];
  let headSeq = store.head().seq;
  // The head as of the last append, so appends need no query; dropped on any rollback.
  let head: { seq: number; hash: Buffer | null } | null = null;
  writer.onRollback(() => {
    head = null;
  });

  function write(input: AppendInput): LedgerEvent {
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
  }

  return {
    /**
     * Append one event. Must run inside a writer job: the event commits with the state
     * changes around it, and listeners (syslog, metrics, live seq) hear it after commit.
     * Throws EventRefused, writing nothing, unless the type is catalogued and its data
     * matches the schema.
     */
    append(input: AppendInput): LedgerEvent {
      if (!inTransaction()) throw new Error('ledger.append must run inside a writer transaction');
      events.check(input.type, input.data ?? {});
      return write(input);
    },
    /**
     * Append an event sent from outside (POST /v1/events) whose type the service does not
     * read: the sender's record, stored as sent. (A type the service reads goes through
     * append, and its schema.)
     */
    appendIngested(input: AppendInput): LedgerEvent {
      if (!inTransaction()) throw new Error('ledger.append must run inside a writer transaction');
      return write(input);
    },
    events,
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

/** The ledger as a domain holds it: append typed on that domain's catalogue (E). */
export type DomainLedger<E> = Omit<LedgerService, 'append' | 'appendIngested'> & EventAppender<E>;

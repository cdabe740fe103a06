// Witnesses (issue 20, beyond the specification): at each pull a member shows the home its
// ledger head and its hash at the seq the home saw last, and the home answers with its own,
// so each keeps the other's latest. A ledger cannot prove by itself that it was not
// restored from an older copy or rewritten from some point on (the whole data folder,
// checkpoint file included, can be put back); its peers can: a head that went back, or a
// different hash at a seq they saw before, is recorded (keychain.witness_mismatch), kept as
// evidence, and failed by the doctor.
import type { DomainLedger } from '../ledger/index.js';
import type { KeychainEvents } from './keychain.events.js';
import type { KeychainStore } from './keychain.store.js';

export interface Checkpoint {
  readonly seq: number;
  readonly hash: string;
}

/** What one side shows the other: its head, and its hash at a seq the other asked about. */
export interface Showing {
  readonly head: Checkpoint;
  readonly at: Checkpoint | null;
}

export function isShowing(x: unknown): x is Showing {
  const s = x as Partial<Showing> | null;
  const cp = (c: unknown): c is Checkpoint =>
    typeof c === 'object' &&
    c !== null &&
    Number.isInteger((c as Checkpoint).seq) &&
    typeof (c as Checkpoint).hash === 'string' &&
    /^[0-9a-f]{0,64}$/.test((c as Checkpoint).hash);
  return typeof s === 'object' && s !== null && cp(s.head) && (s.at === null || cp(s.at));
}

/** This install's side: its head, and its hash at `seq` (when asked and it has one). */
export function showing(
  ledger: { head(): { seq: number; hash: Buffer | null } },
  hashAt: (seq: number) => Buffer | null,
  askedSeq: number | null,
): Showing {
  const head = ledger.head();
  const at = askedSeq === null || askedSeq < 1 ? null : hashAt(askedSeq);
  return {
    head: { seq: head.seq, hash: head.hash?.toString('hex') ?? '' },
    at: at === null || askedSeq === null ? null : { seq: askedSeq, hash: at.toString('hex') },
  };
}

/**
 * Inside a writer job: compare what `fp` shows with what we saw of it before; record a
 * mismatch (once) or keep the new head. Returns the kind caught, or null.
 */
export function witness(
  deps: { store: KeychainStore; ledger: DomainLedger<KeychainEvents>; now: string },
  fp: string,
  shown: Showing,
): 'rolled_back' | 'rewritten' | null {
  const { store, ledger, now } = deps;
  const before = store.witness(fp);
  let kind: 'rolled_back' | 'rewritten' | null = null;
  if (before !== null) {
    if (shown.head.seq < before.seq) kind = 'rolled_back';
    else if (shown.at !== null && shown.at.seq === before.seq && shown.at.hash !== before.hash)
      kind = 'rewritten';
    else if (shown.head.seq === before.seq && shown.head.hash !== before.hash) kind = 'rewritten';
  }
  if (kind === null) {
    // The new head is kept only once the peer has shown its hash at exactly the seq we
    // hold: a peer choosing to show another seq (or none) cannot move our evidence on.
    const proven =
      before === null ||
      (shown.at !== null && shown.at.seq === before.seq && shown.at.hash === before.hash) ||
      (shown.head.seq === before.seq && shown.head.hash === before.hash);
    if (proven) store.witnessed(fp, shown.head.seq, shown.head.hash, now);
    return null;
  }
  if (before?.mismatch === null) {
    store.mismatch(
      fp,
      `${kind}: seq ${String(before.seq)} was seen, now seq ${String(shown.head.seq)}`,
      now,
    );
    ledger.append({
      type: 'keychain.witness_mismatch',
      actor: 'system',
      data: {
        fingerprint: fp,
        kind,
        witnessed: { seq: before.seq, hash: before.hash },
        claimed: shown.head,
      },
    });
  }
  return kind;
}

// The keychain's authority log (design/keychain.md §2.1): records in canonical JSON, each
// naming the hash of the one before (prev), signed by the home that made it. Its head and
// the epoch travel in every peer message, so two installs see at once whether they agree.
import { createPublicKey, hash, sign, verify, type KeyObject } from 'node:crypto';
import { keyFingerprint } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';

export interface LogRecord {
  readonly v: 1;
  readonly keychain_id: string;
  readonly epoch: number;
  readonly seq: number;
  readonly prev: string | null;
  readonly type: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly created_at: string;
  readonly sigs: readonly { readonly fp: string; readonly sig: string }[];
}

/** Signatures over a record are over this tag and its canonical text without `sigs`. */
const LOG_TAG = 'svc-keychain/log/v1\n';

function signedText(record: Omit<LogRecord, 'sigs'> | LogRecord): Buffer {
  const { sigs: _sigs, ...unsigned } = record as LogRecord;
  return Buffer.from(LOG_TAG + canonicalJson(unsigned), 'utf8');
}

/**
 * The record's hash, hex: over what was signed, not the signatures, so that a second
 * signature (a handover's) does not change the chain.
 */
export function recordHash(record: Omit<LogRecord, 'sigs'> | LogRecord): string {
  return hash('sha256', signedText(record), 'hex');
}

/** The Ed25519 public key as records and rosters carry it: SPKI DER, base64url. */
export function exportSigPub(key: KeyObject): string {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  return pub.export({ type: 'spki', format: 'der' }).toString('base64url');
}

/** The public key of a roster entry, or null when it is not an Ed25519 SPKI key. */
export function importSigPub(text: string): KeyObject | null {
  try {
    const key = createPublicKey({
      key: Buffer.from(text, 'base64url'),
      format: 'der',
      type: 'spki',
    });
    return key.asymmetricKeyType === 'ed25519' ? key : null;
  } catch {
    return null;
  }
}

/** The fingerprint a roster's public key stands for (the install key fingerprint). */
export function fingerprintOfSigPub(text: string): string | null {
  const key = importSigPub(text);
  return key === null ? null : keyFingerprint(key);
}

/** The next record after `head` (null for the genesis), signed by `signer`. */
export function appendRecord(
  head: LogRecord | null,
  fields: { keychain_id: string; epoch: number; type: string; body: Record<string, unknown> },
  signer: { fp: string; key: KeyObject },
  createdAt: string,
): LogRecord {
  const unsigned = {
    v: 1 as const,
    keychain_id: fields.keychain_id,
    epoch: fields.epoch,
    seq: head === null ? 1 : head.seq + 1,
    prev: head === null ? null : recordHash(head),
    type: fields.type,
    body: fields.body,
    created_at: createdAt,
  };
  const sig = sign(null, signedText(unsigned), signer.key).toString('base64url');
  return { ...unsigned, sigs: [{ fp: signer.fp, sig }] };
}

const ACCEPT_TAG = 'svc-keychain/handover-accept/v1\n';

/** What a member signs to accept a handover (design §2.7): the offer it takes, bound to the log. */
export function acceptText(a: {
  keychain_id: string;
  offer_id: string;
  from: string;
  to: string;
  epoch: number;
  prev: string;
}): Buffer {
  return Buffer.from(ACCEPT_TAG + canonicalJson(a), 'utf8');
}

function verifies(text: Buffer, key: KeyObject | null, sig: string | undefined): boolean {
  if (key === null || sig === undefined) return false;
  try {
    return verify(null, text, key, Buffer.from(sig, 'base64url'));
  } catch {
    return false;
  }
}

/**
 * Checks a whole log as a member receives it: the genesis names the home whose key signs
 * it, each record follows the one before (seq and prev), stays in one keychain and epoch, and
 * is signed by the home in force at that point. A handover moves the home to a member on
 * the roster at the next epoch, signed by the old home and accepted by the new one. Returns
 * why not, or null when it holds.
 */
export function checkLog(records: readonly LogRecord[], keychainId: string): string | null {
  let homeKey: KeyObject | null = null;
  let homeFp: string | null = null;
  let epoch = 1;
  let prev: LogRecord | null = null;
  const roster = new Map<string, KeyObject | null>();
  for (const r of records) {
    if (r.keychain_id !== keychainId) return `record ${String(r.seq)} is of another keychain`;
    if (r.seq !== (prev === null ? 1 : prev.seq + 1))
      return `record ${String(r.seq)} is out of order`;
    if (r.prev !== (prev === null ? null : recordHash(prev)))
      return `record ${String(r.seq)} does not follow the one before`;
    if (prev === null) {
      if (r.type !== 'genesis') return 'the log does not start with a genesis';
      const pub = typeof r.body['sig_pub'] === 'string' ? r.body['sig_pub'] : '';
      homeKey = importSigPub(pub);
      homeFp = homeKey === null ? null : keyFingerprint(homeKey);
      if (homeFp === null || homeFp !== r.body['home_fp'])
        return 'the genesis does not name the key that signs it';
      roster.set(homeFp, homeKey);
    }
    const moves = r.type === 'handover' || r.type === 'takeover';
    if (r.epoch !== (moves ? epoch + 1 : epoch))
      return `record ${String(r.seq)} is at epoch ${String(r.epoch)}, not ${String(moves ? epoch + 1 : epoch)}`;
    if (r.type === 'takeover') {
      // Made by a member on the roster that claims the home of a silent one (design §2.7).
      const to = typeof r.body['to'] === 'string' ? r.body['to'] : '';
      const toKey = roster.get(to) ?? null;
      if (r.body['from'] !== homeFp || to === homeFp || toKey === null)
        return `record ${String(r.seq)} claims the home for an install not on the roster`;
      if (!verifies(signedText(r), toKey, r.sigs.find((s) => s.fp === to)?.sig))
        return `record ${String(r.seq)} is not signed by the install that claims the home`;
      homeKey = toKey;
      homeFp = to;
      epoch = r.epoch;
      prev = r;
      continue;
    }
    if (!verifies(signedText(r), homeKey, r.sigs.find((s) => s.fp === homeFp)?.sig))
      return `record ${String(r.seq)} is not signed by the home`;
    const fp = typeof r.body['fp'] === 'string' ? r.body['fp'] : '';
    if (r.type === 'member_add')
      roster.set(fp, importSigPub(typeof r.body['sig_pub'] === 'string' ? r.body['sig_pub'] : ''));
    if (r.type === 'member_remove') roster.delete(fp);
    if (moves) {
      const to = typeof r.body['to'] === 'string' ? r.body['to'] : '';
      const toKey = roster.get(to) ?? null;
      const accepted = acceptText({
        keychain_id: keychainId,
        offer_id: String(r.body['offer_id']),
        from: homeFp ?? '',
        to,
        epoch: r.epoch,
        prev: r.prev ?? '',
      });
      if (r.body['from'] !== homeFp || to === homeFp || toKey === null)
        return `record ${String(r.seq)} hands the home to an install not on the roster`;
      if (
        !verifies(
          accepted,
          toKey,
          typeof r.body['accept_sig'] === 'string' ? r.body['accept_sig'] : undefined,
        )
      )
        return `record ${String(r.seq)} was not accepted by the new home`;
      homeKey = toKey;
      homeFp = to;
      epoch = r.epoch;
    }
    prev = r;
  }
  return prev === null ? 'the log is empty' : null;
}

/** The home a checked log ends with, and its epoch (the genesis's, or the last handover's or take-over's). */
export function homeOfLog(records: readonly LogRecord[]): { home_fp: string; epoch: number } {
  const genesis = records[0]?.body['home_fp'];
  let home = typeof genesis === 'string' ? genesis : '';
  let epoch = records[0]?.epoch ?? 1;
  for (const r of records)
    if (r.type === 'handover' || r.type === 'takeover') {
      home = typeof r.body['to'] === 'string' ? r.body['to'] : home;
      epoch = r.epoch;
    }
  return { home_fp: home, epoch };
}

/** A roster entry as the log itself vouches for it. */
export interface LoggedMember {
  readonly fingerprint: string;
  readonly label: string;
  readonly role: 'home' | 'member';
  readonly sig_pub: string;
  readonly kx_pub: string;
  readonly address: string | null;
}

/**
 * The roster a checked log makes: the genesis and every member_add, less those removed,
 * with renames, and the home its last handover or take-over names. Keys come from the log
 * alone, so a peer's word can change no one's key.
 */
export function rosterOfLog(records: readonly LogRecord[]): LoggedMember[] {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const roster = new Map<string, Omit<LoggedMember, 'role'>>();
  for (const r of records) {
    const b = r.body;
    if (r.type === 'genesis')
      roster.set(str(b['home_fp']), {
        fingerprint: str(b['home_fp']),
        label: str(b['label']),
        sig_pub: str(b['sig_pub']),
        kx_pub: str(b['kx_pub']),
        address: null,
      });
    if (r.type === 'member_add')
      roster.set(str(b['fp']), {
        fingerprint: str(b['fp']),
        label: str(b['label']),
        sig_pub: str(b['sig_pub']),
        kx_pub: str(b['kx_pub']),
        address: typeof b['address'] === 'string' ? b['address'] : null,
      });
    if (r.type === 'member_remove') roster.delete(str(b['fp']));
    const renamed = roster.get(str(b['fp']));
    if (r.type === 'rename' && renamed !== undefined)
      roster.set(renamed.fingerprint, { ...renamed, label: str(b['label']) });
  }
  const home = homeOfLog(records).home_fp;
  return [...roster.values()].map((m) => ({
    ...m,
    role: m.fingerprint === home ? 'home' : 'member',
  }));
}

/** Two take-overs at one epoch, seen from one side: where the logs part, and each side's claim. */
export interface Fork {
  /** The first index at which the logs differ. */
  readonly at: number;
  /** Our take-over and theirs (both at the fork's epoch). */
  readonly ours: LogRecord;
  readonly theirs: LogRecord;
  /** The old home's records that only one side holds: a claimant may have missed the last pulls. */
  readonly oursOnly: readonly LogRecord[];
  readonly theirsOnly: readonly LogRecord[];
}

/**
 * Two take-overs at the same epoch (design §2.7: a partition in three, each side forced its
 * claim). After the common part, each log holds some of the old home's last records (one
 * claimant may have missed the last pulls: the old home's log is one chain, so one side's
 * are a beginning of the other's), then a take-over at the next epoch, then only records at
 * that epoch (only the latest take-over can be forked: history cannot be rewritten, nor a
 * fork stacked on a higher epoch). Null when the logs do not fork so. Checking each log
 * itself is checkLog's part; who may be believed, the caller's.
 */
export function forkBetween(known: readonly LogRecord[], next: readonly LogRecord[]): Fork | null {
  const at = known.findIndex(
    (r, j) => next[j] === undefined || recordHash(next[j]) !== recordHash(r),
  );
  if (at < 1) return null;
  const side = (log: readonly LogRecord[]) => {
    const rest = log.slice(at);
    const claim = rest.findIndex((r) => r.type === 'takeover');
    const c = rest[claim];
    if (c === undefined) return null;
    const before = rest.slice(0, claim);
    const old = log[at - 1]?.epoch;
    const ok =
      c.epoch === (old ?? 0) + 1 &&
      before.every((r) => r.epoch === old && r.type !== 'handover') &&
      rest.slice(claim).every((r) => r.epoch === c.epoch);
    return ok ? { claim: c, before } : null;
  };
  const ours = side(known);
  const theirs = side(next);
  if (ours === null || theirs === null || ours.claim.epoch !== theirs.claim.epoch) return null;
  // Both sides holding old-home records that differ at one place would be two histories.
  if (ours.before.length > 0 && theirs.before.length > 0) return null;
  return {
    at,
    ours: ours.claim,
    theirs: theirs.claim,
    oursOnly: ours.before,
    theirsOnly: theirs.before,
  };
}

/**
 * Whether a log holds, signed again by its home, every member the old home added that only
 * the other side of a fork saw (the winner adopts them, marking each copy with the hash of
 * the record it copies): a loser follows only then, so that no member is left out.
 */
export function adoptsMembers(
  missedThere: readonly LogRecord[],
  log: readonly LogRecord[],
): boolean {
  const adopted = new Set(log.map((r) => r.body['adopted']));
  return missedThere
    .filter((r) => r.type === 'member_add')
    .every((r) => adopted.has(recordHash(r)));
}

/** True when `next` wins a fork over `known`: its take-over record has the lower hash. */
export function winsFork(known: readonly LogRecord[], next: readonly LogRecord[]): boolean {
  const fork = forkBetween(known, next);
  return fork !== null && recordHash(fork.theirs) < recordHash(fork.ours);
}

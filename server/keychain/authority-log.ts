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

/**
 * Two take-overs at the same epoch (design §2.7: a partition in three, each side forced its
 * claim): the one whose record hash is lower wins, everywhere the same way. True when `next`
 * wins over `known`: both logs agree up to one record, there each holds a take-over at the
 * same epoch, `next`'s with the lower hash, and neither log goes past that epoch (only the
 * latest take-over can be forked: history cannot be rewritten, nor a fork stacked on a
 * higher epoch). Checking `next` itself is checkLog's part; who may be believed, the caller's.
 */
export function winsFork(known: readonly LogRecord[], next: readonly LogRecord[]): boolean {
  const i = known.findIndex(
    (r, j) => next[j] === undefined || recordHash(next[j]) !== recordHash(r),
  );
  if (i < 1) return false;
  const ours = known[i];
  const theirs = next[i];
  if (ours === undefined || theirs === undefined) return false;
  const atOneEpoch = (log: readonly LogRecord[]) =>
    log.slice(i).every((r) => r.epoch === ours.epoch);
  return (
    ours.type === 'takeover' &&
    theirs.type === 'takeover' &&
    ours.epoch === theirs.epoch &&
    atOneEpoch(known) &&
    atOneEpoch(next) &&
    recordHash(theirs) < recordHash(ours)
  );
}

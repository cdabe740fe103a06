// Carried parts (design/keychain.md §2.5): the home publishes each part it carries as a
// whole document with a version that only grows, and signs a manifest of it (keychain,
// part, version, digest, epoch); a member applies a part only when the signature and the
// digest hold, the epoch is not below its own and the version is above the one it has, all
// in the one transaction that applies it. No merging: the whole part is the unit.
//
// Documents hold secrets (a mail password, a connection's token), so they travel sealed to
// the member's agreement key, and the digest is keyed (HMAC with the home's part key, which
// travels in the same box): the ledgers record digests, and a plain hash of a document with
// a weak password in it would let anyone who reads a ledger test guesses against it.
import { createHmac, hash, hkdfSync, sign, verify, type KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { importAgreementPublic, openSealed, sealTo, type SealedBox } from './crypto/sealed-box.js';
import { recordHash, type LogRecord } from './authority-log.js';
import { aadFor, PARTS_AAD } from './peer-aad.js';
import type { KeychainEvents } from './keychain.events.js';
import type { KeychainStore, StateRow } from './keychain.store.js';

/** The parts a keychain can carry (spec: licence, connections, mail, signin, people, policy, branding, numbers). */
export const KEYCHAIN_PARTS = [
  'licence',
  'connections',
  'mail',
  'signin',
  'people',
  'policy',
  'branding',
  'numbers',
] as const;

/** A part this version carries. */
export type CarriedPartName = Exclude<(typeof KEYCHAIN_PARTS)[number], 'licence'>;

/** The parts whose documents travel: all but the licence, which binds the installs it lists. */
export const CARRIED_PARTS: readonly CarriedPartName[] = KEYCHAIN_PARTS.filter(
  (p): p is CarriedPartName => p !== 'licence',
);

/**
 * What a home carries: every part less those its scope skips. The licence is among them,
 * though no document of it travels: the home vouches for each member instead (licence-seat.ts).
 */
export function homeCarries(st: StateRow): string[] {
  const skip = JSON.parse(st.skip) as string[];
  return KEYCHAIN_PARTS.filter((p) => !skip.includes(p));
}

/** A domain's side of a carried part. */
export interface PartAdapter {
  readonly part: (typeof CARRIED_PARTS)[number];
  /** The document in force here. */
  document(): unknown;
  /**
   * Inside a writer job: apply a document the home carried; throws, writing nothing, when
   * it cannot. Files it carries (secrets) are written after the commit (writer.afterCommit).
   */
  apply(doc: unknown, actor: string): void;
  /**
   * Whether this install holds the carried document already, for a part whose document
   * here holds more than the home sends (the member's own people); without it, the document
   * here must be the home's.
   */
  holds?(doc: unknown): boolean;
  /** The ledger event that last changed the document here (its seq and actor), or null. */
  lastChange?(): { seq: number; actor: string } | null;
}

/** A part's signed manifest, as it travels (the document travels sealed beside it). */
export interface CarriedPart {
  readonly part: string;
  readonly version: number;
  /** The keyed digest of the document (partDigest), hex. */
  readonly sha256: string;
  readonly epoch: number;
  /** The home's signature over the manifest, base64url. */
  readonly sig: string;
}

/** What the box beside the manifests opens to: the part key and each part's document. */
export interface PartDocs {
  readonly key: string;
  readonly docs: Record<string, unknown>;
}

const PART_TAG = 'svc-keychain/part/v1\n';
const PART_KEY_INFO = 'svc-keychain/part-key/v1';

/** A plain SHA-256 of a document (sealed files, whose manifest travels encrypted). */
export function partHash(doc: unknown): string {
  return hash('sha256', canonicalJson(doc), 'hex');
}

/** The keyed digest a manifest carries and the ledgers record. */
export function partDigest(key: Buffer, doc: unknown): string {
  return createHmac('sha256', key).update(canonicalJson(doc)).digest('hex');
}

/**
 * The home's part key for a keychain: derived from its agreement private key, so it needs
 * no storage of its own, and a new home (a new epoch) has a new one. `generation` changes
 * it again each time a member is removed or leaves (partKeyGeneration): the removed install
 * held the old key, and must not test guesses against the digests published after it went.
 */
export function derivePartKey(
  agreementKey: KeyObject,
  keychainId: string,
  generation: string,
): Buffer {
  const ikm = agreementKey.export({ type: 'pkcs8', format: 'der' });
  const salt = generation === '' ? keychainId : `${keychainId}/${generation}`;
  return Buffer.from(hkdfSync('sha256', ikm, salt, PART_KEY_INFO, 32));
}

/** The part key's generation: the hash of the log's latest member_remove record, '' before any. */
export function partKeyGeneration(log: readonly LogRecord[]): string {
  const last = log.findLast((r) => r.type === 'member_remove');
  return last === undefined ? '' : recordHash(last);
}

function manifest(keychainId: string, p: Omit<CarriedPart, 'sig'>): Buffer {
  return Buffer.from(
    PART_TAG +
      canonicalJson({
        keychain_id: keychainId,
        part: p.part,
        version: p.version,
        sha256: p.sha256,
        epoch: p.epoch,
      }),
    'utf8',
  );
}

/** A part's manifest signed by `key`. */
export function signedPart(
  keychainId: string,
  p: Omit<CarriedPart, 'sig'>,
  key: KeyObject,
): CarriedPart {
  return { ...p, sig: sign(null, manifest(keychainId, p), key).toString('base64url') };
}

/** The documents sealed to one member, bound to the keychain and to that member. */
export function sealPartDocs(
  keychainId: string,
  recipient: { fp: string; kx: KeyObject },
  docs: PartDocs,
): SealedBox {
  return sealTo(
    recipient.kx,
    Buffer.from(JSON.stringify(docs), 'utf8'),
    aadFor(PARTS_AAD, keychainId, recipient.fp),
  );
}

/** The member's side of sealPartDocs; null when the box does not open or holds no key. */
export function openPartDocs(
  keychainId: string,
  self: { fp: string; agreementKey: KeyObject },
  box: unknown,
): { key: Buffer; docs: Record<string, unknown> } | null {
  try {
    const opened = JSON.parse(
      openSealed(self.agreementKey, box, aadFor(PARTS_AAD, keychainId, self.fp)).toString('utf8'),
    ) as Partial<PartDocs> | null;
    const key = Buffer.from(String(opened?.key ?? ''), 'base64url');
    const docs = opened?.docs;
    if (key.length !== 32 || typeof docs !== 'object' || docs === null || Array.isArray(docs))
      return null;
    return { key, docs };
  } catch {
    return null;
  }
}

interface Deps {
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly adapters: readonly PartAdapter[];
}

/** The home's side: publish what changed, and hand members the signed parts. */
export function createPartsHome(
  deps: Deps & {
    readonly key: KeyObject;
    /** The part key of a keychain this install is the home of (derivePartKey). */
    readonly partKey: (keychainId: string, generation: string) => Buffer;
  },
) {
  const { store, ledger, writer, adapters, key } = deps;
  // The key changes only with the log, so it is derived again only when the log head moves
  // (each pull asks twice: to publish, then to list).
  let derived: { at: string; key: Buffer } | null = null;
  const partKeyOf = (st: StateRow): Buffer => {
    const at = `${st.keychain_id}/${store.head()?.hash ?? ''}`;
    if (derived?.at !== at)
      derived = { at, key: deps.partKey(st.keychain_id, partKeyGeneration(store.log())) };
    return derived.key;
  };
  return {
    /** A new version of every carried part whose document changed since it was published. */
    async publish(): Promise<void> {
      await writer.transact(() => {
        const st = store.state();
        if (st?.role !== 'home') return;
        const carried = homeCarries(st);
        const partKey = partKeyOf(st);
        for (const a of adapters.filter((x) => carried.includes(x.part))) {
          const sha256 = partDigest(partKey, a.document());
          const last = store.part(a.part);
          // A new epoch (a new home) publishes every part again, under its own signature; so
          // does a new part key (a member removed): the same document, a new digest.
          if (last?.sha256 === sha256 && last.epoch === st.epoch) continue;
          ledger.append({
            type: 'keychain.part_published',
            actor: 'system',
            data: { part: a.part, version: (last?.version ?? 0) + 1, sha256, epoch: st.epoch },
          });
        }
      });
    },
    /**
     * The parts as published for one member: each signed manifest, and the documents sealed
     * to that member's agreement key (a part changed since publishing is left for the next
     * round). Nothing for a member whose agreement key is unknown.
     */
    list(
      st: StateRow,
      recipientFp: string,
    ): { parts: CarriedPart[]; sealed_parts: SealedBox | null } {
      const kxText = store.member(recipientFp)?.kx_pub;
      if (kxText === undefined) return { parts: [], sealed_parts: null };
      const partKey = partKeyOf(st);
      const out: CarriedPart[] = [];
      const docs: Record<string, unknown> = {};
      const carried = homeCarries(st);
      for (const a of adapters.filter((x) => carried.includes(x.part))) {
        const last = store.part(a.part);
        const doc = a.document();
        if (last === null || partDigest(partKey, doc) !== last.sha256) continue;
        const p = { part: a.part, version: last.version, sha256: last.sha256, epoch: last.epoch };
        out.push(signedPart(st.keychain_id, p, key));
        docs[a.part] = doc;
      }
      const kx = importAgreementPublic(kxText);
      return {
        parts: out,
        sealed_parts: sealPartDocs(
          st.keychain_id,
          { fp: recipientFp, kx },
          { key: partKey.toString('base64url'), docs },
        ),
      };
    },
  };
}

export type PartOutcome = { part: string; applied: boolean; reason?: string };

/**
 * The member's side: each part the home carries, checked and applied in a transaction of
 * its own (a refused part leaves the others). Returns what happened to each.
 */
export async function applyParts(
  deps: Deps & {
    readonly homeKey: KeyObject;
    readonly homeFp: string;
    /** Refusals already recorded (part, version, reason): the same one is not recorded again. */
    readonly refused?: Set<string>;
  },
  st: StateRow,
  parts: readonly CarriedPart[],
  /** The box beside the manifests, opened (openPartDocs); null when it did not open. */
  opened: { key: Buffer; docs: Record<string, unknown> } | null,
): Promise<PartOutcome[]> {
  const { store, ledger, writer, adapters, homeKey, homeFp } = deps;
  const out: PartOutcome[] = [];
  for (const p of parts) {
    const adapter = adapters.find((a) => a.part === p.part);
    if (adapter === undefined) continue; // a part this version cannot carry yet
    const doc = opened?.docs[p.part];
    let signed = false;
    try {
      signed = verify(null, manifest(st.keychain_id, p), homeKey, Buffer.from(p.sig, 'base64url'));
    } catch {
      signed = false;
    }
    const outcome = await writer.transact((): PartOutcome => {
      const now = store.state();
      const local = store.part(p.part);
      const reject = (reason: string): PartOutcome => {
        const key = `${p.part} ${String(p.version)} ${reason}`;
        if (deps.refused?.has(key) !== true) {
          deps.refused?.add(key);
          ledger.append({
            type: 'keychain.part_rejected',
            actor: 'system',
            data: { part: p.part, version: p.version, reason },
          });
        }
        return { part: p.part, applied: false, reason };
      };
      // Nothing new, and nothing changed here meanwhile (a part carried again after a scope
      // change or a release is taken again at the same version).
      if (opened === null || doc === undefined) return reject('unreadable');
      if (
        local !== null &&
        p.version === local.version &&
        p.sha256 === local.sha256 &&
        (adapter.holds?.(doc) ?? partDigest(opened.key, adapter.document()) === p.sha256)
      )
        return { part: p.part, applied: false };
      if (!signed) return reject('bad_sig');
      if (partDigest(opened.key, doc) !== p.sha256) return reject('hash');
      // The fencing check, inside the applying transaction.
      if (now === null || p.epoch < now.epoch) return reject('stale_epoch');
      if (
        local !== null &&
        (p.version < local.version || (p.version === local.version && p.sha256 !== local.sha256))
      )
        return reject('rollback');
      // The copy about to be replaced, when a person (or this install as a home) made it: the
      // event that holds it is named, so that nothing is lost without a trace.
      const before = adapter.lastChange?.() ?? null;
      try {
        adapter.apply(doc, `keychain:${homeFp}`);
      } catch (err) {
        return reject((err as Error).message.slice(0, 200));
      }
      ledger.append({
        type: 'keychain.part_synced',
        actor: 'system',
        data: {
          part: p.part,
          from_version: local?.version ?? 0,
          version: p.version,
          sha256: p.sha256,
          epoch: p.epoch,
          ...(before !== null && !before.actor.startsWith('keychain:') && { replaced: before }),
        },
      });
      return { part: p.part, applied: true };
    });
    out.push(outcome);
  }
  return out;
}

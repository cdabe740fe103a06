// Carried parts (design/keychain.md §2.5): the home publishes each part it carries as a
// whole document with a version that only grows, and signs a manifest of it (keychain,
// part, version, hash, epoch); a member applies a part only when the signature and the hash
// hold, the epoch is not below its own and the version is above the one it has, all in the
// one transaction that applies it. No merging: the whole part is the unit.
import { hash, sign, verify, type KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
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

/** The parts the keychain carries today; the others stay each install's own. */
export const CARRIED_PARTS = ['policy', 'branding'] as const;

/** What a home carries: what this version can carry, less the parts its scope skips. */
export function homeCarries(st: StateRow): string[] {
  const skip = JSON.parse(st.skip) as string[];
  return CARRIED_PARTS.filter((p) => !skip.includes(p));
}

/** A domain's side of a carried part. */
export interface PartAdapter {
  readonly part: (typeof CARRIED_PARTS)[number];
  /** The document in force here. */
  document(): unknown;
  /** Inside a writer job: apply a document the home carried; throws, writing nothing, when it cannot. */
  apply(doc: unknown, actor: string): void;
}

export interface CarriedPart {
  readonly part: string;
  readonly version: number;
  readonly sha256: string;
  readonly epoch: number;
  readonly doc: unknown;
  /** The home's Ed25519 signature over the manifest, base64url. */
  readonly sig: string;
}

const PART_TAG = 'svc-keychain/part/v1\n';

export function partHash(doc: unknown): string {
  return hash('sha256', canonicalJson(doc), 'hex');
}

function manifest(keychainId: string, p: Omit<CarriedPart, 'doc' | 'sig'>): Buffer {
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

/** A part as the home hands it out: the document with its manifest signed by `key`. */
export function signedPart(
  keychainId: string,
  p: Omit<CarriedPart, 'doc' | 'sig'>,
  doc: unknown,
  key: KeyObject,
): CarriedPart {
  return { ...p, doc, sig: sign(null, manifest(keychainId, p), key).toString('base64url') };
}

interface Deps {
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly adapters: readonly PartAdapter[];
}

/** The home's side: publish what changed, and hand members the signed parts. */
export function createPartsHome(deps: Deps & { readonly key: KeyObject }) {
  const { store, ledger, writer, adapters, key } = deps;
  return {
    /** A new version of every carried part whose document changed since it was published. */
    async publish(): Promise<void> {
      await writer.transact(() => {
        const st = store.state();
        if (st?.role !== 'home') return;
        const carried = homeCarries(st);
        for (const a of adapters.filter((x) => carried.includes(x.part))) {
          const sha256 = partHash(a.document());
          const last = store.part(a.part);
          // A new epoch (a new home) publishes every part again, under its own signature.
          if (last?.sha256 === sha256 && last.epoch === st.epoch) continue;
          ledger.append({
            type: 'keychain.part_published',
            actor: 'system',
            data: { part: a.part, version: (last?.version ?? 0) + 1, sha256, epoch: st.epoch },
          });
        }
      });
    },
    /** The parts as published, each with its signed manifest (one changed since is left for the next round). */
    list(st: StateRow): CarriedPart[] {
      const out: CarriedPart[] = [];
      const carried = homeCarries(st);
      for (const a of adapters.filter((x) => carried.includes(x.part))) {
        const last = store.part(a.part);
        const doc = a.document();
        if (last === null || partHash(doc) !== last.sha256) continue;
        const p = { part: a.part, version: last.version, sha256: last.sha256, epoch: last.epoch };
        out.push({
          ...p,
          doc,
          sig: sign(null, manifest(st.keychain_id, p), key).toString('base64url'),
        });
      }
      return out;
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
): Promise<PartOutcome[]> {
  const { store, ledger, writer, adapters, homeKey, homeFp } = deps;
  const out: PartOutcome[] = [];
  for (const p of parts) {
    const adapter = adapters.find((a) => a.part === p.part);
    if (adapter === undefined) continue; // a part this version cannot carry yet
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
      if (
        local !== null &&
        p.version === local.version &&
        p.sha256 === local.sha256 &&
        partHash(adapter.document()) === p.sha256
      )
        return { part: p.part, applied: false };
      if (!signed) return reject('bad_sig');
      if (partHash(p.doc) !== p.sha256) return reject('hash');
      // The fencing check, inside the applying transaction.
      if (now === null || p.epoch < now.epoch) return reject('stale_epoch');
      if (
        local !== null &&
        (p.version < local.version || (p.version === local.version && p.sha256 !== local.sha256))
      )
        return reject('rollback');
      try {
        adapter.apply(p.doc, `keychain:${homeFp}`);
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
        },
      });
      return { part: p.part, applied: true };
    });
    out.push(outcome);
  }
  return out;
}

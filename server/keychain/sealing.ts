// Making and applying sealed keychain files (POST /v1/keychain/seal and unseal, and
// SVC_KEYCHAIN_FILE at start): the parts the keychain carries, with a manifest signed by
// the install that sealed them. A file applies once per (keychain, content version): the
// same version again is skipped, an older one refused. On a member, parts its home carries
// are left to the home (its next pull would overwrite them anyway).
import { hash, sign, verify, type KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { ConflictError, InvalidInputError } from '../shared/errors.js';
import { importSigPub } from './authority-log.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Identity } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';
import { partHash, type PartAdapter } from './parts.js';
import { MIN_PASSPHRASE, openFile, sealFile, SealedFileError } from './sealed-file.js';

const MANIFEST_TAG = 'svc-keychain/sealed-manifest/v1\n';

interface Payload {
  readonly parts: Record<string, unknown>;
  readonly manifest: {
    readonly keychain_id: string;
    readonly source_fp: string;
    readonly content_version: number;
    readonly parts: Record<string, string>;
  };
  readonly sig: string;
}

/** The keychain a standalone install seals for: its own, named by its fingerprint. */
const standalone = (fp: string): string => `standalone:${fp}`;

function asServiceError(err: unknown): unknown {
  if (!(err instanceof SealedFileError)) return err;
  if (err.code === 'sealed_kdf_unavailable_in_fips' || err.code === 'sealed_busy')
    return new ConflictError(err.code, err.message, { why: err.message });
  return new InvalidInputError(err.code, err.message, { field: 'file' });
}

export function createSealing(deps: {
  store: KeychainStore;
  ledger: DomainLedger<KeychainEvents>;
  writer: Writer;
  clock: Clock;
  identity: Identity;
  adapters: readonly PartAdapter[];
  fips: boolean;
}) {
  const { store, ledger, writer, clock, identity, adapters, fips } = deps;

  function checkPassphrase(passphrase: string): void {
    if (passphrase.length < MIN_PASSPHRASE)
      throw new InvalidInputError(
        'invalid_input',
        `the passphrase needs at least ${String(MIN_PASSPHRASE)} characters`,
        {
          field: 'passphrase',
        },
      );
  }

  async function sealOnce(passphrase: string, actor: string) {
    const st = store.state();
    const keychainId = st?.keychain_id ?? standalone(identity.fingerprint);
    const parts = Object.fromEntries(adapters.map((a) => [a.part, a.document()]));
    const contentVersion = (store.sealed('made', keychainId)?.content_version ?? 0) + 1;
    const manifest = {
      keychain_id: keychainId,
      source_fp: identity.fingerprint,
      content_version: contentVersion,
      parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, partHash(v)])),
    };
    const sig = sign(
      null,
      Buffer.from(MANIFEST_TAG + canonicalJson(manifest)),
      identity.key,
    ).toString('base64url');
    let file: string;
    try {
      file = await sealFile(
        Buffer.from(canonicalJson({ parts, manifest, sig }), 'utf8'),
        passphrase,
        {
          keychain_id: keychainId,
          source_fp: identity.fingerprint,
          epoch: st?.epoch ?? 0,
          content_version: contentVersion,
          parts: Object.keys(parts),
          created_at: clock.nowIso(),
        },
        fips,
      );
    } catch (err) {
      throw asServiceError(err);
    }
    const sha256 = hash('sha256', file, 'hex');
    await writer.transact(() =>
      ledger.append({
        type: 'keychain.sealed',
        actor,
        data: {
          keychain_id: keychainId,
          content_version: contentVersion,
          sha256,
          kdf: fips ? 'pbkdf2-sha256' : 'scrypt',
          parts: Object.keys(parts),
        },
      }),
    );
    return {
      file,
      keychain_id: keychainId,
      content_version: contentVersion,
      parts: Object.keys(parts),
      sha256,
    };
  }

  let sealing: Promise<unknown> = Promise.resolve();

  return {
    /** A sealed file of every part this install can carry, as it holds them now. */
    seal(passphrase: string, actor: string) {
      checkPassphrase(passphrase);
      // One at a time: each file takes the next content version, never a shared one.
      const next = sealing.then(() => sealOnce(passphrase, actor));
      sealing = next.catch(() => undefined);
      return next;
    },

    /** Opens a sealed file and applies it, once per version. */
    async unseal(
      file: string,
      passphrase: string,
      actor: string,
      via: 'api' | 'SVC_KEYCHAIN_FILE',
    ) {
      let opened: Awaited<ReturnType<typeof openFile>>;
      try {
        opened = await openFile(file, passphrase, fips);
      } catch (err) {
        if (err instanceof SealedFileError)
          await writer.transact(() =>
            ledger.append({
              type: 'keychain.sealed_rejected',
              actor,
              data: { reason: err.code, via },
            }),
          );
        throw asServiceError(err);
      }
      let payload: Payload;
      try {
        payload = JSON.parse(opened.plaintext.toString('utf8')) as Payload;
      } catch {
        throw new InvalidInputError('sealed_unreadable', 'the sealed content does not read', {
          field: 'file',
        });
      }
      const { header } = opened;
      if (
        typeof payload !== 'object' ||
        payload === null ||
        typeof payload.parts !== 'object' ||
        payload.parts === null ||
        typeof payload.manifest !== 'object' ||
        payload.manifest === null ||
        typeof payload.manifest.parts !== 'object' ||
        typeof payload.sig !== 'string'
      )
        throw new InvalidInputError(
          'sealed_unreadable',
          'the sealed content is not a keychain file',
          { field: 'file' },
        );
      const m = payload.manifest;
      // Possession of the passphrase is the authority; a source this install pins must also have signed.
      const pinned = store.member(header.source_fp);
      const key: KeyObject | null = pinned === null ? null : importSigPub(pinned.sig_pub);
      const signed =
        key === null ||
        verify(
          null,
          Buffer.from(MANIFEST_TAG + canonicalJson(m)),
          key,
          Buffer.from(payload.sig, 'base64url'),
        );
      const consistent =
        m.keychain_id === header.keychain_id &&
        m.source_fp === header.source_fp &&
        m.content_version === header.content_version &&
        Object.entries(payload.parts).every(([k, v]) => m.parts[k] === partHash(v));
      if (!signed || !consistent) {
        await writer.transact(() =>
          ledger.append({
            type: 'keychain.sealed_rejected',
            actor,
            data: { reason: signed ? 'hash' : 'bad_sig', via },
          }),
        );
        throw new InvalidInputError(
          'sealed_unreadable',
          'the sealed parts do not match their signed manifest',
          { field: 'file' },
        );
      }
      const sha256 = hash('sha256', file, 'hex');
      return writer
        .transact(() => {
          const last = store.sealed('applied', header.keychain_id);
          if (last !== null && header.content_version === last.content_version)
            return {
              applied: [] as string[],
              left: [] as string[],
              content_version: header.content_version,
              skipped: 'this version was applied already',
            };
          if (last !== null && header.content_version < last.content_version) {
            ledger.append({
              type: 'keychain.sealed_rejected',
              actor,
              data: { reason: 'sealed_rollback', via },
            });
            return { rollback: last.content_version };
          }
          const st = store.state();
          const owned = st === null ? [] : (JSON.parse(st.owned) as string[]);
          // Parts the home carries here are the home's; a part this member owns is its own.
          const carried =
            st?.role === 'member'
              ? (JSON.parse(st.carried) as string[]).filter((p) => !owned.includes(p))
              : [];
          const applied: string[] = [];
          const left: string[] = [];
          for (const a of adapters) {
            if (!Object.hasOwn(payload.parts, a.part)) continue;
            if (carried.includes(a.part)) {
              left.push(a.part);
              continue;
            }
            a.apply(payload.parts[a.part], `keychain:sealed:${header.source_fp}`);
            applied.push(a.part);
          }
          ledger.append({
            type: 'keychain.sealed_file_applied',
            actor,
            data: {
              keychain_id: header.keychain_id,
              content_version: header.content_version,
              sha256,
              source_fp: header.source_fp,
              applied,
              left,
              via,
            },
          });
          return { applied, left, content_version: header.content_version, skipped: null };
        })
        .then((r) => {
          if ('rollback' in r)
            throw new ConflictError(
              'sealed_rollback',
              `version ${String(header.content_version)} is older than version ${String(r.rollback)} applied here`,
              {
                why: 'older version',
              },
            );
          return r;
        });
    },
  };
}
export type Sealing = ReturnType<typeof createSealing>;

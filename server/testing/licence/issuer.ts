// Test-only: the development licence authority, signing with the repository's development root
// (build/dev-authority/*.pem, trusted by development builds only). Each issuer makes its own
// online signing keys with key statements, as the real authority does, and issues licences,
// revocation lists, confirmations and trial codes from them.
import { createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  kidOf,
  seal,
  spkiDer,
  type Envelope,
  type SignatureAlg,
  type Signer,
} from '../../licence/document/envelope.js';
import { KEY_STATEMENT_FORMAT, type KeyUsage } from '../../licence/document/trust.js';
import {
  LICENCE_FORMAT,
  type LicenceInstall,
  type LicencePayload,
} from '../../licence/document/licence-doc.js';
import { REVOCATIONS_FORMAT, type RevocationList } from '../../licence/document/revocations-doc.js';
import { newUlid } from '../../shared/ids.js';

const REPO = join(import.meta.dirname, '..', '..', '..');

function signerOf(key: KeyObject): Signer {
  const alg: SignatureAlg = key.asymmetricKeyType === 'ed25519' ? 'Ed25519' : 'ES256';
  return { alg, kid: kidOf(key), key };
}

/** The development root's two keys (Ed25519 and P-256). */
export function developmentRoot(): { ed25519: Signer; p256: Signer } {
  const read = (f: string) =>
    createPrivateKey(readFileSync(join(REPO, 'build', 'dev-authority', f)));
  return {
    ed25519: signerOf(read('development-root-ed25519.pem')),
    p256: signerOf(read('development-root-p256.pem')),
  };
}

export interface SigningKey {
  readonly signer: Signer;
  readonly statement: Envelope;
}

export interface StatementOptions {
  readonly usage?: readonly KeyUsage[];
  readonly notBefore?: string;
  readonly notAfter?: string;
  readonly serial?: number;
  /** which root keys sign the statement (default both) */
  readonly rootAlgs?: readonly SignatureAlg[];
  /** sign with this root instead of the development root (a stranger's root) */
  readonly root?: readonly Signer[];
}

/** A fresh online key of `alg`, certified by the development root. */
export function makeSigningKey(alg: SignatureAlg, opts: StatementOptions = {}): SigningKey {
  const { privateKey } =
    alg === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const signer = signerOf(privateKey);
  const dev = developmentRoot();
  const rootAlgs = opts.rootAlgs ?? ['Ed25519', 'ES256'];
  const roots = opts.root ?? [dev.ed25519, dev.p256].filter((r) => rootAlgs.includes(r.alg));
  const statement = seal(
    KEY_STATEMENT_FORMAT,
    {
      kid: signer.kid,
      alg,
      spki: spkiDer(privateKey).toString('base64url'),
      usage: opts.usage ?? ['licence', 'confirm', 'revocations', 'trial'],
      not_before: opts.notBefore ?? '2020-01-01T00:00:00.000Z',
      not_after: opts.notAfter ?? '2099-01-01T00:00:00.000Z',
      serial: opts.serial ?? 1,
    },
    roots,
  );
  return { signer, statement };
}

/** A licence payload with sensible defaults (enterprise, a year from `now`), then `over`. */
export function licencePayload(now: string, over: Partial<LicencePayload> = {}): LicencePayload {
  const t = Date.parse(now);
  return {
    licence_id: newUlid(t),
    serial: 1,
    issued_at: new Date(t).toISOString(),
    not_before: new Date(t - 60_000).toISOString(),
    expires_at: new Date(t + 365 * 86_400_000).toISOString(),
    grace_days: 30,
    warn_days: [30, 14, 7, 1],
    customer: { id: 'cust-test', name: 'Test Customer Ltd' },
    tier: 'enterprise',
    limits: { services: 250, installs: 10 },
    site: null,
    installs: [],
    features: { keychain: true, packs: '*' },
    vouch: { self_service: 2, grant_days: 60 },
    min_revocations_seq: 0,
    ...over,
  };
}

/** A production install as a licence lists it (a random install_pub unless one is given). */
export function productionInstall(
  fingerprint: string,
  addedAt: string,
  over: Partial<LicenceInstall> = {},
): LicenceInstall {
  return {
    fingerprint,
    install_pub: randomBytes(32).toString('base64url'),
    label: 'prod',
    role: 'production',
    added_at: addedAt,
    via: 'authority',
    ...over,
  };
}

/** An issuer with one Ed25519 and one P-256 signing key. */
export function createTestIssuer() {
  const ed = makeSigningKey('Ed25519');
  const p256 = makeSigningKey('ES256');
  const pick = (algs: readonly SignatureAlg[] = ['Ed25519', 'ES256']) =>
    [ed, p256].filter((k) => algs.includes(k.signer.alg));
  return {
    ed,
    p256,
    /** Signs any document with the chosen keys, carrying their statements. */
    sign(format: string, payload: unknown, keys: readonly SigningKey[] = pick()): Envelope {
      return seal(
        format,
        payload,
        keys.map((k) => k.signer),
        keys.map((k) => k.statement),
      );
    },
    licence(payload: LicencePayload, algs?: readonly SignatureAlg[]): Envelope {
      const keys = pick(algs);
      return seal(
        LICENCE_FORMAT,
        payload,
        keys.map((k) => k.signer),
        keys.map((k) => k.statement),
      );
    },
    revocations(list: RevocationList): Envelope {
      const keys = pick();
      return seal(
        REVOCATIONS_FORMAT,
        list,
        keys.map((k) => k.signer),
        keys.map((k) => k.statement),
      );
    },
  };
}
export type TestIssuer = ReturnType<typeof createTestIssuer>;

// ML artefacts: files made outside the service (an offline training run, a causal discovery
// run) that the service may use. A file is used only when it verifies: an Ed25519 signature by
// this install over the canonical JSON of its `artefact`, and, when SVC_ML_TRUST names a key,
// a signature by that key as well. Canonical bytes, as packs are signed, so reformatting a
// file keeps it valid while changing any value breaks it.
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { keyFingerprint } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/values.js';

/** What a signed artefact file holds. */
export interface ArtefactFile {
  readonly artefact: Artefact;
  readonly signatures: readonly ArtefactSignature[];
}

export interface Artefact {
  /** What the body is; only kinds in ARTEFACT_KINDS are used. */
  readonly kind: string;
  readonly name: string;
  /** When and by what it was made, for people reading the doctor and the evidence. */
  readonly made?: string;
  readonly by?: string;
  readonly body: unknown;
}

export interface ArtefactSignature {
  readonly alg: 'ed25519';
  /** base32 SHA-256 of the signer's raw Ed25519 public key (the install key fingerprint). */
  readonly key: string;
  readonly sig: string;
}

/** A key whose signature an artefact needs. */
export interface SignerKey {
  /** For people: `this install`, `SVC_ML_TRUST`. */
  readonly name: string;
  readonly id: string;
  readonly key: KeyObject;
}

export type Verified =
  | { readonly ok: true; readonly artefact: Artefact; readonly signers: readonly string[] }
  | { readonly ok: false; readonly why: string };

const ED25519_SIG_BYTES = 64;

/** An Ed25519 key (public or private) as a signer, named for people. */
export function signerKey(name: string, key: KeyObject): SignerKey {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`${name} is a ${key.asymmetricKeyType ?? key.type} key, not Ed25519`);
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return { name, id: keyFingerprint(pub), key: pub };
}

const signedBytes = (artefact: unknown): Buffer => Buffer.from(canonicalJson(artefact), 'utf8');

/**
 * The file with one more signature by `privateKey`; an earlier signature by the same key is
 * replaced (signing again after an edit must not leave a stale one beside it).
 */
export function signArtefact(file: ArtefactFile, privateKey: KeyObject): ArtefactFile {
  if (privateKey.type !== 'private') throw new Error('the signing key must be a private key');
  const { id } = signerKey('the signing key', privateKey);
  const signature: ArtefactSignature = {
    alg: 'ed25519',
    key: id,
    sig: sign(null, signedBytes(file.artefact), privateKey).toString('base64'),
  };
  return {
    artefact: file.artefact,
    signatures: [...file.signatures.filter((s) => s.key !== id), signature],
  };
}

/** The envelope's shape, or why it is not one. */
export function artefactFileOf(value: unknown): ArtefactFile | string {
  if (!isRecord(value)) return 'the file is not a JSON object';
  const { artefact, signatures } = value;
  if (!isRecord(artefact)) return '`artefact` is missing or not an object';
  if (typeof artefact['kind'] !== 'string' || artefact['kind'] === '')
    return '`artefact.kind` is missing';
  if (typeof artefact['name'] !== 'string' || artefact['name'] === '')
    return '`artefact.name` is missing';
  if (!('body' in artefact)) return '`artefact.body` is missing';
  for (const field of ['made', 'by'] as const)
    if (field in artefact && typeof artefact[field] !== 'string')
      return `\`artefact.${field}\` is not a string`;
  if (signatures === undefined)
    return { artefact: artefact as unknown as Artefact, signatures: [] };
  if (!Array.isArray(signatures)) return '`signatures` is not a list';
  for (const [i, s] of signatures.entries()) {
    if (!isRecord(s) || typeof s['key'] !== 'string' || typeof s['sig'] !== 'string')
      return `\`signatures[${String(i)}]\` needs key and sig`;
    if (s['alg'] !== 'ed25519')
      return `\`signatures[${String(i)}].alg\` is ${JSON.stringify(s['alg'])}, not ed25519`;
  }
  return {
    artefact: artefact as unknown as Artefact,
    signatures: signatures as ArtefactSignature[],
  };
}

/** Whether `signer` signed this artefact: the signature is found by key id, then checked. */
function signedBy(file: ArtefactFile, signer: SignerKey): string | null {
  const found = file.signatures.find((s) => s.key === signer.id);
  if (found === undefined) return `not signed by ${signer.name} (key ${signer.id})`;
  const sig = Buffer.from(found.sig, 'base64');
  if (sig.length !== ED25519_SIG_BYTES)
    return `the signature by ${signer.name} is ${String(sig.length)} bytes, not 64`;
  let bytes: Buffer;
  try {
    bytes = signedBytes(file.artefact);
  } catch (err) {
    return `the artefact cannot be canonicalised: ${(err as Error).message}`;
  }
  if (!verify(null, bytes, signer.key, sig))
    return `the signature by ${signer.name} does not match: the artefact changed after signing`;
  return null;
}

/**
 * Verifies a parsed file against every key it needs (this install, and SVC_ML_TRUST when set).
 * All must have signed; the first missing or broken signature is the reason it is refused.
 */
export function verifyArtefact(value: unknown, needed: readonly SignerKey[]): Verified {
  const file = artefactFileOf(value);
  if (typeof file === 'string') return { ok: false, why: file };
  if (needed.length === 0) return { ok: false, why: 'no key to verify it with' };
  for (const signer of needed) {
    const why = signedBy(file, signer);
    if (why !== null) return { ok: false, why };
  }
  return { ok: true, artefact: file.artefact, signers: needed.map((k) => k.name) };
}

// Seals: a segment's checkpoint, written as a C2SP tlog-checkpoint in C2SP signed-note form so
// that existing transparency tooling (witnesses, note verifiers) can read and check it.
//
//   svc.ledger/<instance>                 origin
//   <size>                                tree size: the segment's last seq, decimal
//   <base64 chain hash at that seq>       root hash: commits to all history, not only the segment
//   segment <n>                           extension lines, always these four, in this order
//   digest <base64 Merkle root of the segment's event hashes>
//   first <first seq of the segment>
//   prev <base64 SHA-256 of the previous seal's full note, or - for the first segment>
//   (blank line)
//   — <key name> <base64(4-byte key id || signature)>
//
// The signature covers the note text: every line above the blank line, each ending in \n.
//
// Key ids (signed-note, "Signatures"):
// - Ed25519, type 0x01: SHA-256(key name || 0x0A || 0x01 || 32-byte raw public key)[:4].
// - ECDSA P-256, type 0x02 (used when SVC_FIPS=1): the spec assigns 0x02 to "ECDSA signatures
//   as implemented by github.com/transparency-dev/witness" and states that their key id is
//   SHA-256(DER SubjectPublicKeyInfo)[:4], without the name and type byte. We follow that, not
//   the generic name-prefixed formula, so that the reference verifier accepts our P-256 seals;
//   the signature is ASN.1 DER ECDSA over SHA-256 of the note text, as that verifier checks it.
//   Test vectors: the Sigstore Rekor and Pixel log keys.

import {
  createPublicKey,
  hash,
  sign as cryptoSign,
  verify as cryptoVerify,
  type KeyObject,
} from 'node:crypto';

export type SealAlgorithm = 'ed25519' | 'ecdsa-p256';

export interface CheckpointBody {
  origin: string;
  size: number;
  root: Buffer;
  segment: number;
  digest: Buffer;
  firstSeq: number;
  prevSealHash: Buffer | null;
}

export interface SealKey {
  algorithm: SealAlgorithm;
  name: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface NoteSignature {
  name: string;
  keyId: Buffer;
  signature: Buffer;
}

export interface ParsedCheckpoint {
  body: CheckpointBody;
  /** The signed note text (body lines, each ending in \n). */
  text: string;
  signatures: NoteSignature[];
}

export type CheckpointVerification =
  { ok: true; body: CheckpointBody } | { ok: false; why: string };

const EM_DASH = '\u2014';
const SIG_TYPE_ED25519 = 0x01;
const SIG_TYPE_ECDSA = 0x02;
const HASH_SIZE = 32;
const KEY_ID_SIZE = 4;
/** The spec asks verifiers to accept at least 16; witnesses will add cosignatures. */
const MAX_SIGNATURES = 100;
/** A seal is a few hundred bytes; refusing huge input keeps parsing cheap on hostile files. */
const MAX_NOTE_LENGTH = 64 * 1024;
/** Prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw 32-byte key follows. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const EMPTY_PREV = '-';

// ---- small helpers --------------------------------------------------------------------------

function sha256(data: string | Uint8Array): Buffer {
  return hash('sha256', data, 'buffer');
}

function hasControlChars(s: string): boolean {
  // signed-note forbids every ASCII control character except newline.
  return /[\u0000-\u0009\u000b-\u001f]/.test(s);
}

function isWellFormedUtf16(s: string): boolean {
  // A lone surrogate would be silently replaced when encoded as UTF-8 and signed.
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** Key names: non-empty, no Unicode spaces, no '+' (signed-note "Format"). */
function checkKeyName(name: string): void {
  if (name.length === 0 || /[\s+]/u.test(name) || hasControlChars(name)) {
    throw new Error(
      `invalid note key name ${JSON.stringify(name)}: it must be non-empty, without spaces or '+'`,
    );
  }
}

/** Standard base64 that re-encodes to itself, so one value has exactly one spelling. */
function decodeBase64Strict(text: string, what: string): Buffer {
  const decoded = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || decoded.toString('base64') !== text) {
    throw new Error(`${what} is not canonical standard base64: ${JSON.stringify(text)}`);
  }
  return decoded;
}

function decodeHash(text: string, what: string): Buffer {
  const decoded = decodeBase64Strict(text, what);
  if (decoded.length !== HASH_SIZE) {
    throw new Error(`${what} must be ${HASH_SIZE} bytes, got ${decoded.length}`);
  }
  return decoded;
}

/** Decimal without sign or leading zeros, as tlog-checkpoint requires of the tree size. */
function decodeDecimal(text: string, what: string): number {
  const value = Number(text);
  if (!/^(0|[1-9][0-9]*)$/.test(text) || !Number.isSafeInteger(value)) {
    throw new Error(`${what} is not a decimal integer: ${JSON.stringify(text)}`);
  }
  return value;
}

function checkBody(body: CheckpointBody): void {
  if (body.origin.length === 0 || body.origin.includes('\n') || hasControlChars(body.origin)) {
    throw new Error(`invalid checkpoint origin ${JSON.stringify(body.origin)}`);
  }
  for (const [what, n] of [
    ['size', body.size],
    ['segment', body.segment],
    ['first seq', body.firstSeq],
  ] as const) {
    if (!Number.isSafeInteger(n) || n < 0)
      throw new Error(`checkpoint ${what} must be a non-negative integer, got ${n}`);
  }
  if (body.firstSeq > body.size) {
    throw new Error(
      `checkpoint first seq ${body.firstSeq} is after its size (last seq) ${body.size}`,
    );
  }
  for (const [what, h] of [
    ['root', body.root],
    ['digest', body.digest],
    ['prev', body.prevSealHash],
  ] as const) {
    if (h !== null && h.length !== HASH_SIZE) {
      throw new Error(`checkpoint ${what} must be ${HASH_SIZE} bytes, got ${h.length}`);
    }
  }
}

// ---- keys -----------------------------------------------------------------------------------

/** Which seal algorithm a key (private or public) is for; throws for any other key. */
export function sealAlgorithmOf(key: KeyObject): SealAlgorithm {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    return 'ecdsa-p256';
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  throw new Error(
    `unsupported seal key type ${key.asymmetricKeyType ?? key.type}${curve ? ` (${curve})` : ''}: expected Ed25519 or ECDSA P-256`,
  );
}

function asPublicKey(key: KeyObject): KeyObject {
  return key.type === 'private' ? createPublicKey(key) : key;
}

/** The 32-byte raw Ed25519 public key (RFC 8032 encoding). */
export function rawEd25519PublicKey(key: KeyObject): Buffer {
  const spki = asPublicKey(key).export({ type: 'spki', format: 'der' });
  if (
    spki.length !== ED25519_SPKI_PREFIX.length + 32 ||
    !spki.subarray(0, 12).equals(ED25519_SPKI_PREFIX)
  ) {
    throw new Error('not an Ed25519 public key');
  }
  return Buffer.from(spki.subarray(ED25519_SPKI_PREFIX.length));
}

/** Signature type byte and public key encoding for a key, as signed-note and verifier keys use. */
function typedPublicKey(key: KeyObject): { type: number; bytes: Buffer } {
  return sealAlgorithmOf(key) === 'ed25519'
    ? { type: SIG_TYPE_ED25519, bytes: rawEd25519PublicKey(key) }
    : { type: SIG_TYPE_ECDSA, bytes: asPublicKey(key).export({ type: 'spki', format: 'der' }) };
}

// Key ids by key and name: verify checks a seal per 1,000 events, and exporting the key for
// each one cost more than checking the signature.
const keyIds = new WeakMap<KeyObject, Map<string, Buffer>>();

/** The 4-byte signed-note key id of (name, key). See the header comment for the P-256 rule. */
export function noteKeyId(name: string, key: KeyObject): Buffer {
  const known = keyIds.get(key)?.get(name);
  if (known !== undefined) return Buffer.from(known);
  checkKeyName(name);
  const { type, bytes } = typedPublicKey(key);
  const preimage =
    type === SIG_TYPE_ECDSA
      ? bytes
      : Buffer.concat([Buffer.from(`${name}\n`, 'utf8'), Buffer.of(type), bytes]);
  const id = sha256(preimage).subarray(0, KEY_ID_SIZE);
  const byName = keyIds.get(key) ?? new Map<string, Buffer>();
  keyIds.set(key, byName.set(name, Buffer.from(id)));
  return id;
}

/**
 * The verifier key string other note tooling is configured with:
 * `<name>+<hex key id>+<base64(type byte || public key)>`.
 */
export function noteVerifierKey(name: string, key: KeyObject): string {
  const { type, bytes } = typedPublicKey(key);
  const encoded = Buffer.concat([Buffer.of(type), bytes]).toString('base64');
  return `${name}+${noteKeyId(name, key).toString('hex')}+${encoded}`;
}

function signBytes(text: Buffer, key: KeyObject): Buffer {
  return sealAlgorithmOf(key) === 'ed25519'
    ? cryptoSign(null, text, key)
    : cryptoSign('sha256', text, { key, dsaEncoding: 'der' });
}

function verifyBytes(text: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return sealAlgorithmOf(key) === 'ed25519'
      ? cryptoVerify(null, text, key, signature)
      : cryptoVerify('sha256', text, { key, dsaEncoding: 'der' }, signature);
  } catch {
    return false; // a garbled DER signature can throw instead of returning false
  }
}

// ---- notes ----------------------------------------------------------------------------------

/** Signs any note text (ending in \n) and returns the full signed note. */
export function signNote(text: string, key: SealKey): string {
  if (!text.endsWith('\n') || hasControlChars(text) || !isWellFormedUtf16(text)) {
    throw new Error(
      'note text must end in a newline and contain no control characters other than newline',
    );
  }
  const actual = sealAlgorithmOf(key.privateKey);
  if (actual !== key.algorithm)
    throw new Error(`seal key ${key.name} is ${actual}, not ${key.algorithm}`);
  const signature = signBytes(Buffer.from(text, 'utf8'), key.privateKey);
  const blob = Buffer.concat([noteKeyId(key.name, key.publicKey), signature]).toString('base64');
  return `${text}\n${EM_DASH} ${key.name} ${blob}\n`;
}

function parseSignatureLine(line: string, lineNo: number): NoteSignature {
  const where = `signature line ${lineNo}`;
  if (!line.startsWith(`${EM_DASH} `)) {
    throw new Error(
      `${where} does not start with an em dash (U+2014) and a space: ${JSON.stringify(line)}`,
    );
  }
  const fields = line.slice(2).split(' ');
  if (fields.length !== 2) throw new Error(`${where} is not "— <key name> <base64 signature>"`);
  const [name, blob] = fields as [string, string];
  checkKeyName(name);
  const bytes = decodeBase64Strict(blob, `${where} signature`);
  if (bytes.length <= KEY_ID_SIZE)
    throw new Error(`${where} signature is too short (${bytes.length} bytes)`);
  return { name, keyId: bytes.subarray(0, KEY_ID_SIZE), signature: bytes.subarray(KEY_ID_SIZE) };
}

/** Splits a signed note into its text and signatures (signed-note syntax only). */
function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  if (note.length > MAX_NOTE_LENGTH)
    throw new Error(`note is longer than ${MAX_NOTE_LENGTH} characters`);
  if (hasControlChars(note))
    throw new Error('note contains control characters other than newline (e.g. \\r)');
  if (!isWellFormedUtf16(note)) throw new Error('note is not valid UTF-8 text');
  if (!note.endsWith('\n')) throw new Error('note does not end in a newline');
  // The text ends at the last empty line; the signature lines follow it.
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new Error('note has no blank line between its text and its signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1);
  if (lines.length === 0) throw new Error('note has no signature lines');
  const sigLines = lines.split('\n');
  if (sigLines.length > MAX_SIGNATURES)
    throw new Error(`note has more than ${MAX_SIGNATURES} signatures`);
  return { text, signatures: sigLines.map((line, i) => parseSignatureLine(line, i + 1)) };
}

// ---- checkpoints ----------------------------------------------------------------------------

/** The checkpoint's note text: the seven body lines, each ending in \n. */
export function formatCheckpointBody(body: CheckpointBody): string {
  checkBody(body);
  const prev = body.prevSealHash === null ? EMPTY_PREV : body.prevSealHash.toString('base64');
  return [
    body.origin,
    String(body.size),
    body.root.toString('base64'),
    `segment ${body.segment}`,
    `digest ${body.digest.toString('base64')}`,
    `first ${body.firstSeq}`,
    `prev ${prev}`,
    '',
  ].join('\n');
}

/** Reads one `<keyword> <value>` extension line. */
function extension(lines: readonly string[], index: number, keyword: string): string {
  const line = lines[index] ?? '';
  if (!line.startsWith(`${keyword} `)) {
    throw new Error(
      `checkpoint line ${index + 1} must be "${keyword} <value>", got ${JSON.stringify(line)}`,
    );
  }
  return line.slice(keyword.length + 1);
}

function parseCheckpointText(text: string): CheckpointBody {
  const lines = text.slice(0, -1).split('\n');
  if (lines.length !== 7) {
    throw new Error(
      `checkpoint text has ${lines.length} lines; expected 7 (origin, size, root, segment, digest, first, prev)`,
    );
  }
  const [origin, size, root] = lines as [string, string, string];
  if (origin.length === 0) throw new Error('checkpoint origin (line 1) is empty');
  const prev = extension(lines, 6, 'prev');
  const body: CheckpointBody = {
    origin,
    size: decodeDecimal(size, 'checkpoint tree size (line 2)'),
    root: decodeHash(root, 'checkpoint root hash (line 3)'),
    segment: decodeDecimal(extension(lines, 3, 'segment'), 'checkpoint segment (line 4)'),
    digest: decodeHash(extension(lines, 4, 'digest'), 'checkpoint digest (line 5)'),
    firstSeq: decodeDecimal(extension(lines, 5, 'first'), 'checkpoint first seq (line 6)'),
    prevSealHash: prev === EMPTY_PREV ? null : decodeHash(prev, 'checkpoint prev (line 7)'),
  };
  checkBody(body);
  return body;
}

/** Signs a checkpoint and returns the full signed note. */
export function signCheckpoint(body: CheckpointBody, key: SealKey): string {
  return signNote(formatCheckpointBody(body), key);
}

/** Parses a signed checkpoint without verifying it; throws a descriptive Error if malformed. */
export function parseCheckpoint(note: string): ParsedCheckpoint {
  const { text, signatures } = parseNote(note);
  return { body: parseCheckpointText(text), text, signatures };
}

/**
 * Verifies a checkpoint against one trusted key. As signed-note requires, signatures by other
 * keys (e.g. future witness cosignatures) are ignored, and the note is rejected unless a
 * signature by this key (same name and key id) is present and every such signature verifies.
 */
export function verifyCheckpoint(
  note: string,
  publicKey: KeyObject,
  name: string,
): CheckpointVerification {
  let keyId: Buffer;
  try {
    keyId = noteKeyId(name, publicKey);
  } catch (err) {
    return { ok: false, why: `unusable verification key: ${(err as Error).message}` };
  }
  let parsed: ParsedCheckpoint;
  try {
    parsed = parseCheckpoint(note);
  } catch (err) {
    return { ok: false, why: `malformed checkpoint: ${(err as Error).message}` };
  }
  const byName = parsed.signatures.filter((s) => s.name === name);
  const mine = byName.filter((s) => s.keyId.equals(keyId));
  if (mine.length === 0) {
    const why =
      byName.length > 0
        ? `the signature by ${name} has key id ${byName[0]!.keyId.toString('hex')}, expected ${keyId.toString('hex')}: signed by a different key`
        : `no signature by ${name}; signed by ${parsed.signatures.map((s) => s.name).join(', ')}`;
    return { ok: false, why };
  }
  const text = Buffer.from(parsed.text, 'utf8');
  const key = asPublicKey(publicKey);
  if (!mine.every((s) => verifyBytes(text, key, s.signature))) {
    return {
      ok: false,
      why: `the signature by ${name} does not verify: the checkpoint or its signature was altered`,
    };
  }
  return { ok: true, body: parsed.body };
}

/** SHA-256 of the full signed note: the next segment's `prev`. */
export function sealHash(note: string): Buffer {
  return sha256(Buffer.from(note, 'utf8'));
}

// The six-digit pairing code (design/keychain.md §2.4): the home commits to its nonce before
// it sees the joiner's, so neither side (nor anyone between them) can steer the code; both
// sides derive it from both public keys and both nonces, and people compare it by eye.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const COMMIT_TAG = 'svc-kc/commit/v1';
const SAS_TAG = 'svc-kc/sas/v1';

/** A fresh 256-bit nonce, hex. */
export const newNonce = (): string => randomBytes(32).toString('hex');

function digest(parts: readonly string[]): Buffer {
  const h = createHash('sha256');
  // Length-prefixed, so no two different lists hash alike.
  for (const p of parts) {
    const b = Buffer.from(p, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    h.update(len).update(b);
  }
  return h.digest();
}

/** C_H = SHA-256(tag ‖ H_pub ‖ J_pub ‖ N_H), hex. */
export function commitment(homePub: string, joinerPub: string, homeNonce: string): string {
  return digest([COMMIT_TAG, homePub, joinerPub, homeNonce]).toString('hex');
}

/** Whether a revealed nonce is the one committed to (constant time). */
export function commitmentHolds(
  commit: string,
  homePub: string,
  joinerPub: string,
  homeNonce: string,
): boolean {
  const want = Buffer.from(commitment(homePub, joinerPub, homeNonce), 'hex');
  const got = Buffer.from(commit, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

export interface CodeInputs {
  readonly keychainId: string;
  readonly requestId: string;
  readonly homePub: string;
  readonly joinerPub: string;
  readonly homeNonce: string;
  readonly joinerNonce: string;
}

/** The short authentication string: uint32_be(SHA-256(…)[0..4]) mod 10^6, six digits. */
export function pairingCode(c: CodeInputs): string {
  const d = digest([
    SAS_TAG,
    c.keychainId,
    c.requestId,
    c.homePub,
    c.joinerPub,
    c.homeNonce,
    c.joinerNonce,
  ]);
  return String(d.readUInt32BE(0) % 1_000_000).padStart(6, '0');
}

/** A typed code against the expected one, in constant time; spaces and dashes are ignored. */
export function codeMatches(typed: string, expected: string): boolean {
  const a = Buffer.from(typed.replace(/[\s-]/g, ''), 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

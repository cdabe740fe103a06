// Calls to another install's /v1/keychain/peer/*: the request signed with our install key,
// the answer checked against the key we pin for that install (its signature, and that it
// answers this request's nonce) before anything in it is believed.
import type { KeyObject } from 'node:crypto';
import { signRequest, verifyResponse } from './crypto/peer-signature.js';

export interface PeerTarget {
  /** The other install's base URL (http(s)://host:port). */
  readonly url: string;
  readonly fingerprint: string;
  /** Its pinned Ed25519 public key. */
  readonly key: KeyObject;
}

export interface Signer {
  readonly fingerprint: string;
  readonly key: KeyObject;
}

export type PeerAnswer =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly body: unknown;
      readonly retryAfterS: number | null;
      /** An unsigned 429 or 5xx (a throttle or a proxy): anyone on the path can say that. */
      readonly unsigned?: true;
    }
  /** No answer, or one we cannot believe (unsigned, wrong signer): worth another try later. */
  | { readonly kind: 'unreachable' | 'unverified'; readonly why: string; readonly status?: number };

const TIMEOUT_MS = 15_000;
/** A roster with its parts (logos included) stays well under this. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The answer's body, refused past `cap` bytes rather than held in memory whole. */
export async function readCapped(res: Response, cap: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > cap) throw new Error(`the answer is larger than ${String(cap)} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  if (res.body === null) return Buffer.alloc(0);
  for await (const chunk of res.body) {
    size += (chunk as Uint8Array).length;
    if (size > cap) throw new Error(`the answer is larger than ${String(cap)} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

function retryAfter(value: string | null): number | null {
  if (value === null) return null;
  const s = Number(value);
  return Number.isFinite(s) && s >= 0 ? Math.min(s, 3600) : null;
}

export async function callPeer(
  target: PeerTarget,
  path: string,
  payload: unknown,
  ctx: { signer: Signer; keychainId: string; epoch: number; head: string; now: number },
): Promise<PeerAnswer> {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const headers = signRequest({
    method: 'POST',
    path,
    query: '',
    body,
    keychainId: ctx.keychainId,
    from: ctx.signer.fingerprint,
    to: target.fingerprint,
    epoch: ctx.epoch,
    head: ctx.head,
    key: ctx.signer.key,
    keyid: ctx.signer.fingerprint,
    now: ctx.now,
  });
  let res: Response;
  let raw: Buffer;
  try {
    res = await fetch(new URL(path, target.url), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      // A redirect would carry the signed request elsewhere: only the pinned address answers.
      redirect: 'manual',
    });
    raw = await readCapped(res, MAX_ANSWER_BYTES);
  } catch (err) {
    return {
      kind: 'unreachable',
      why:
        (err as Error).cause instanceof Error
          ? ((err as Error).cause as Error).message
          : (err as Error).message,
    };
  }
  const lower: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    lower[k] = v;
  });
  const requestNonce = /nonce="([^"]+)"/.exec(headers['signature-input'] ?? '')?.[1] ?? '';
  const checked = verifyResponse({
    status: res.status,
    headers: lower,
    body: raw,
    now: Date.now(),
    expect: { from: target.fingerprint, to: ctx.signer.fingerprint, requestNonce },
    key: target.key,
  });
  if (!checked.ok) {
    // A throttle or a proxy answers unsigned: only a signed answer is believed.
    if (res.status === 429 || res.status >= 500)
      return {
        kind: 'answered',
        status: res.status,
        body: null,
        retryAfterS: retryAfter(res.headers.get('retry-after')),
        unsigned: true,
      };
    return {
      kind: 'unverified',
      why: `${String(res.status)}: ${checked.message}`,
      status: res.status,
    };
  }
  let body2: unknown = null;
  try {
    body2 = JSON.parse(raw.toString('utf8'));
  } catch {
    return { kind: 'unverified', why: 'the signed answer is not JSON', status: res.status };
  }
  return {
    kind: 'answered',
    status: res.status,
    body: body2,
    retryAfterS: retryAfter(res.headers.get('retry-after')),
  };
}

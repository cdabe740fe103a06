// Signed, expiring, single-use approve and deny links.
//
// A token is `<payload>.<mac>`: the payload is base64url JSON {v, r: request_id,
// d: 'approve'|'deny', e: expires_at, n: nonce, p?: the person id it was sent to}; the mac is base64url HMAC-SHA256 under the
// link key over "svc-link.v1." + payload. Anyone can read a token; no one without the key can
// make or change one. `verify` checks without using it (a page that asks "approve?" before
// the POST; mail scanners fetch links); `redeem` checks and records the use in the same
// synchronous step, so the first link used for a request wins: a replay, or the other
// decision's link, is refused, after a restart too (table channel_link_uses).
//
// The link key is 32 random bytes in <SVC_DATA>/secrets/channel-links.key, made at first
// start (0600). Deleting it invalidates every link not yet used; nothing else depends on it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../shared/clock.js';
import type { LinkUses } from './links.store.js';

export const LINK_KEY_FILE = 'channel-links.key';
const MAC_CONTEXT = 'svc-link.v1.';
const MAX_TOKEN_LENGTH = 2048;
const TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

export const LinkDecision = { Approve: 'approve', Deny: 'deny' } as const;
export type LinkDecision = (typeof LinkDecision)[keyof typeof LinkDecision];

export interface LinkPayload {
  readonly request_id: string;
  readonly decision: LinkDecision;
  /** ISO-8601 UTC */
  readonly expires_at: string;
  /** The person the link was sent to (their id): using it counts as them. */
  readonly person?: string;
}

export const LinkRefusal = {
  Malformed: 'malformed',
  BadSignature: 'bad_signature',
  Expired: 'expired',
  AlreadyUsed: 'already_used',
} as const;
export type LinkRefusal = (typeof LinkRefusal)[keyof typeof LinkRefusal];

export type LinkCheck =
  | { readonly ok: true; readonly payload: LinkPayload; readonly token_id: string }
  | {
      readonly ok: false;
      readonly reason: LinkRefusal;
      /** one line for the person who clicked; never repeats the token */
      readonly message: string;
    };

export interface LinkSignerDeps {
  /** at least 32 bytes; see loadOrCreateLinkKey */
  readonly key: Buffer;
  readonly clock: Clock;
  readonly used: LinkUses;
}

const b64 = (buf: Buffer): string => buf.toString('base64url');

const refuse = (reason: LinkRefusal, message: string): LinkCheck => ({
  ok: false,
  reason,
  message,
});

/** Loads the link key from `<dataDir>/secrets`, creating it (0600, never over another). */
export function loadOrCreateLinkKey(dataDir: string): Buffer {
  const path = join(dataDir, 'secrets', LINK_KEY_FILE);
  const read = (): Buffer | null => {
    try {
      const hex = readFileSync(path, 'utf8').trim();
      if (!/^[0-9a-f]{64,}$/.test(hex))
        throw new Error(
          `the link key ${path} is not hex of at least 32 bytes; delete it to make a new one (every unused link stops working)`,
        );
      return Buffer.from(hex, 'hex');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  };
  const existing = read();
  if (existing !== null) return existing;
  try {
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = read();
  if (key === null) throw new Error(`the link key ${path} vanished right after it was written`);
  return key;
}

export function createLinkSigner({ key, clock, used }: LinkSignerDeps) {
  if (key.length < 32) throw new Error('the link key must be at least 32 bytes');
  const mac = (payload: string): Buffer =>
    createHmac('sha256', key)
      .update(MAC_CONTEXT + payload, 'utf8')
      .digest();

  function sign(p: LinkPayload): string {
    if (p.decision !== 'approve' && p.decision !== 'deny')
      throw new Error('decision must be approve or deny');
    if (typeof p.request_id !== 'string' || p.request_id === '' || p.request_id.length > 200)
      throw new Error('request_id must be 1 to 200 characters');
    const expires = Date.parse(p.expires_at);
    if (!Number.isFinite(expires)) throw new Error('expires_at is not a valid timestamp');
    if (expires <= clock.now()) throw new Error('expires_at must be in the future');
    const payload = b64(
      Buffer.from(
        JSON.stringify({
          v: 1,
          r: p.request_id,
          d: p.decision,
          e: new Date(expires).toISOString(),
          n: randomBytes(8).toString('hex'),
          ...(p.person !== undefined && { p: p.person }),
        }),
        'utf8',
      ),
    );
    return `${payload}.${b64(mac(payload))}`;
  }

  /** Signature, shape and expiry; not whether it was used. */
  function check(token: string): LinkCheck {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN.test(token))
      return refuse('malformed', 'this link is not a valid approval link');
    const [payload = '', given = ''] = token.split('.');
    const expected = mac(payload);
    const actual = Buffer.from(given, 'base64url');
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
      return refuse('bad_signature', 'this link was not made by this service or was changed');
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return refuse('malformed', 'this link is not a valid approval link');
    }
    const b = body as { v?: unknown; r?: unknown; d?: unknown; e?: unknown; p?: unknown };
    if (
      b.v !== 1 ||
      typeof b.r !== 'string' ||
      (b.d !== 'approve' && b.d !== 'deny') ||
      typeof b.e !== 'string' ||
      !Number.isFinite(Date.parse(b.e)) ||
      (b.p !== undefined && typeof b.p !== 'string')
    )
      return refuse('malformed', 'this link is not a valid approval link');
    if (clock.now() >= Date.parse(b.e)) return refuse('expired', `this link expired at ${b.e}`);
    return {
      ok: true,
      payload: {
        request_id: b.r,
        decision: b.d,
        expires_at: b.e,
        ...(typeof b.p === 'string' && { person: b.p }),
      },
      token_id: expected.subarray(0, 16).toString('hex'),
    };
  }

  const usedRefusal = (requestId: string): LinkCheck | null => {
    const use = used.find(requestId);
    return use === null
      ? null
      : refuse(
          'already_used',
          `a link of this request was already used (${use.decision}, at ${use.used_at})`,
        );
  };

  return {
    sign,
    /** Both links of one request, expiring together; `person`: the one they are sent to. */
    signPair(
      requestId: string,
      expiresAt: string,
      person?: string,
    ): { approve: string; deny: string } {
      const to = person === undefined ? {} : { person };
      return {
        approve: sign({ request_id: requestId, decision: 'approve', expires_at: expiresAt, ...to }),
        deny: sign({ request_id: requestId, decision: 'deny', expires_at: expiresAt, ...to }),
      };
    },
    /** Whether the link would be honoured now; does not use it. */
    verify(token: string): LinkCheck {
      const c = check(token);
      if (!c.ok) return c;
      return usedRefusal(c.payload.request_id) ?? c;
    },
    /**
     * Verify and use the link: afterwards every link of its request is refused. Synchronous;
     * run it in the same writer transaction as the decision it records.
     */
    redeem(token: string): LinkCheck {
      const c = check(token);
      if (!c.ok) return c;
      const recorded = used.markUsed({
        request_id: c.payload.request_id,
        decision: c.payload.decision,
        token_id: c.token_id,
        used_at: clock.nowIso(),
      });
      if (!recorded)
        return usedRefusal(c.payload.request_id) ?? refuse('already_used', 'already used');
      return c;
    },
  };
}
export type LinkSigner = ReturnType<typeof createLinkSigner>;

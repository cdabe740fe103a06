// Signed peer requests: the signature base as RFC 9421 §2.5 builds it (checked against an
// independent construction here), round trips with Ed25519 and P-256, and every refusal in
// the order design §2.2 gives, the nonce recorded only once the signature holds.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { keyFingerprint } from '../../ledger/index.js';
import {
  MAX_BODY_BYTES,
  MAX_SKEW_S,
  NONCE_TTL_S,
  PEER_TAG,
  REQUEST_COMPONENTS,
  signRequest,
  verifyRequest,
  type PeerAlg,
} from './peer-signature.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ed = generateKeyPairSync('ed25519');
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const FROM = keyFingerprint(ed.publicKey);
const TO = keyFingerprint(generateKeyPairSync('ed25519').publicKey);
const OTHER = keyFingerprint(generateKeyPairSync('ed25519').publicKey);
const KC = 'kc_abcdefghijklmnopqrstuvwxyz';
const HEAD = 'ab'.repeat(32);
const PATH = '/v1/keychain/peer/pull';
const NONCE = Buffer.alloc(16, 7);
const BODY = Buffer.from('{"a":1}');
const b64sha = (b: Buffer) => createHash('sha256').update(b).digest('base64');

type Headers = Record<string, string>;
interface Req {
  headers: Headers;
  body: Buffer;
}

function request(o: { key?: KeyObject; body?: Buffer; now?: number; query?: string } = {}): Req {
  const body = o.body ?? BODY;
  const headers = signRequest({
    method: 'POST',
    path: PATH,
    query: o.query ?? '',
    body,
    keychainId: KC,
    from: FROM,
    to: TO,
    epoch: 3,
    head: HEAD,
    key: o.key ?? ed.privateKey,
    keyid: FROM,
    now: o.now ?? NOW,
    nonce: NONCE,
  });
  return { headers, body };
}

/** An independent RFC 9421 signer: lets a test sign what signRequest never would (another tag). */
function forge(o: { params: string; values?: Headers; key?: KeyObject; body?: Buffer }): Req {
  const body = o.body ?? BODY;
  const values: Headers = {
    '@method': 'POST',
    '@path': PATH,
    '@query': '?',
    'content-digest': `sha-256=:${b64sha(body)}:`,
    'keychain-id': KC,
    'keychain-from': FROM,
    'keychain-to': TO,
    'keychain-epoch': '3',
    'keychain-head': HEAD,
    ...o.values,
  };
  const input = `(${REQUEST_COMPONENTS.map((c) => `"${c}"`).join(' ')})${o.params}`;
  const base = [...REQUEST_COMPONENTS.map((c) => `"${c}": ${values[c] ?? ''}`)];
  base.push(`"@signature-params": ${input}`);
  const key = o.key ?? ed.privateKey;
  const hash = key.asymmetricKeyType === 'ed25519' ? null : 'sha256';
  const sig = sign(hash, Buffer.from(base.join('\n')), { key, dsaEncoding: 'ieee-p1363' });
  const headers: Headers = {};
  for (const c of REQUEST_COMPONENTS) if (!c.startsWith('@')) headers[c] = values[c] ?? '';
  headers['signature-input'] = `kc=${input}`;
  headers['signature'] = `kc=:${sig.toString('base64')}:`;
  return { headers, body };
}

const params = (o: { created?: number; tag?: string; alg?: PeerAlg } = {}) =>
  `;created=${String(o.created ?? NOW / 1000)};nonce="${NONCE.toString('base64')}"` +
  `;keyid="${FROM}";alg="${o.alg ?? 'ed25519'}";tag="${o.tag ?? PEER_TAG}"`;

function check(
  r: Req,
  o: {
    key?: KeyObject;
    refused?: 'unknown' | 'removed';
    now?: number;
    to?: string;
    keychainId?: string | null;
    seen?: boolean;
    query?: string;
    method?: string;
  } = {},
) {
  const publicKeyFor = vi.fn((_keyid: string, _alg: PeerAlg) =>
    o.refused !== undefined ? { refused: o.refused } : { key: o.key ?? ed.publicKey },
  );
  const recordNonce = vi.fn((_k: string, _n: string, _exp: number) => o.seen !== true);
  const result = verifyRequest({
    method: o.method ?? 'POST',
    path: PATH,
    query: o.query ?? '',
    headers: r.headers,
    body: r.body,
    now: o.now ?? NOW,
    expect: { keychainId: o.keychainId === undefined ? KC : o.keychainId, to: o.to ?? TO },
    publicKeyFor,
    recordNonce,
  });
  return { result, publicKeyFor, recordNonce };
}

const flipSignature = (r: Req): Req => {
  const sig = Buffer.from(r.headers['signature']?.slice(4, -1) ?? '', 'base64');
  sig[10] = (sig[10] ?? 0) ^ 1;
  return { ...r, headers: { ...r.headers, signature: `kc=:${sig.toString('base64')}:` } };
};

describe('signing a peer request', () => {
  it('writes the headers of §2.2, signed over the RFC 9421 signature base', () => {
    const r = request();
    expect(r.headers).toEqual(forge({ params: params() }).headers);
    expect(r.headers['content-digest']).toBe(`sha-256=:${b64sha(BODY)}:`);
    expect(r.headers['signature-input']).toBe(
      'kc=("@method" "@path" "@query" "content-digest" "keychain-id" "keychain-from" ' +
        '"keychain-to" "keychain-epoch" "keychain-head")' +
        params(),
    );
    expect(r.headers['signature']).toMatch(/^kc=:[A-Za-z0-9+/]{86}==:$/);
    expect(r.headers).toMatchObject({
      'keychain-id': KC,
      'keychain-from': FROM,
      'keychain-to': TO,
      'keychain-epoch': '3',
      'keychain-head': HEAD,
    });
  });

  it('draws a fresh 16-byte nonce when none is given', () => {
    const { nonce: _pinned, ...unpinned } = base();
    const a = signRequest(unpinned);
    const b = signRequest(unpinned);
    const nonceOf = (h: Headers) => /nonce="([^"]+)"/.exec(h['signature-input'] ?? '')?.[1];
    expect(Buffer.from(nonceOf(a) ?? '', 'base64')).toHaveLength(16);
    expect(nonceOf(a)).not.toBe(nonceOf(b));
  });

  it('refuses keys it cannot sign with, and nonces of another size', () => {
    expect(() => signRequest({ ...base(), key: ed.publicKey })).toThrow(TypeError);
    const x = generateKeyPairSync('x25519').privateKey;
    expect(() => signRequest({ ...base(), key: x })).toThrow(TypeError);
    expect(() => signRequest({ ...base(), nonce: Buffer.alloc(8) })).toThrow(TypeError);
  });
});

function base() {
  return {
    method: 'POST',
    path: PATH,
    query: '',
    body: BODY,
    keychainId: KC,
    from: FROM,
    to: TO,
    epoch: 3,
    head: HEAD,
    key: ed.privateKey,
    keyid: FROM,
    now: NOW,
    nonce: NONCE,
  };
}

describe('verifying a peer request', () => {
  it('accepts what it signs, asks for the key by keyid and alg, then records the nonce', () => {
    const { result, publicKeyFor, recordNonce } = check(request());
    expect(result).toEqual({
      ok: true,
      keyid: FROM,
      alg: 'ed25519',
      epoch: 3,
      head: HEAD,
      created: NOW / 1000,
      nonce: NONCE.toString('base64'),
    });
    expect(publicKeyFor).toHaveBeenCalledWith(FROM, 'ed25519');
    expect(recordNonce).toHaveBeenCalledExactlyOnceWith(
      FROM,
      NONCE.toString('base64'),
      NOW + NONCE_TTL_S * 1000,
    );
  });

  it('verifies a P-256 signature (the FIPS fallback) by its alg parameter', () => {
    const r = request({ key: p256.privateKey });
    expect(r.headers['signature-input']).toContain('alg="ecdsa-p256-sha256"');
    const ok = check(r, { key: p256.publicKey });
    expect(ok.result).toMatchObject({ ok: true, alg: 'ecdsa-p256-sha256' });
    expect(ok.publicKeyFor).toHaveBeenCalledWith(FROM, 'ecdsa-p256-sha256');
    // The pinned key must be of the kind the alg names, both ways round.
    expect(check(r).result).toMatchObject({ code: 'bad_signature' });
    const claimsEd = forge({ params: params({ alg: 'ed25519' }), key: p256.privateKey });
    expect(check(claimsEd, { key: p256.publicKey }).result).toMatchObject({
      code: 'bad_signature',
    });
    const claimsP256 = forge({ params: params({ alg: 'ecdsa-p256-sha256' }) });
    expect(check(claimsP256).result).toMatchObject({ code: 'bad_signature' });
  });

  it('reads the query and method as RFC 9421 does', () => {
    expect(check(request({ query: '' }), { query: '?' }).result.ok).toBe(true);
    expect(check(request({ query: 'a=1' }), { query: '?a=1' }).result.ok).toBe(true);
    expect(check(request(), { method: 'post' }).result.ok).toBe(true);
    expect(check(request({ query: 'a=1' }), { query: '?a=2' }).result).toMatchObject({
      code: 'bad_signature',
    });
    expect(check(request(), { method: 'PUT' }).result).toMatchObject({ code: 'bad_signature' });
  });

  // Each fault, applied with every later one: the answer must be the earliest check's.
  const LADDER = [
    ['size', 413, 'body_too_large'],
    ['headers', 400, 'bad_signature_headers'],
    ['tag', 401, 'wrong_tag'],
    ['clock', 401, 'clock_skew'],
    ['recipient', 401, 'wrong_recipient'],
    ['peer', 401, 'unknown_peer'],
    ['digest', 401, 'digest_mismatch'],
    ['signature', 401, 'bad_signature'],
    ['replay', 401, 'replay'],
  ] as const;
  type Fault = (typeof LADDER)[number][0];

  function faulty(faults: ReadonlySet<Fault>) {
    const has = (f: Fault) => faults.has(f);
    const body = has('size') ? Buffer.alloc(MAX_BODY_BYTES + 1, 0x20) : BODY;
    const created = NOW / 1000 - (has('clock') ? MAX_SKEW_S + 1 : 0);
    let r = forge({ params: params({ created, ...(has('tag') && { tag: 'other' }) }), body });
    if (has('headers')) r.headers = { ...r.headers, 'keychain-head': 'not hex' };
    if (has('digest')) r = { ...r, body: Buffer.from(body).fill(0x21, 0, 1) };
    if (has('signature')) r = flipSignature(r);
    return check(r, {
      ...(has('recipient') && { to: OTHER }),
      ...(has('peer') && { refused: 'unknown' }),
      ...(has('replay') && { seen: true }),
    });
  }

  it.each(LADDER.map((step, i) => [step[2], i] as const))(
    'answers %s when that check and every later one fail, having passed the earlier ones',
    (code, i) => {
      const [fault, status] = LADDER[i] ?? LADDER[0];
      for (const faults of [new Set([fault]), new Set(LADDER.slice(i).map((s) => s[0]))]) {
        const { result, publicKeyFor, recordNonce } = faulty(faults);
        expect(result).toMatchObject({ ok: false, status, code });
        // The sender's key is looked up only after the cheap checks; the nonce only after all.
        expect(publicKeyFor).toHaveBeenCalledTimes(i >= 5 ? 1 : 0);
        expect(recordNonce).toHaveBeenCalledTimes(i === LADDER.length - 1 ? 1 : 0);
      }
    },
  );

  it('accepts a body of exactly the limit', () => {
    const body = Buffer.alloc(MAX_BODY_BYTES, 0x20);
    expect(check(request({ body })).result.ok).toBe(true);
  });

  it('refuses a request signed 301 s ago or 301 s ahead, saying our time; 300 s passes', () => {
    for (const skew of [-301_000, 301_000]) {
      const { result, recordNonce } = check(request({ now: NOW + skew }));
      expect(result).toMatchObject({
        ok: false,
        status: 401,
        code: 'clock_skew',
        serverTime: '2026-11-28T12:00:00.000Z',
      });
      expect(recordNonce).not.toHaveBeenCalled();
    }
    for (const skew of [-300_000, 300_000])
      expect(check(request({ now: NOW + skew })).result.ok).toBe(true);
  });

  it('refuses another keychain-to, and another keychain id unless before pairing', () => {
    expect(check(request(), { to: OTHER }).result).toMatchObject({
      status: 401,
      code: 'wrong_recipient',
    });
    expect(check(request(), { keychainId: 'kc_other' }).result).toMatchObject({
      status: 401,
      code: 'wrong_recipient',
    });
    const pre = forge({ params: params(), values: { 'keychain-id': '' } });
    expect(check(pre, { keychainId: null }).result.ok).toBe(true);
    expect(check(request(), { keychainId: null }).result.ok).toBe(true);
    expect(check(pre).result).toMatchObject({ code: 'wrong_recipient' });
  });

  it('tells a removed member so (403), an unknown sender 401', () => {
    expect(check(request(), { refused: 'removed' }).result).toMatchObject({
      status: 403,
      code: 'member_removed',
    });
    expect(check(request(), { refused: 'unknown' }).result).toMatchObject({
      status: 401,
      code: 'unknown_peer',
    });
  });

  it('refuses a body changed by one byte, even with its digest recomputed', () => {
    const r = request();
    const body = Buffer.from(BODY);
    body[3] = (body[3] ?? 0) ^ 1;
    expect(check({ ...r, body }).result).toMatchObject({ code: 'digest_mismatch' });
    const rehashed = { ...r.headers, 'content-digest': `sha-256=:${b64sha(body)}:` };
    expect(check({ headers: rehashed, body }).result).toMatchObject({ code: 'bad_signature' });
  });

  it.each([
    ['keychain-epoch', '4'],
    ['keychain-head', 'cd'.repeat(32)],
    ['keychain-id', 'kc_another'],
  ])('refuses a request whose %s header was changed', (name, value) => {
    const r = request();
    const changed = { ...r, headers: { ...r.headers, [name]: value } };
    const { result, recordNonce } = check(changed, { keychainId: null });
    expect(result).toMatchObject({ status: 401, code: 'bad_signature' });
    expect(recordNonce).not.toHaveBeenCalled();
  });

  it('refuses a changed parameter (another nonce, another created time)', () => {
    const r = request();
    const input = r.headers['signature-input'] ?? '';
    for (const altered of [
      input.replace(NONCE.toString('base64'), Buffer.alloc(16, 8).toString('base64')),
      input.replace(`created=${String(NOW / 1000)}`, `created=${String(NOW / 1000 + 1)}`),
    ]) {
      const changed = { ...r, headers: { ...r.headers, 'signature-input': altered } };
      expect(check(changed).result).toMatchObject({ code: 'bad_signature' });
    }
  });

  it('refuses the same request twice against a real nonce store', () => {
    const seen = new Set<string>();
    const verifyOnce = (r: Req) =>
      verifyRequest({
        method: 'POST',
        path: PATH,
        query: '',
        headers: r.headers,
        body: r.body,
        now: NOW,
        expect: { keychainId: KC, to: TO },
        publicKeyFor: () => ({ key: ed.publicKey }),
        recordNonce: (keyid, nonce) =>
          !seen.has(`${keyid}/${nonce}`) && !!seen.add(`${keyid}/${nonce}`),
      });
    const r = request();
    expect(verifyOnce(r).ok).toBe(true);
    expect(verifyOnce(r)).toMatchObject({ ok: false, status: 401, code: 'replay' });
    expect(verifyOnce(request({ now: NOW + 1000 })).ok).toBe(false); // same nonce, later: still a replay
  });
});

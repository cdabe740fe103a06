// Signed peer requests and answers: round trips with Ed25519 and P-256, and each refusal
// in the order the checks run, the nonce recorded only once the signature holds.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { keyFingerprint } from '../../ledger/index.js';
import { signRequest, signResponse, verifyRequest, verifyResponse } from './peer-signature.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ed = generateKeyPairSync('ed25519');
const FROM = keyFingerprint(ed.publicKey);
const TO = 'B'.repeat(52);
const KC = 'kc_test';

function request(key: KeyObject = ed.privateKey, body = Buffer.from('{"a":1}'), now = NOW) {
  const headers = signRequest({
    method: 'POST',
    path: '/v1/keychain/peer/pull',
    query: '',
    body,
    keychainId: KC,
    from: FROM,
    to: TO,
    epoch: 3,
    head: 'ab'.repeat(32),
    key,
    keyid: FROM,
    now,
  });
  return { headers, body };
}

function check(
  r: { headers: Record<string, string>; body: Buffer },
  over: {
    publicKey?: KeyObject;
    refused?: 'unknown' | 'removed';
    now?: number;
    to?: string;
    recordNonce?: () => boolean;
  } = {},
) {
  const recordNonce = vi.fn(over.recordNonce ?? (() => true));
  const result = verifyRequest({
    method: 'POST',
    path: '/v1/keychain/peer/pull',
    query: '',
    headers: r.headers,
    body: r.body,
    now: over.now ?? NOW,
    expect: { keychainId: KC, to: over.to ?? TO },
    publicKeyFor: () =>
      over.refused !== undefined
        ? { refused: over.refused }
        : { key: over.publicKey ?? ed.publicKey },
    recordNonce,
  });
  return { result, recordNonce };
}

describe('peer request signatures', () => {
  it('verifies what it signs, and records the nonce once', () => {
    const { result, recordNonce } = check(request());
    expect(result).toMatchObject({ ok: true, keyid: FROM, epoch: 3, head: 'ab'.repeat(32) });
    expect(recordNonce).toHaveBeenCalledTimes(1);
  });

  it('verifies a P-256 signature (the FIPS fallback)', () => {
    const p = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const r = request(p.privateKey);
    expect(r.headers['signature-input']).toContain('alg="ecdsa-p256-sha256"');
    expect(check(r, { publicKey: p.publicKey }).result.ok).toBe(true);
    expect(check(r).result).toMatchObject({ ok: false, code: 'bad_signature' });
  });

  it.each([
    [
      'a missing header',
      (r: ReturnType<typeof request>) => ({
        ...r,
        headers: { ...r.headers, 'keychain-epoch': undefined as unknown as string },
      }),
      400,
      'bad_signature_headers',
    ],
    [
      'a component left out',
      (r: ReturnType<typeof request>) => ({
        ...r,
        headers: {
          ...r.headers,
          'signature-input': r.headers['signature-input']?.replace(' "keychain-head"', '') ?? '',
        },
      }),
      400,
      'bad_signature_headers',
    ],
    [
      'another tag',
      (r: ReturnType<typeof request>) => ({
        ...r,
        headers: {
          ...r.headers,
          'signature-input':
            r.headers['signature-input']?.replace('svc-keychain-peer-v1', 'other') ?? '',
        },
      }),
      401,
      'wrong_tag',
    ],
    [
      'a changed body',
      (r: ReturnType<typeof request>) => ({ ...r, body: Buffer.from('{"a":2}') }),
      401,
      'digest_mismatch',
    ],
    [
      'a changed epoch header',
      (r: ReturnType<typeof request>) => ({
        ...r,
        headers: { ...r.headers, 'keychain-epoch': '4' },
      }),
      401,
      'bad_signature',
    ],
  ] as const)('refuses %s, without recording the nonce', (_name, alter, status, code) => {
    const { result, recordNonce } = check(alter(request()));
    expect(result).toMatchObject({ ok: false, status, code });
    expect(recordNonce).not.toHaveBeenCalled();
  });

  it('refuses a request 301 s old or ahead, saying our time', () => {
    for (const skew of [-301_000, 301_000]) {
      const { result, recordNonce } = check(request(ed.privateKey, Buffer.from('{}'), NOW + skew));
      expect(result).toMatchObject({
        ok: false,
        status: 401,
        code: 'clock_skew',
        serverTime: new Date(NOW).toISOString(),
      });
      expect(recordNonce).not.toHaveBeenCalled();
    }
    expect(check(request(ed.privateKey, Buffer.from('{}'), NOW - 299_000)).result.ok).toBe(true);
  });

  it('refuses another recipient, an unknown and a removed sender, and a replay', () => {
    expect(check(request(), { to: 'C'.repeat(52) }).result).toMatchObject({
      code: 'wrong_recipient',
    });
    expect(check(request(), { refused: 'unknown' }).result).toMatchObject({
      status: 401,
      code: 'unknown_peer',
    });
    expect(check(request(), { refused: 'removed' }).result).toMatchObject({
      status: 403,
      code: 'member_removed',
    });
    expect(check(request(), { recordNonce: () => false }).result).toMatchObject({
      status: 401,
      code: 'replay',
    });
  });

  it('never throws on hostile headers', () => {
    for (const bad of ['', 'kc=', 'kc=()', 'kc=("@method");created=1', `kc=${'('.repeat(5000)}`]) {
      const { result } = check({
        ...request(),
        headers: { ...request().headers, 'signature-input': bad },
      });
      expect(result.ok).toBe(false);
    }
  });
});

describe('peer answer signatures', () => {
  const home = generateKeyPairSync('ed25519');
  const HOME = keyFingerprint(home.publicKey);
  const answer = (nonce: string, status = 200) => {
    const body = Buffer.from('{"ok":true}');
    const headers = signResponse({
      status,
      body,
      keychainId: KC,
      from: HOME,
      to: FROM,
      epoch: 1,
      head: '',
      requestNonce: nonce,
      key: home.privateKey,
      keyid: HOME,
      now: NOW,
    });
    return { headers, body, status };
  };
  const verifyAnswer = (a: ReturnType<typeof answer>, nonce: string) =>
    verifyResponse({
      status: a.status,
      headers: a.headers,
      body: a.body,
      now: NOW,
      expect: { from: HOME, to: FROM, requestNonce: nonce },
      key: home.publicKey,
    });

  it('binds an answer to its request: replayed to another request, it fails', () => {
    const n1 = 'AAAAAAAAAAAAAAAAAAAAAA==';
    const n2 = 'BBBBBBBBBBBBBBBBBBBBBB==';
    expect(verifyAnswer(answer(n1), n1)).toEqual({ ok: true });
    expect(verifyAnswer(answer(n1), n2)).toMatchObject({ ok: false, code: 'replay' });
  });

  it('covers the status: a 409 cannot pass for a 200', () => {
    const a = answer('AAAAAAAAAAAAAAAAAAAAAA==', 409);
    expect(verifyAnswer({ ...a, status: 200 }, 'AAAAAAAAAAAAAAAAAAAAAA==')).toMatchObject({
      ok: false,
      code: 'bad_signature',
    });
  });
});

// Signed peer answers: the status and the request's nonce are covered, so an answer cannot
// pass for another status or be replayed to another request; and a request signature cannot
// pass for an answer, nor an answer for a request.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../ledger/index.js';
import { signRequest, signResponse, verifyRequest, verifyResponse } from './peer-signature.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const member = generateKeyPairSync('ed25519');
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const FROM = keyFingerprint(member.publicKey);
const OTHER = keyFingerprint(generateKeyPairSync('ed25519').publicKey);
const KC = 'kc_abcdefghijklmnopqrstuvwxyz';
type Headers = Record<string, string>;

describe('signed peer answers', () => {
  const home = generateKeyPairSync('ed25519');
  const HOME = keyFingerprint(home.publicKey);
  const N1 = Buffer.alloc(16, 1).toString('base64');
  const N2 = Buffer.alloc(16, 2).toString('base64');
  const answer = (o: { nonce?: string; status?: number; key?: KeyObject; now?: number } = {}) => {
    const body = Buffer.from('{"ok":true}');
    const headers = signResponse({
      status: o.status ?? 200,
      body,
      keychainId: KC,
      from: HOME,
      to: FROM,
      epoch: 1,
      head: '',
      requestNonce: o.nonce ?? N1,
      key: o.key ?? home.privateKey,
      keyid: HOME,
      now: o.now ?? NOW,
    });
    return { headers, body, status: o.status ?? 200 };
  };
  const verifyAnswer = (
    a: { headers: Headers; body: Buffer; status: number },
    o: { nonce?: string; key?: KeyObject; from?: string; keychainId?: string } = {},
  ): ReturnType<typeof verifyResponse> =>
    verifyResponse({
      status: a.status,
      headers: a.headers,
      body: a.body,
      now: NOW,
      expect: {
        from: o.from ?? HOME,
        to: FROM,
        requestNonce: o.nonce ?? N1,
        ...(o.keychainId !== undefined && { keychainId: o.keychainId }),
      },
      key: o.key ?? home.publicKey,
    });

  it('verifies an answer to its request, covering the status and the request nonce', () => {
    const a = answer();
    expect(a.headers['signature-input']).toMatch(
      /^kc=\("@status" "content-digest" .* "keychain-head" "keychain-request-nonce"\);created=/,
    );
    expect(a.headers['keychain-request-nonce']).toBe(N1);
    expect(verifyAnswer(a)).toEqual({
      ok: true,
      keyid: HOME,
      alg: 'ed25519',
      epoch: 1,
      head: '',
      created: NOW / 1000,
    });
    expect(verifyAnswer(a, { keychainId: KC }).ok).toBe(true);
  });

  it('refuses an answer replayed to another request, even with the echo rewritten', () => {
    expect(verifyAnswer(answer(), { nonce: N2 })).toMatchObject({ ok: false, code: 'replay' });
    const a = answer();
    const rewritten = { ...a, headers: { ...a.headers, 'keychain-request-nonce': N2 } };
    expect(verifyAnswer(rewritten, { nonce: N2 })).toMatchObject({ code: 'bad_signature' });
  });

  it('covers the status: a 409 cannot pass for a 200', () => {
    const a = answer({ status: 409 });
    expect(verifyAnswer({ ...a, status: 200 })).toMatchObject({ code: 'bad_signature' });
  });

  it('refuses another signer, another keychain, a stale answer and a changed body', () => {
    expect(verifyAnswer(answer(), { from: OTHER })).toMatchObject({ code: 'wrong_recipient' });
    expect(verifyAnswer(answer(), { keychainId: 'kc_other' })).toMatchObject({
      code: 'wrong_recipient',
    });
    expect(verifyAnswer(answer({ now: NOW - 301_000 }))).toMatchObject({ code: 'clock_skew' });
    const a = answer();
    expect(verifyAnswer({ ...a, body: Buffer.from('{"ok":false}') })).toMatchObject({
      code: 'digest_mismatch',
    });
    const forger = generateKeyPairSync('ed25519');
    expect(verifyAnswer(answer({ key: forger.privateKey }))).toMatchObject({
      code: 'bad_signature',
    });
  });

  it('verifies a P-256 answer against a P-256 pin only', () => {
    const a = answer({ key: p256.privateKey });
    expect(verifyAnswer(a, { key: p256.publicKey }).ok).toBe(true);
    expect(verifyAnswer(a)).toMatchObject({ code: 'bad_signature' });
  });

  it('does not take a request signature for an answer, nor an answer for a request', () => {
    const body = Buffer.from('{}');
    const common = { body, keychainId: KC, epoch: 1, head: '', now: NOW };
    const r = signRequest({
      ...common,
      method: 'POST',
      path: '/v1/keychain/peer/pull',
      query: '',
      from: FROM,
      to: HOME,
      key: member.privateKey,
      keyid: FROM,
    });
    const asAnswer = verifyAnswer({ headers: r, body, status: 200 }, { from: FROM });
    expect(asAnswer).toMatchObject({ status: 400, code: 'bad_signature_headers' });
    const a = answer();
    const asRequest = verifyRequest({
      method: 'POST',
      path: '/v1/keychain/peer/pull',
      query: '',
      headers: a.headers,
      body: a.body,
      now: NOW,
      expect: { keychainId: KC, to: FROM },
      publicKeyFor: () => ({ key: home.publicKey }),
      recordNonce: () => true,
    });
    expect(asRequest).toMatchObject({ status: 400, code: 'bad_signature_headers' });
  });
});

// Signature headers read strictly: each malformed, repeated or ambiguous header is a 400
// naming that header, before any key is looked up; and hostile input never throws.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { keyFingerprint } from '../../ledger/index.js';
import {
  signRequest,
  verifyRequest,
  verifyResponse,
  type HeaderBag,
  type VerifyFailure,
} from './peer-signature.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ed = generateKeyPairSync('ed25519');
const FROM = keyFingerprint(ed.publicKey);
const TO = keyFingerprint(generateKeyPairSync('ed25519').publicKey);
const BODY = Buffer.from('{"a":1}');
const PATH = '/v1/keychain/peer/pull';

const signed = signRequest({
  method: 'POST',
  path: PATH,
  query: '',
  body: BODY,
  keychainId: 'kc_test',
  from: FROM,
  to: TO,
  epoch: 3,
  head: 'ab'.repeat(32),
  key: ed.privateKey,
  keyid: FROM,
  now: NOW,
});
const INPUT = signed['signature-input'] ?? '';
const SIG = signed['signature'] ?? '';

function check(headers: HeaderBag, o: { path?: string; query?: string } = {}) {
  const publicKeyFor = vi.fn(() => ({ key: ed.publicKey }));
  const recordNonce = vi.fn(() => true);
  const result = verifyRequest({
    method: 'POST',
    path: o.path ?? PATH,
    query: o.query ?? '',
    headers,
    body: BODY,
    now: NOW,
    expect: { keychainId: 'kc_test', to: TO },
    publicKeyFor,
    recordNonce,
  });
  return { result, publicKeyFor, recordNonce };
}

/** A 400 naming `header`, with no key looked up and no nonce kept. */
function expectRefused(headers: HeaderBag, header: string, o: { path?: string } = {}) {
  const { result, publicKeyFor, recordNonce } = check(headers, o);
  expect(result).toMatchObject({ ok: false, status: 400, code: 'bad_signature_headers' });
  expect((result as VerifyFailure).message.startsWith(`${header}: `)).toBe(true);
  expect(publicKeyFor).not.toHaveBeenCalled();
  expect(recordNonce).not.toHaveBeenCalled();
}

const b64 = (n: number, fill = 1) => Buffer.alloc(n, fill).toString('base64');
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The same bytes with a padding bit set: Node decodes it alike, a strict reader must not. */
function nonCanonical(text: string): string {
  const at = text.replace(/=+$/, '').length - 1;
  const next = ALPHABET[ALPHABET.indexOf(text[at] ?? 'A') + 1] ?? '';
  const spelled = text.slice(0, at) + next + text.slice(at + 1);
  expect(Buffer.from(spelled, 'base64')).toEqual(Buffer.from(text, 'base64'));
  return spelled;
}
const DIGEST = createHash('sha256').update(BODY).digest('base64');
const withInput = (input: string) => ({ ...signed, 'signature-input': input });

describe('peer signature headers', () => {
  it('the unaltered request passes (so each refusal below is the alteration)', () => {
    expect(check(signed).result.ok).toBe(true);
  });

  it.each(Object.keys(signed))('refuses a request without %s, or with it twice', (name) => {
    const { [name]: _dropped, ...without } = signed;
    expectRefused(without, name);
    expectRefused({ ...signed, [name]: [signed[name] ?? '', signed[name] ?? ''] }, name);
    expectRefused({ ...signed, [name]: 'x'.repeat(3000) }, name);
  });

  it.each([
    ['content-digest', `${signed['content-digest'] ?? ''}, sha-256=:${b64(32)}:`],
    ['content-digest', `sha-512=:${b64(64)}:`],
    ['content-digest', `sha-256=:${b64(31)}:`],
    ['content-digest', `sha-256=${b64(32)}`],
    // The same 32 bytes in a non-canonical spelling: one value, one way to write it.
    ['content-digest', `sha-256=:${nonCanonical(DIGEST)}:`],
    ['keychain-id', 'other'],
    ['keychain-id', 'kc_a b'],
    ['keychain-from', FROM.toLowerCase()],
    ['keychain-from', FROM.slice(0, 12)],
    ['keychain-to', `${TO}, ${TO}`],
    ['keychain-epoch', '-1'],
    ['keychain-epoch', '03'],
    ['keychain-epoch', '1.5'],
    ['keychain-epoch', '9'.repeat(16)],
    ['keychain-head', 'AB'.repeat(32)],
    ['keychain-head', 'ab'],
    ['signature', SIG.replace('kc=', 'sig1=')],
    ['signature', SIG.slice(0, -1)],
    ['signature', `kc=:${b64(63)}:`],
    ['signature', `kc=:${b64(65)}:`],
    ['signature', `${SIG}, kc=:${b64(64)}:`],
    ['signature', `kc=:${nonCanonical(SIG.slice(4, -1))}:`],
  ])('refuses %s = %j', (name, value) => {
    expectRefused({ ...signed, [name]: value }, name);
  });

  const params = INPUT.slice(INPUT.indexOf(';'));
  const list = INPUT.slice(3, INPUT.indexOf(';'));
  const nonce = /nonce="([^"]*)"/.exec(INPUT)?.[1] ?? '';
  it.each([
    ['another label', INPUT.replace(/^kc=/, 'sig=')],
    ['a second signature', `${INPUT}, sig2=${list}${params}`],
    ['a component left out', INPUT.replace(' "keychain-head"', '')],
    ['components reordered', INPUT.replace('"@path" "@query"', '"@query" "@path"')],
    ['an extra component', INPUT.replace('"keychain-head")', '"keychain-head" "content-type")')],
    ['spaces between parameters', INPUT.replace(';nonce', '; nonce')],
    ['created given twice', `${INPUT};created=1`],
    ['created as a string', INPUT.replace(/created=(\d+)/, 'created="$1"')],
    ['alg as a token', INPUT.replace('alg="ed25519"', 'alg=ed25519')],
    ['an unknown parameter', `${INPUT};expires=99999999999`],
    ['a string with an escape', INPUT.replace('tag="', 'tag="\\')],
    ['a nonce of 15 bytes', INPUT.replace(nonce, b64(15))],
    ['a nonce of 17 bytes', INPUT.replace(nonce, b64(17))],
    ['a non-canonical nonce', INPUT.replace(nonce, nonCanonical(nonce))],
    ['a keyid that is not the sender', INPUT.replace(`keyid="${FROM}"`, `keyid="${TO}"`)],
    ['a short keyid', INPUT.replace(`keyid="${FROM}"`, `keyid="${FROM.slice(0, 12)}"`)],
    ['an unaccepted alg', INPUT.replace('"ed25519"', '"rsa-pss-sha512"')],
    ['an alg of "none"', INPUT.replace('"ed25519"', '"none"')],
    ['a created time too long', INPUT.replace(/created=\d+/, `created=${'1'.repeat(13)}`)],
    ...['created', 'nonce', 'keyid', 'alg', 'tag'].map((p): [string, string] => [
      `no ${p}`,
      INPUT.replace(new RegExp(`;${p}=("[^"]*"|\\d+)`), ''),
    ]),
  ] as [string, string][])('refuses a signature-input with %s', (_what, input) => {
    expect(input).not.toBe(INPUT);
    expectRefused(withInput(input), 'signature-input');
  });

  it('refuses a target a line break could smuggle components into', () => {
    expectRefused(signed, '@path', { path: `${PATH}\n"@query": ?` });
    expectRefused(signed, '@path', { path: `${PATH} x` });
    const { result } = check(signed, { query: '?a=\u00e9' });
    expect(result).toMatchObject({ status: 400, code: 'bad_signature_headers' });
  });

  it('ignores prototype names: a header bag without own entries is headerless', () => {
    expectRefused(Object.create(signed) as HeaderBag, 'content-digest');
  });
});

describe('hostile input', () => {
  // A small seeded generator, so that a failure here replays the same way.
  function rng(seed: number) {
    let s = seed >>> 0;
    return () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
  }
  const alphabet = '"();:=,\\ \t\n\r\u0000\u00e9\u{1f600}kc=@-AZaz09+/';

  function mutate(value: string, r: () => number): string {
    const at = Math.floor(r() * (value.length + 1));
    const ch = alphabet[Math.floor(r() * alphabet.length)] ?? '';
    switch (Math.floor(r() * 5)) {
      case 0:
        return value.slice(0, at);
      case 1:
        return value.slice(0, at) + ch + value.slice(at + 1);
      case 2:
        return value.slice(0, at) + ch + value.slice(at);
      case 3:
        return value.slice(0, at) + value.slice(at).repeat(2);
      default:
        return value.slice(0, at) + value.slice(at + 1);
    }
  }

  it('never throws, and never accepts a changed header', () => {
    const r = rng(20261128);
    const names = Object.keys(signed);
    for (let i = 0; i < 2000; i++) {
      const name = names[Math.floor(r() * names.length)] ?? 'signature';
      const value = mutate(signed[name] ?? '', r);
      const headers = { ...signed, [name]: value };
      let ok: boolean | undefined;
      expect(() => (ok = check(headers).result.ok)).not.toThrow();
      if (value !== signed[name]) expect(ok, `${name}: ${JSON.stringify(value)}`).toBe(false);
    }
  });

  it('never throws on junk in place of every header, for requests and answers', () => {
    const junk: unknown[] = ['', ' ', 'kc=', 'kc=()', 'kc=:', '::', '\u0000', '('.repeat(5000)];
    junk.push(['a', 'b'], [], 42, null, { toString: () => 'x' });
    for (const value of junk) {
      const headers = Object.fromEntries(Object.keys(signed).map((k) => [k, value])) as HeaderBag;
      expect(check(headers).result.ok).toBe(false);
      const answer = verifyResponse({
        status: 200,
        headers,
        body: BODY,
        now: NOW,
        expect: { from: FROM, to: TO, requestNonce: 'x' },
        key: ed.publicKey,
      });
      expect(answer.ok).toBe(false);
    }
  });
});

import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kidOf, signBytes, signingInput } from '../document/envelope.js';
import { makeInstall } from '../../testing/licence/exchange.js';
import { readArmour, writeArmour } from './armour.js';
import { installCode } from './code.js';
import {
  buildRequest,
  examineRequest,
  parseRequest,
  REQUEST_FORMAT,
  requestHeaders,
  type RequestPayload,
} from './request.js';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const n = makeInstall();
const ask = (over: { label?: string | null } = {}) =>
  buildRequest({
    installKey: n.key,
    fingerprint: n.fingerprint,
    kind: 'machine-id',
    purpose: 'dr',
    label: over.label === undefined ? 'dr-site-b' : over.label,
    version: '1.4.2',
    licenceId: null,
    now: NOW,
  });

/** Re-signs `payload` with `key` and armours it as N would have. */
function forge(payload: unknown, key = n.key): string {
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const sig = signBytes(
    { alg: 'Ed25519', kid: kidOf(key), key },
    signingInput(REQUEST_FORMAT, bytes),
  );
  const code = installCode(bytes, Buffer.from(sig, 'base64url'));
  return writeArmour({
    label: 'SVC INSTALL REQUEST',
    headers: requestHeaders(payload as RequestPayload, code),
    payload: bytes,
    sig,
  });
}

describe('install request', () => {
  it('is signed by the install key, lives 7 days, and reads back with the same code', () => {
    const r = ask();
    expect(r.payload).toMatchObject({
      format: 'svc-install-request/1',
      fingerprint: n.fingerprint,
      kind: 'machine-id',
      install_pub: n.pub,
      purpose: 'dr',
      label: 'dr-site-b',
      version: '1.4.2',
      licence_id: null,
      created_at: '2026-11-22T10:00:00.000Z',
      expires_at: '2026-11-29T10:00:00.000Z',
    });
    expect(r.payload.req_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Buffer.from(r.payload.nonce, 'base64url')).toHaveLength(16);
    expect(r.code).toMatch(/^\d{3} \d{3}$/);
    expect(r.text).toContain(`Code: ${r.code}\n`);
    const back = parseRequest(r.text);
    expect(back.ok).toBe(true);
    if (back.ok) {
      expect(back.request.payload).toEqual(r.payload);
      expect(back.request.code).toBe(r.code);
    }
    expect(examineRequest(r.text).digits).toBe(r.code);
    expect(ask().payload.nonce).not.toBe(r.payload.nonce);
  });

  it('leaves the Label header out when there is no label', () => {
    const r = ask({ label: null });
    expect(r.text).not.toContain('Label:');
    expect(parseRequest(r.text).ok).toBe(true);
  });

  it('flags an edited header as headers_match_payload, the signature still good', () => {
    const r = ask();
    for (const edited of [
      r.text.replace('Label: dr-site-b', 'Label: production-main'),
      r.text.replace('Purpose: dr', 'Purpose: add'),
      r.text.replace(`Code: ${r.code}`, 'Code: 000 000'),
      r.text.replace(`Fingerprint: ${n.fingerprint}`, 'Fingerprint: AAAA-AAAA-AAAA-AAAA-AAAA-AAAA'),
      r.text.replace('Label: dr-site-b\n', ''),
      r.text.replace('Label: dr-site-b\n', 'Label: dr-site-b\nNote: trust me\n'),
      r.text.replace('Label:', 'label:'),
    ]) {
      const x = examineRequest(edited);
      expect(x.signature.ok).toBe(true);
      expect(x.headers.ok, edited).toBe(false);
      expect(parseRequest(edited)).toMatchObject({ ok: false, check: 'headers_match_payload' });
    }
  });

  it('flags one changed base64 character of the payload as a bad signature', () => {
    const r = ask();
    const lines = r.text.split('\n');
    const i = lines.findIndex((l) => /^[A-Za-z0-9_-]{64}$/.test(l));
    const line = lines[i] ?? '';
    lines[i] =
      (line.charAt(10) === 'A' ? 'B' : 'A').padStart(11, line.slice(0, 10)) + line.slice(11);
    const x = examineRequest(lines.join('\n'));
    expect(x.armour.ok).toBe(true);
    expect(x.signature.ok).toBe(false);
    expect(x.signed).toBeNull();
  });

  it('refuses a request signed by a key other than the install_pub inside it', () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const x = examineRequest(forge(ask().payload, other));
    expect(x.signature).toMatchObject({ ok: false });
    expect(x.format.ok).toBe(true);
  });

  it('refuses as format a payload that is not a request, even well signed', () => {
    const p = ask().payload;
    const cases: [unknown, RegExp][] = [
      [{ ...p, format: 'svc-install-grant/1' }, /format/],
      [{ ...p, purpose: 'steal' }, /purpose/],
      [{ ...p, extra: 1 }, /not a/],
      [{ ...p, expires_at: '2026-12-22T10:00:00.000Z' }, /longer than 7 days/],
      [{ ...p, expires_at: p.created_at }, /not after/],
      [{ ...p, created_at: 'yesterday' }, /created_at/],
      [{ ...p, nonce: 'short' }, /nonce/],
    ];
    for (const [payload, why] of cases) {
      const x = examineRequest(forge(payload));
      expect(x.signature.ok).toBe(true);
      expect(x.format.ok, JSON.stringify(payload)).toBe(false);
      expect(x.format.detail).toMatch(why);
      expect(x.signed).toBeNull();
    }
  });

  it('checks the signature over the request prefix only (domain separation)', () => {
    const p = ask().payload;
    const bytes = Buffer.from(JSON.stringify(p), 'utf8');
    const sig = signBytes(
      { alg: 'Ed25519', kid: kidOf(n.key), key: n.key },
      signingInput('svc-install-grant/1', bytes),
    );
    const text = writeArmour({
      label: 'SVC INSTALL REQUEST',
      headers: requestHeaders(p, installCode(bytes, Buffer.from(sig, 'base64url'))),
      payload: bytes,
      sig,
    });
    expect(examineRequest(text).signature.ok).toBe(false);
  });

  it('never throws and never accepts a mutated text (2,000+ random mutations)', () => {
    const r = ask();
    const original = r.text;
    const chars = 'AZaz09-_:.=+/ !é"{}';
    let tried = 0;
    fc.assert(
      fc.property(
        fc.constantFrom<'replace' | 'insert' | 'delete' | 'swap'>(
          'replace',
          'insert',
          'delete',
          'swap',
        ),
        fc.nat(original.length - 1),
        fc.nat(original.length - 1),
        fc.nat(chars.length - 1),
        (kind, at, at2, ci) => {
          const c = chars.charAt(ci);
          let t = original;
          const old = original.charAt(at);
          if (kind === 'replace') {
            if (c === old || (/\s/.test(c) && /\s/.test(old))) return;
            t = original.slice(0, at) + c + original.slice(at + 1);
          } else if (kind === 'insert') {
            if (/\s/.test(c)) return; // added whitespace is tolerated on purpose
            t = original.slice(0, at) + c + original.slice(at);
          } else if (kind === 'delete') {
            if (/\s/.test(old)) return;
            t = original.slice(0, at) + original.slice(at + 1);
          } else {
            const [i, j] = at < at2 ? [at, at2] : [at2, at];
            const a = original.charAt(i);
            const b = original.charAt(j);
            if (a === b || (/\s/.test(a) && /\s/.test(b))) return; // whitespace moved: tolerated
            t = original.slice(0, i) + b + original.slice(i + 1, j) + a + original.slice(j + 1);
          }
          // A swap that only moves a line break (64-character lines are a convention, not
          // part of what is signed) leaves the same text: tolerated on purpose.
          if (t.replace(/\s/g, '') === original.replace(/\s/g, '')) return;
          tried++;
          expect(parseRequest(t).ok, t).toBe(false);
        },
      ),
      { numRuns: 3000 },
    );
    expect(tried).toBeGreaterThanOrEqual(2000);
  });

  it('reads the armour it checks, not a stray one', () => {
    expect(readArmour(ask().text, { label: 'SVC INSTALL GRANT' }).ok).toBe(false);
    expect(examineRequest('nothing').armour.ok).toBe(false);
    expect(examineRequest(undefined).digits).toBeNull();
  });
});

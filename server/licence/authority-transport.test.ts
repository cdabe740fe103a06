// The transport's pure parts: NO_PROXY matching (as undici reads it), the trusted roots
// (SVC_CA_BUNDLE added to Node's, never replacing them), and the pin form. The exchange
// itself is tested against real servers in authority-transport.int.test.ts.
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { bypassesProxy, spkiPinOf, trustedRoots } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-transport-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('NO_PROXY', () => {
  const url = new URL('https://licence.example.com:8443/v1/check');
  const cases: [string | null, boolean][] = [
    [null, false],
    ['', false],
    ['*', true],
    ['licence.example.com', true],
    ['LICENCE.Example.COM', true],
    ['example.com', true],
    ['.example.com', true],
    ['*.example.com', true],
    ['other.test, example.com', true],
    ['other.test example.com', true],
    ['licence.example.com:8443', true],
    ['licence.example.com:443', false],
    ['ample.com', false],
    ['xlicence.example.com', false],
    ['other.test', false],
    ['.', false],
  ];
  it.each(cases)('%j → direct: %s', (noProxy, direct) => {
    expect(bypassesProxy(url, noProxy)).toBe(direct);
  });

  it('the default port counts when the URL names none; IPv6 in brackets or bare', () => {
    expect(bypassesProxy(new URL('https://a.test/x'), 'a.test:443')).toBe(true);
    expect(bypassesProxy(new URL('https://a.test/x'), 'a.test:80')).toBe(false);
    expect(bypassesProxy(new URL('https://[::1]:8443/x'), '[::1]:8443')).toBe(true);
    expect(bypassesProxy(new URL('https://[::1]:8443/x'), '[::1]')).toBe(true);
    expect(bypassesProxy(new URL('https://127.0.0.1:8443/x'), '127.0.0.1')).toBe(true);
    expect(bypassesProxy(new URL('https://127.0.0.1:8443/x'), '127.0.0.2')).toBe(false);
  });
});

describe('SVC_CA_BUNDLE', () => {
  // Any parseable certificate will do for the list; it need not sign anything here.
  const someCa = rootCertificates[0] ?? '';

  it("is added to Node's root certificates, never in place of them", async () => {
    const path = join(dir, 'one.pem');
    writeFileSync(path, `# a comment openssl leaves\n${someCa}\n${someCa}\n`);
    const roots = await trustedRoots(path);
    expect(Array.isArray(roots)).toBe(true);
    if (!Array.isArray(roots)) return;
    expect(roots.slice(0, rootCertificates.length)).toEqual([...rootCertificates]);
    expect(roots).toHaveLength(rootCertificates.length + 2);
  });

  it('unreadable, empty of certificates, or holding one that does not parse: a reason', async () => {
    const empty = join(dir, 'empty.pem');
    writeFileSync(empty, 'nothing here\n');
    const broken = join(dir, 'broken.pem');
    writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(await trustedRoots(join(dir, 'absent.pem'))).toEqual({
      problem: `SVC_CA_BUNDLE ${join(dir, 'absent.pem')} cannot be read (ENOENT)`,
    });
    expect(await trustedRoots(empty)).toMatchObject({
      problem: expect.stringContaining('no PEM') as unknown,
    });
    expect(await trustedRoots(broken)).toMatchObject({
      problem: expect.stringContaining('does not parse') as unknown,
    });
  });
});

describe('pins', () => {
  it('are sha256/ of the DER SubjectPublicKeyInfo, in the form SVC_AUTHORITY_PINS takes', () => {
    const cert = new X509Certificate(rootCertificates[0] ?? '');
    const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
    const pin = spkiPinOf(cert.raw);
    expect(pin).toBe(`sha256/${createHash('sha256').update(spki).digest('base64')}`);
    expect(pin).toMatch(/^sha256\/[A-Za-z0-9+/]{43}=$/);
    // Not a hash of the whole certificate.
    expect(pin).not.toBe(`sha256/${createHash('sha256').update(cert.raw).digest('base64')}`);
  });
});

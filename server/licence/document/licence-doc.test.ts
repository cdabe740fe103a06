import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTestIssuer, licencePayload, makeSigningKey } from '../../testing/licence/issuer.js';
import { kidOf, seal, type Envelope, type Signer } from './envelope.js';
import { LICENCE_FORMAT, verifyLicence } from './licence-doc.js';
import { TRUSTED_ROOTS } from '../trust/trusted-roots.js';
import type { TrustContext } from './trust.js';

const NOW = '2026-11-27T12:00:00.000Z';
const ctx: TrustContext = { roots: TRUSTED_ROOTS, revokedKids: new Set(), fips: false };
const issuer = createTestIssuer();

function resealPayload(env: Envelope, payloadText: string): Envelope {
  return { ...env, payload: Buffer.from(payloadText, 'utf8').toString('base64url') };
}

describe('verifyLicence', () => {
  it('accepts a licence signed by a key the development root certified, by either algorithm', () => {
    const p = licencePayload(NOW);
    for (const algs of [['Ed25519'], ['ES256'], ['Ed25519', 'ES256']] as const) {
      const v = verifyLicence(JSON.stringify(issuer.licence(p, algs)), ctx);
      expect(v.ok, JSON.stringify(v)).toBe(true);
      if (v.ok) {
        expect(v.licence.licence_id).toBe(p.licence_id);
        expect(v.sha256).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  });

  it('refuses every single-character change of payload, signature or kid, naming a check and never throwing', () => {
    const text = JSON.stringify(issuer.licence(licencePayload(NOW)));
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(
        fc.constantFrom<'payload' | 'sig' | 'kid'>('payload', 'sig', 'kid'),
        fc.nat(),
        fc.nat(),
        (field, at, ch) => {
          const env = JSON.parse(text) as {
            payload: string;
            signatures: { sig: string; kid: string }[];
          };
          const s0 = env.signatures[0];
          if (s0 === undefined) return;
          const old = field === 'payload' ? env.payload : field === 'sig' ? s0.sig : s0.kid;
          const i = at % old.length;
          const pool = field === 'kid' ? '0123456789abcdef' : alphabet;
          const c = pool.charAt(ch % pool.length);
          if (c === old.charAt(i)) return;
          const changed = old.slice(0, i) + c + old.slice(i + 1);
          if (field === 'payload') env.payload = changed;
          else if (field === 'sig') s0.sig = changed;
          else s0.kid = changed;
          const v = verifyLicence(JSON.stringify(env), ctx);
          // A changed kid leaves the other signature standing (it names a key we do not know),
          // anything else must be refused.
          if (field === 'kid') {
            if (v.ok) expect(v.signedBy.map((s) => s.kid)).not.toContain(changed);
          } else {
            expect(v.ok).toBe(false);
          }
          if (!v.ok) expect(v.check).toMatch(/^(format|signature|payload|unknown_key)$/);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('ignores an unknown kid, but a bad signature from a known key rejects the whole document', () => {
    const stranger = generateKeyPairSync('ed25519').privateKey;
    const strangerSigner: Signer = { alg: 'Ed25519', kid: kidOf(stranger), key: stranger };
    const p = licencePayload(NOW);
    const onlyStranger = seal(LICENCE_FORMAT, p, [strangerSigner]);
    const v1 = verifyLicence(onlyStranger, ctx);
    expect(v1.ok ? 'ok' : v1.check).toBe('unknown_key');

    const good = issuer.licence(p, ['Ed25519']);
    const other = issuer.licence(licencePayload(NOW), ['ES256']);
    const mixed = {
      ...good,
      signatures: [...good.signatures, ...other.signatures],
      keys: [...(good.keys ?? []), ...(other.keys ?? [])],
    };
    const v2 = verifyLicence(mixed, ctx);
    expect(v2.ok ? 'ok' : v2.check).toBe('signature');
  });

  it('refuses duplicate keys, a BOM, trailing bytes and an oversized payload as format', () => {
    const env = issuer.licence(licencePayload(NOW));
    const payload = Buffer.from(env.payload, 'base64url').toString('utf8');
    const variants = [
      payload.replace('{', '{"serial":9,'),
      `\ufeff${payload}`,
      `${payload} x`,
      payload.replace('"customer"', `"pad":"${'a'.repeat(70_000)}","customer"`),
    ];
    for (const text of variants) {
      const v = verifyLicence(resealPayload(env, text), ctx);
      expect(v.ok ? 'ok' : v.check, text.slice(0, 40)).toBe('format');
    }
    const text = JSON.stringify(env);
    expect(verifyLicence(`\ufeff${text}`, ctx)).toMatchObject({ ok: false, check: 'format' });
    expect(verifyLicence(`${text}{}`, ctx)).toMatchObject({ ok: false, check: 'format' });
  });

  it('answers format_version with an upgrade hint for a newer format', () => {
    const key = issuer.ed;
    const env = seal('svc-licence/2', licencePayload(NOW), [key.signer], [key.statement]);
    const v = verifyLicence(env, ctx);
    expect(v).toMatchObject({ ok: false, check: 'format_version' });
    if (!v.ok) expect(v.detail).toMatch(/upgrade/);
  });

  it('under FIPS counts only ES256 signatures', () => {
    const fips = { ...ctx, fips: true };
    const p = licencePayload(NOW);
    expect(verifyLicence(issuer.licence(p, ['Ed25519']), fips)).toMatchObject({
      ok: false,
      check: 'fips',
    });
    expect(verifyLicence(issuer.licence(p), fips).ok).toBe(true);
  });

  it('refuses a licence issued after its key statement ended, keeps one issued before', () => {
    const old = makeSigningKey('Ed25519', { notAfter: '2026-06-01T00:00:00.000Z' });
    const sign = (issuedAt: string) =>
      seal(LICENCE_FORMAT, licencePayload(issuedAt), [old.signer], [old.statement]);
    expect(verifyLicence(sign(NOW), ctx)).toMatchObject({ ok: false, check: 'key_statement' });
    expect(verifyLicence(sign('2026-05-01T00:00:00.000Z'), ctx).ok).toBe(true);
  });

  it('refuses a key whose statement does not allow licences, or that a stranger certified', () => {
    const confirmOnly = makeSigningKey('Ed25519', { usage: ['confirm'] });
    const p = licencePayload(NOW);
    expect(
      verifyLicence(seal(LICENCE_FORMAT, p, [confirmOnly.signer], [confirmOnly.statement]), ctx),
    ).toMatchObject({
      ok: false,
      check: 'key_statement',
    });
    const strangerRoot = generateKeyPairSync('ed25519').privateKey;
    const selfMade = makeSigningKey('Ed25519', {
      root: [{ alg: 'Ed25519', kid: kidOf(strangerRoot), key: strangerRoot }],
    });
    expect(
      verifyLicence(seal(LICENCE_FORMAT, p, [selfMade.signer], [selfMade.statement]), ctx),
    ).toMatchObject({
      ok: false,
      check: 'unknown_key',
    });
  });

  it('refuses what only a revoked key signed, keeps what another key also signed', () => {
    const p = licencePayload(NOW);
    const revoked = { ...ctx, revokedKids: new Set([issuer.ed.signer.kid]) };
    expect(verifyLicence(issuer.licence(p, ['Ed25519']), revoked)).toMatchObject({
      ok: false,
      check: 'revoked_key',
    });
    expect(verifyLicence(issuer.licence(p), revoked).ok).toBe(true);
  });

  it('names the payload field that is wrong', () => {
    const env = issuer.licence({ ...licencePayload(NOW), tier: 'platinum' as never });
    const v = verifyLicence(env, ctx);
    expect(v).toMatchObject({ ok: false, check: 'payload' });
    if (!v.ok) expect(v.detail).toMatch(/^tier/);
  });
});

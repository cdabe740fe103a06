import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keyFingerprint } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { newKey, tinyPack } from '../testing/packs/pack.fixture.js';
import { packKeyId, signPack, trustedKey, verifyPack } from './signing.js';
import { DEV_PACK_PUBLIC_KEY_PEM, TRUSTED_PACK_KEYS } from './trust.js';

describe('signPack / verifyPack', () => {
  it('verifies what it signed, naming the signer', () => {
    const { privateKey, trusted } = newKey('alice');
    const signed = signPack(tinyPack(), privateKey);
    expect(signed.signature.alg).toBe('ed25519');
    expect(signed.signature.key).toBe(trusted.id);
    expect(Buffer.from(signed.signature.sig, 'base64')).toHaveLength(64);
    const v = verifyPack(signed, [trusted]);
    expect(v.ok && v.signer.name).toBe('alice');
  });

  it('signs the canonical bytes: key order and layout do not matter', () => {
    const { privateKey, trusted } = newKey();
    const signed = signPack(tinyPack(), privateKey);
    const reordered = JSON.parse(
      JSON.stringify(
        { signature: signed.signature, pack: JSON.parse(canonicalJson(signed.pack)) as unknown },
        null,
        4,
      ),
    ) as typeof signed;
    expect(verifyPack(reordered, [trusted]).ok).toBe(true);
  });

  it('refuses a pack changed by one byte after signing', () => {
    const { privateKey, trusted } = newKey();
    const text = JSON.stringify(signPack(tinyPack(), privateKey));
    const at = text.indexOf('Is the unit up');
    const tampered = `${text.slice(0, at)}Is the unit uq${text.slice(at + 'Is the unit up'.length)}`;
    expect(tampered.length).toBe(text.length);
    const v = verifyPack(JSON.parse(tampered) as ReturnType<typeof signPack>, [trusted]);
    expect(v).toEqual({
      ok: false,
      why: 'the signature does not match the pack (changed after signing by test key)',
    });
  });

  it('refuses a signature made by another key that claims a trusted key id', () => {
    const trustedPair = newKey('trusted');
    const intruder = newKey('intruder');
    const forged = signPack(tinyPack(), intruder.privateKey);
    const claimed = { ...forged, signature: { ...forged.signature, key: trustedPair.trusted.id } };
    const v = verifyPack(claimed, [trustedPair.trusted]);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.why).toContain('does not match');
  });

  it('refuses a key this build does not trust', () => {
    const a = newKey();
    const b = newKey();
    const v = verifyPack(signPack(tinyPack(), a.privateKey), [b.trusted]);
    expect(v).toEqual({
      ok: false,
      why: `signed by key ${a.trusted.id}, which this build does not trust`,
    });
    expect(verifyPack(signPack(tinyPack(), a.privateKey), []).ok).toBe(false);
  });

  it('refuses a truncated signature', () => {
    const { privateKey, trusted } = newKey();
    const signed = signPack(tinyPack(), privateKey);
    const short = {
      ...signed,
      signature: { ...signed.signature, sig: signed.signature.sig.slice(0, 40) },
    };
    expect(verifyPack(short, [trusted]).ok).toBe(false);
  });

  it('computes key ids as the install key fingerprint is', () => {
    const { privateKey, trusted } = newKey();
    expect(trusted.id).toBe(keyFingerprint(createPublicKey(privateKey)));
    expect(packKeyId(privateKey)).toBe(trusted.id);
    expect(trusted.id).toMatch(/^[A-Z2-7]{52}$/);
  });

  it('refuses keys that are not Ed25519', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(() => trustedKey('p256', pem)).toThrow(/not Ed25519/);
    expect(() => signPack(tinyPack(), privateKey)).toThrow(/not Ed25519/);
  });
});

describe('the development pack key', () => {
  it('is the private half of the trusted development public key', () => {
    const pem = readFileSync(
      fileURLToPath(new URL('../../build/packs/dev-pack-key.pem', import.meta.url)),
      'utf8',
    );
    const key = createPrivateKey(pem);
    const pub = createPublicKey(key).export({ type: 'spki', format: 'pem' }) as string;
    expect(pub).toBe(DEV_PACK_PUBLIC_KEY_PEM);
    expect(TRUSTED_PACK_KEYS.map((k) => k.id)).toContain(packKeyId(key));
  });
});

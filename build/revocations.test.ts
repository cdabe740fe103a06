// The revocation list bundled with the build (licence.md §3.9): seq 1, nothing revoked, signed
// by the development authority's revocations key, byte-for-byte what the script in
// build/dev-authority writes, and with nothing in it that expires.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRUSTED_ROOTS, verifyRevocations } from '../server/licence/index.js';
import { bundledListText, readKeyAndStatement } from './dev-authority/make-revocations.js';

const text = readFileSync(join(import.meta.dirname, 'revocations.json'), 'utf8');

describe('build/revocations.json', () => {
  it('verifies against the development build as seq 1 with nothing revoked', () => {
    const v = verifyRevocations(text, {
      roots: TRUSTED_ROOTS,
      revokedKids: new Set(),
      fips: false,
    });
    expect(v).toMatchObject({
      ok: true,
      list: { seq: 1, licences: [], keys: [], grants: [] },
    });
  });

  it('is what build/dev-authority/make-revocations.ts writes from the key and statement there', () => {
    const { key, statement } = readKeyAndStatement();
    expect(bundledListText(key, statement)).toBe(text);
  });

  it('has no expiry: the list has no next_update, and it still verifies 20 years on', () => {
    const payload = JSON.parse(
      Buffer.from((JSON.parse(text) as { payload: string }).payload, 'base64url').toString(),
    ) as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual(['grants', 'issued_at', 'keys', 'licences', 'seq']);
    // Verification takes no time at all: only issued_at within the key's issuing period counts.
    const v = verifyRevocations(text, {
      roots: TRUSTED_ROOTS,
      revokedKids: new Set(),
      fips: false,
    });
    expect(v.ok).toBe(true);
  });
});

import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listed, makeInstall } from '../../testing/licence/exchange.js';
import { licencePayload } from '../../testing/licence/issuer.js';
import { buildForward, readForward } from './forward.js';
import { examine } from './look.js';
import { buildRequest } from './request.js';

const ISO = '2026-11-22T10:00:00.000Z';
const T0 = Date.parse(ISO);
const e = makeInstall();
const n = makeInstall();
const lic = licencePayload('2026-06-01T00:00:00.000Z', {
  installs: [listed(e, ISO)],
  vouch: { self_service: 0, grant_days: 60 },
});
const req = buildRequest({
  installKey: n.key,
  fingerprint: n.fingerprint,
  kind: 'machine-id',
  purpose: 'add',
  label: null,
  version: '1.4.2',
  licenceId: null,
  now: T0,
});

function forward(key = e.key, fingerprint = e.fingerprint) {
  const x = examine(req.text, {
    licence: lic,
    thisFingerprint: e.fingerprint,
    online: false,
    seenReqIds: new Set(),
    grantsIssued: 0,
    now: T0 + 60_000,
    toleranceS: 3600,
  });
  if (x.signed === null || x.answer.would !== 'manual') throw new Error(x.answer.why);
  return buildForward({
    request: x.signed,
    licence: lic,
    installKey: key,
    thisFingerprint: fingerprint,
    why: x.answer.why,
    now: T0 + 60_000,
  });
}

describe('forward bundle', () => {
  it('countersigns N’s request for the vendor, who reads back both signatures', () => {
    const f = forward();
    expect(f.text).toMatch(/^-----BEGIN SVC INSTALL FORWARD-----\nFingerprint: [A-Z2-7]{4}-/);
    expect(f.payload).toMatchObject({
      format: 'svc-install-forward/1',
      req_id: req.payload.req_id,
      fingerprint: n.fingerprint,
      licence_id: lic.licence_id,
      licence_serial: 1,
      forwarded_by: e.fingerprint,
      forwarded_at: '2026-11-22T10:01:00.000Z',
    });
    expect(f.payload.why).toMatch(/no offline grants left/);
    const r = readForward(f.text, lic);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (r.ok) {
      expect(r.request.payload).toEqual(req.payload);
      expect(r.request.code).toBe(req.code);
    }
  });

  it('is refused when E is not on the licence, signed by another key, or for another licence', () => {
    expect(
      readForward(forward(makeInstall().key, makeInstall().fingerprint).text, lic),
    ).toMatchObject({
      ok: false,
      reason: 'not_on_licence',
    });
    expect(readForward(forward(generateKeyPairSync('ed25519').privateKey).text, lic)).toMatchObject(
      {
        ok: false,
        reason: 'signature',
      },
    );
    const other = { ...lic, licence_id: licencePayload(ISO).licence_id };
    expect(readForward(forward().text, other)).toMatchObject({
      ok: false,
      reason: 'not_on_licence',
    });
    const t = forward().text.replace(`Forwarded-By: ${e.fingerprint}`, 'Forwarded-By: x');
    expect(readForward(t, lic)).toMatchObject({ ok: false, reason: 'headers_match_payload' });
  });

  it('never throws and never accepts a mutated bundle', () => {
    const original = forward().text;
    fc.assert(
      fc.property(
        fc.nat(original.length - 1),
        fc.constantFrom('A', 'z', '0', '-', '.', ':'),
        (at, c) => {
          if (original.charAt(at) === c) return;
          const t = original.slice(0, at) + c + original.slice(at + 1);
          expect(readForward(t, lic).ok).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});

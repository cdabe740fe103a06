import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kidOf, signBytes, signingInput, type Envelope } from '../document/envelope.js';
import type { LicencePayload } from '../document/licence-doc.js';
import { EMPTY_REVOCATIONS } from '../document/revocations-doc.js';
import type { TrustContext } from '../document/trust.js';
import { TRUSTED_ROOTS } from '../trust/trusted-roots.js';
import { licenceListing, makeInstall, type TestInstall } from '../../testing/licence/exchange.js';
import { createTestIssuer } from '../../testing/licence/issuer.js';
import { writeArmour } from './armour.js';
import {
  acceptGrant,
  buildGrant,
  GRANT_FORMAT,
  type AcceptContext,
  type GrantPayload,
} from './grant.js';
import { buildRequest, type RequestPayload } from './request.js';

const ISO = '2026-11-22T10:00:00.000Z';
const T0 = Date.parse(ISO);
const DAY = 86_400_000;
const trust: TrustContext = { roots: TRUSTED_ROOTS, revokedKids: new Set(), fips: false };
const issuer = createTestIssuer();
const e = makeInstall();
const n = makeInstall();
const { payload: lic, envelope } = licenceListing(issuer, '2026-06-01T00:00:00.000Z', [e], {}, 2);

function ask(who: TestInstall = n): RequestPayload {
  return buildRequest({
    installKey: who.key,
    fingerprint: who.fingerprint,
    kind: 'machine-id',
    purpose: 'dr',
    label: 'dr-site-b',
    version: '1.4.2',
    licenceId: null,
    now: T0,
  }).payload;
}

interface GrantOver {
  readonly request?: RequestPayload;
  readonly licence?: LicencePayload;
  readonly envelope?: Envelope;
  readonly by?: TestInstall;
  readonly key?: KeyObject;
}

function grant(over: GrantOver = {}) {
  const by = over.by ?? e;
  return buildGrant({
    request: over.request ?? request,
    licence: over.licence ?? lic,
    envelope: over.envelope ?? envelope,
    installKey: over.key ?? by.key,
    thisFingerprint: by.fingerprint,
    grantsIssued: 0,
    revocationsSeq: 41,
    now: T0 + 3600_000,
  });
}

/** A grant payload signed and armoured by hand (for fields buildGrant never writes). */
function forge(payload: GrantPayload, key: KeyObject = e.key): string {
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const sig = signBytes(
    { alg: 'Ed25519', kid: kidOf(key), key },
    signingInput(GRANT_FORMAT, bytes),
  );
  return writeArmour({
    label: 'SVC INSTALL GRANT',
    headers: [
      ['Fingerprint', payload.fingerprint],
      ['Granted-By', payload.granted_by],
      ['Valid-Until', payload.valid_until],
    ],
    payload: bytes,
    sig,
    attachments: { licence: Buffer.from(JSON.stringify(envelope), 'utf8') },
  });
}

const request = ask();

function ctx(over: Partial<AcceptContext> = {}): AcceptContext {
  return {
    trust,
    openRequests: [request],
    highestSerial: () => 0,
    revocations: EMPTY_REVOCATIONS,
    removedInstalls: new Set(),
    now: T0 + 2 * 3600_000,
    ...over,
  };
}

describe('install grant', () => {
  it('is built with the fields of §3.7 and accepted by N', () => {
    const g = grant();
    expect(Object.keys(g.payload)).toEqual([
      'format',
      'req_id',
      'nonce',
      'fingerprint',
      'install_pub',
      'role',
      'licence_id',
      'licence_serial',
      'granted_by',
      'granted_at',
      'valid_until',
      'seat',
      'revocations_seq',
    ]);
    expect(g.payload).toMatchObject({
      format: 'svc-install-grant/1',
      req_id: request.req_id,
      nonce: request.nonce,
      fingerprint: n.fingerprint,
      install_pub: n.pub,
      role: 'dr',
      licence_id: lic.licence_id,
      licence_serial: 1,
      granted_by: e.fingerprint,
      granted_at: '2026-11-22T11:00:00.000Z',
      valid_until: new Date(T0 + 3600_000 + 60 * DAY).toISOString(),
      seat: '4/10',
      revocations_seq: 41,
    });
    expect(g.text).toMatch(/^-----BEGIN SVC INSTALL GRANT-----\nFingerprint: [A-Z2-7]{4}-/);
    expect(g.text).toContain('\n.licence=\n');
    const a = acceptGrant(g.text, ctx());
    expect(a.ok, JSON.stringify(a)).toBe(true);
    if (a.ok) {
      expect(a.grant).toEqual(g.payload);
      expect(a.licence.licence.licence_id).toBe(lic.licence_id);
      expect(a.vouchedUntil).toBe(g.payload.valid_until);
    }
  });

  it('runs no longer than the licence: valid_until = min(expiry, now + grant_days)', () => {
    const soon = licenceListing(issuer, '2026-01-01T00:00:00.000Z', [e], {
      expires_at: '2026-12-01T00:00:00.000Z',
    });
    const g = grant({ licence: soon.payload, envelope: soon.envelope });
    expect(g.payload.valid_until).toBe('2026-12-01T00:00:00.000Z');
    expect(acceptGrant(g.text, ctx()).ok).toBe(true);
    const site = licenceListing(issuer, '2026-06-01T00:00:00.000Z', [e], {
      site: { name: 'Acme' },
      limits: { services: null, installs: null },
      expires_at: null,
      vouch: { self_service: 0, grant_days: 30 },
    });
    const s = grant({ licence: site.payload, envelope: site.envelope });
    expect(s.payload.seat).toBe('2/unlimited');
    expect(s.payload.valid_until).toBe(new Date(T0 + 3600_000 + 30 * DAY).toISOString());
    expect(acceptGrant(s.text, ctx()).ok).toBe(true); // a site licence vouches with self_service 0
  });

  const refusals: [string, () => [string, AcceptContext], string][] = [
    ['armour', () => ['not a grant', ctx()], 'armour'],
    [
      'a licence no trusted root certified',
      () => [grant().text, ctx({ trust: { ...trust, roots: [] } })],
      'licence_invalid',
    ],
    [
      'a revoked licence',
      () => [
        grant().text,
        ctx({
          revocations: {
            ...EMPTY_REVOCATIONS,
            seq: 42,
            licences: [{ licence_id: lic.licence_id, reason: 'revoked' }],
          },
        }),
      ],
      'licence_revoked',
    ],
    [
      'a grant naming another licence than the one attached',
      () => {
        const other = licenceListing(issuer, '2026-06-01T00:00:00.000Z', [e]);
        return [grant({ licence: other.payload }).text, ctx()];
      },
      'licence_mismatch',
    ],
    [
      'an issuer not on the licence',
      () => [grant({ by: makeInstall() }).text, ctx()],
      'issuer_not_on_licence',
    ],
    [
      'a removed issuer',
      () => [grant().text, ctx({ removedInstalls: new Set([e.fingerprint]) })],
      'issuer_removed',
    ],
    [
      'a signature not by E’s key',
      () => [grant({ key: generateKeyPairSync('ed25519').privateKey }).text, ctx()],
      'grant_signature',
    ],
    [
      'an edited header',
      () => [grant().text.replace(`Granted-By: ${e.fingerprint}`, 'Granted-By: someone'), ctx()],
      'headers_match_payload',
    ],
    ['another req_id', () => [grant({ request: ask() }).text, ctx()], 'request_unknown'],
    ['no open request', () => [grant().text, ctx({ openRequests: [] })], 'request_unknown'],
    [
      'another nonce',
      () => [grant().text, ctx({ openRequests: [{ ...request, nonce: 'A'.repeat(22) }] })],
      'nonce_mismatch',
    ],
    [
      'another install key',
      () => [grant().text, ctx({ openRequests: [{ ...request, install_pub: makeInstall().pub }] })],
      'install_key_mismatch',
    ],
    [
      'another fingerprint',
      () => [
        grant().text,
        ctx({ openRequests: [{ ...request, fingerprint: makeInstall().fingerprint }] }),
      ],
      'fingerprint_mismatch',
    ],
    [
      'an older serial',
      () => [grant().text, ctx({ highestSerial: (id) => (id === lic.licence_id ? 2 : 0) })],
      'older_serial',
    ],
    [
      'an expired grant',
      () => {
        const g = grant();
        return [g.text, ctx({ now: Date.parse(g.payload.valid_until) })];
      },
      'expired',
    ],
    [
      'a revoked grant',
      () => [
        grant().text,
        ctx({
          revocations: {
            ...EMPTY_REVOCATIONS,
            seq: 42,
            grants: [{ req_id: request.req_id, reason: 'seat removed' }],
          },
        }),
      ],
      'grant_revoked',
    ],
    [
      'a licence that allows no offline grants',
      () => {
        const none = licenceListing(issuer, '2026-06-01T00:00:00.000Z', [e], {
          vouch: { self_service: 0, grant_days: 60 },
        });
        return [grant({ licence: none.payload, envelope: none.envelope }).text, ctx()];
      },
      'vouch_not_allowed',
    ],
    [
      'a grant longer than the licence lets one run',
      () => {
        const p = grant().payload;
        return [
          forge({ ...p, valid_until: new Date(Date.parse(p.granted_at) + 61 * DAY).toISOString() }),
          ctx(),
        ];
      },
      'vouch_not_allowed',
    ],
  ];
  for (const [what, make, reason] of refusals) {
    it(`refuses ${what} (${reason})`, () => {
      const [text, c] = make();
      const a = acceptGrant(text, c);
      expect(a.ok).toBe(false);
      if (!a.ok) {
        expect(a.reason, a.detail).toBe(reason);
        expect(a.detail.length).toBeGreaterThan(0);
      }
    });
  }

  it('checks the conditions in §3.7’s order: the first that fails is named', () => {
    const g = grant({ by: makeInstall() });
    // not on the licence (2) beats an older serial (5) and expiry (6)
    expect(acceptGrant(g.text, ctx({ highestSerial: () => 9, now: T0 + 400 * DAY }))).toMatchObject(
      { ok: false, reason: 'issuer_not_on_licence' },
    );
    expect(
      acceptGrant(grant().text, ctx({ highestSerial: () => 9, now: T0 + 400 * DAY })),
    ).toMatchObject({ ok: false, reason: 'older_serial' });
  });

  it('never throws on mutated grants; what it accepts is the same grant under the same licence', () => {
    const g = grant();
    const original = g.text;
    const good = acceptGrant(original, ctx());
    if (!good.ok) throw new Error(good.detail);
    const chars = 'AZaz09-_:.=+/ !"{}';
    let tried = 0;
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.constantFrom<'replace' | 'insert' | 'delete'>('replace', 'insert', 'delete'),
        fc.nat(original.length - 1),
        fc.nat(chars.length - 1),
        (kind, at, ci) => {
          const c = chars.charAt(ci);
          const old = original.charAt(at);
          let t: string;
          if (kind === 'replace') {
            if (c === old || (/\s/.test(c) && /\s/.test(old))) return;
            t = original.slice(0, at) + c + original.slice(at + 1);
          } else if (kind === 'insert') {
            if (/\s/.test(c)) return;
            t = original.slice(0, at) + c + original.slice(at);
          } else {
            if (/\s/.test(old)) return;
            t = original.slice(0, at) + original.slice(at + 1);
          }
          tried++;
          const a = acceptGrant(t, ctx());
          if (!a.ok) return;
          // The only acceptable change is inside the attached licence envelope in a way its
          // verifier ignores (an unknown kid beside a good signature): same grant, same licence.
          accepted++;
          expect(t.indexOf('.licence=')).toBeLessThan(at);
          expect(a.grant).toEqual(good.grant);
          expect(a.licence.sha256).toBe(good.licence.sha256);
        },
      ),
      { numRuns: 3000 },
    );
    expect(tried).toBeGreaterThanOrEqual(2000);
    expect(accepted).toBeLessThan(tried / 10);
  });
});

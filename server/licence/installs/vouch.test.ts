import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LicencePayload } from '../document/licence-doc.js';
import { EMPTY_REVOCATIONS } from '../document/revocations-doc.js';
import { TRUSTED_ROOTS } from '../trust/trusted-roots.js';
import { licenceListing, makeInstall } from '../../testing/licence/exchange.js';
import { createTestIssuer } from '../../testing/licence/issuer.js';
import { readForward } from './forward.js';
import { acceptGrant } from './grant.js';
import { lookAt } from './look.js';
import { buildRequest } from './request.js';
import {
  decideVouch,
  MAX_CODE_MISMATCHES,
  type RequestRecord,
  type VouchContext,
} from './vouch.js';

const ISO = '2026-11-22T10:00:00.000Z';
const T0 = Date.parse(ISO);
const issuer = createTestIssuer();
const e = makeInstall();
const n = makeInstall();
const signed = licenceListing(issuer, '2026-06-01T00:00:00.000Z', [e]);

const ask = (licenceId: string | null = null) =>
  buildRequest({
    installKey: n.key,
    fingerprint: n.fingerprint,
    kind: 'machine-id',
    purpose: 'dr',
    label: 'dr-site-b',
    version: '1.4.2',
    licenceId,
    now: T0,
  });

function ctx(
  over: Partial<VouchContext> & { payload?: LicencePayload; record?: RequestRecord } = {},
): VouchContext {
  const chosen = over.payload === undefined ? signed : null;
  return {
    licence: over.payload ?? signed.payload,
    envelope: chosen?.envelope ?? issuer.licence(over.payload ?? signed.payload),
    thisFingerprint: e.fingerprint,
    online: false,
    grantsIssued: 0,
    now: T0 + 60_000,
    toleranceS: 3600,
    recordOf: () => over.record ?? null,
    installKey: e.key,
    revocationsSeq: 7,
    ...over,
  };
}

describe('decideVouch', () => {
  it('case 38: ask on N, look on E shows N’s code, vouch grants, N accepts the grant', () => {
    const r = ask();
    const look = lookAt(r.text, { ...ctx(), seenReqIds: new Set() });
    expect(look.digits).toBe(r.code);
    expect(look.checks.every((c) => c.ok)).toBe(true);
    const v = decideVouch(r.text, r.code.replace(' ', ''), ctx());
    expect(v.outcome).toBe('granted');
    if (v.outcome !== 'granted') return;
    expect(v.grant.revocations_seq).toBe(7);
    const a = acceptGrant(v.text, {
      trust: { roots: TRUSTED_ROOTS, revokedKids: new Set(), fips: false },
      openRequests: [r.payload],
      highestSerial: () => 0,
      revocations: EMPTY_REVOCATIONS,
      removedInstalls: new Set(),
      now: T0 + 120_000,
    });
    expect(a.ok, JSON.stringify(a)).toBe(true);
    if (a.ok) expect(a.vouchedUntil).toBe(new Date(T0 + 60_000 + 60 * 86_400_000).toISOString());
  });

  it('case 39: a wrong code is a mismatch; the fifth burns the request; the right code then fails', () => {
    const r = ask();
    const wrong = r.code === '000 000' ? '000 001' : '000 000';
    expect(decideVouch(r.text, wrong, ctx())).toEqual({
      outcome: 'code_mismatch',
      req_id: r.payload.req_id,
      attempt: 1,
      burned: false,
    });
    const fifth = decideVouch(
      r.text,
      wrong,
      ctx({ record: { state: 'open', mismatches: MAX_CODE_MISMATCHES - 1 } }),
    );
    expect(fifth).toMatchObject({ outcome: 'code_mismatch', attempt: 5, burned: true });
    expect(
      decideVouch(r.text, r.code, ctx({ record: { state: 'burned', mismatches: 5 } })),
    ).toEqual({
      outcome: 'request_burned',
      req_id: r.payload.req_id,
    });
    // four wrong codes, then the right one: still vouched
    expect(
      decideVouch(r.text, r.code, ctx({ record: { state: 'open', mismatches: 4 } })).outcome,
    ).toBe('granted');
  });

  it('case 40: the same text vouched twice answers already_vouched', () => {
    const r = ask();
    for (const state of ['vouched', 'forwarded', 'authority'] as const) {
      expect(decideVouch(r.text, r.code, ctx({ record: { state, mismatches: 0 } }))).toEqual({
        outcome: 'already_vouched',
        req_id: r.payload.req_id,
      });
    }
  });

  it('case 41: an edited header or a changed base64 character is refused, whatever the code', () => {
    const r = ask();
    const edited = decideVouch(r.text.replace('Purpose: dr', 'Purpose: add'), r.code, ctx());
    expect(edited).toMatchObject({ outcome: 'refused', why: /^headers_match_payload/ });
    const lines = r.text.split('\n');
    const i = lines.findIndex((l) => /^[A-Za-z0-9_-]{64}$/.test(l));
    const l = lines[i] ?? '';
    lines[i] = `${l.slice(0, 30)}${l.charAt(30) === 'x' ? 'y' : 'x'}${l.slice(31)}`;
    expect(decideVouch(lines.join('\n'), r.code, ctx())).toMatchObject({
      outcome: 'refused',
      why: /^signature/,
    });
  });

  it('case 42: an expired request is refused; one from another licence goes to the vendor', () => {
    const r = ask();
    expect(decideVouch(r.text, r.code, ctx({ now: T0 + 7 * 86_400_000 + 3600_000 }))).toMatchObject(
      {
        outcome: 'refused',
        why: /^not_expired/,
      },
    );
    const other = ask(licenceListing(issuer, ISO, []).payload.licence_id);
    const v = decideVouch(other.text, other.code, ctx());
    expect(v.outcome).toBe('manual');
    if (v.outcome === 'manual') expect(readForward(v.text, signed.payload).ok).toBe(true);
  });

  it('case 43: online, a full licence goes to the authority expecting pending; a free seat expecting granted', () => {
    const full = licenceListing(issuer, '2026-06-01T00:00:00.000Z', [e], {}, 9).payload;
    const r = ask();
    expect(decideVouch(r.text, r.code, ctx({ payload: full, online: true }))).toMatchObject({
      outcome: 'authority',
      expect: 'pending',
      why: 'install limit reached; the authority must approve',
    });
    expect(decideVouch(r.text, r.code, ctx({ online: true }))).toMatchObject({
      outcome: 'authority',
      expect: 'granted',
    });
  });

  it('case 44: a full licence offline with self_service 0 gives a forward bundle the vendor reads', () => {
    const full = licenceListing(
      issuer,
      '2026-06-01T00:00:00.000Z',
      [e],
      { vouch: { self_service: 0, grant_days: 60 } },
      9,
    ).payload;
    const r = ask();
    const v = decideVouch(r.text, r.code, ctx({ payload: full }));
    expect(v.outcome).toBe('manual');
    if (v.outcome !== 'manual') return;
    expect(v.text).toMatch(/^-----BEGIN SVC INSTALL FORWARD-----/);
    const read = readForward(v.text, full);
    expect(read.ok).toBe(true);
    if (read.ok) expect(read.request.payload).toEqual(r.payload);
    // a pasted copy with a mail client's CRLF and indentation forwards the same request
    const mangled = r.text
      .split('\n')
      .map((x) => `  ${x}`)
      .join('\r\n');
    const m = decideVouch(mangled, r.code, ctx({ payload: full }));
    expect(m.outcome === 'manual' && m.forward.request).toBe(
      v.outcome === 'manual' && v.forward.request,
    );
  });

  it('never throws on any text and code', () => {
    const r = ask();
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.anything(), fc.constant(r.text)),
        fc.anything(),
        (t, c) => {
          const v = decideVouch(t, c, ctx());
          if (t !== r.text) expect(v.outcome).toBe('refused');
        },
      ),
      { numRuns: 500 },
    );
  });
});

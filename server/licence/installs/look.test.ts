import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LicencePayload } from '../document/licence-doc.js';
import { listed, makeInstall } from '../../testing/licence/exchange.js';
import { licencePayload } from '../../testing/licence/issuer.js';
import { examine, LOOK_CHECKS, lookAt, span, type LookContext } from './look.js';
import { buildRequest } from './request.js';

const ISO = '2026-11-22T10:00:00.000Z';
const T0 = Date.parse(ISO);
const MIN = 60_000;
const DAY = 86_400_000;
const e = makeInstall();
const n = makeInstall();

function licence(over: Partial<LicencePayload> = {}, others = 0): LicencePayload {
  return licencePayload('2026-06-01T00:00:00.000Z', {
    installs: [
      listed(e, ISO),
      ...Array.from({ length: others }, () => listed(makeInstall(), ISO, 'standby')),
    ],
    ...over,
  });
}

function ctx(over: Partial<LookContext> = {}): LookContext {
  return {
    licence: licence(),
    thisFingerprint: e.fingerprint,
    online: false,
    seenReqIds: new Set(),
    grantsIssued: 0,
    now: T0 + MIN,
    toleranceS: 3600,
    ...over,
  };
}

const ask = (over: { licenceId?: string | null; fingerprint?: string; kind?: 'machine-id' } = {}) =>
  buildRequest({
    installKey: n.key,
    fingerprint: over.fingerprint ?? n.fingerprint,
    kind: over.kind ?? 'machine-id',
    purpose: 'dr',
    label: 'dr-site-b',
    version: '1.4.2',
    licenceId: over.licenceId ?? null,
    now: T0,
  });

const check = (a: ReturnType<typeof lookAt>, name: string) => a.checks.find((c) => c.name === name);

describe('lookAt', () => {
  it('answers exactly {request, digits, checks, would, why}, the digits equal to N’s code, every check ok', () => {
    const r = ask();
    const a = lookAt(r.text, ctx());
    expect(Object.keys(a)).toEqual(['request', 'digits', 'checks', 'would', 'why']);
    expect(a.request).toEqual({
      req_id: r.payload.req_id,
      fingerprint: n.fingerprint,
      kind: 'machine-id',
      label: 'dr-site-b',
      purpose: 'dr',
      version: '1.4.2',
      created_at: ISO,
      expires_at: '2026-11-29T10:00:00.000Z',
    });
    expect(a.digits).toBe(r.code);
    expect(a.checks.map((c) => c.name)).toEqual([...LOOK_CHECKS]);
    expect(a.checks.filter((c) => !c.ok)).toEqual([]);
    expect(check(a, 'not_expired')).toEqual({
      name: 'not_expired',
      ok: true,
      detail: '6 d 23 h left',
    });
    expect(check(a, 'seat_available')?.detail).toBe('1 of 10 installs used');
    expect(check(a, 'same_licence')?.detail).toMatch(/new install/);
    expect(a.would).toBe('granted');
    expect(a.why).toBe('a seat is free and the licence allows offline grants: this is 1 of 2');
    const x = examine(r.text, ctx());
    expect(x.route).toBe('grant');
    expect(x.signed?.payload).toEqual(r.payload);
  });

  it('same_licence holds for a request naming E’s licence, fails for another (manual: the vendor decides)', () => {
    const lic = licence();
    expect(
      check(lookAt(ask({ licenceId: lic.licence_id }).text, ctx({ licence: lic })), 'same_licence'),
    ).toEqual({ name: 'same_licence', ok: true });
    const other = licence();
    const a = lookAt(ask({ licenceId: other.licence_id }).text, ctx({ licence: lic }));
    expect(check(a, 'same_licence')).toMatchObject({ ok: false });
    expect(a.would).toBe('manual');
    expect(examine(ask({ licenceId: other.licence_id }).text, ctx({ licence: lic })).route).toBe(
      'forward',
    );
  });

  it('flags an edited header and a changed base64 character, and would refuse', () => {
    const r = ask();
    const edited = lookAt(r.text.replace('Purpose: dr', 'Purpose: add'), ctx());
    expect(check(edited, 'headers_match_payload')?.ok).toBe(false);
    expect(check(edited, 'signature')?.ok).toBe(true);
    expect(edited.would).toBe('refused');
    expect(edited.why).toMatch(/^headers_match_payload: /);
    const lines = r.text.split('\n');
    const i = lines.findIndex((l) => /^[A-Za-z0-9_-]{64}$/.test(l));
    const l = lines[i] ?? '';
    lines[i] = `${l.slice(0, 20)}${l.charAt(20) === 'Q' ? 'R' : 'Q'}${l.slice(21)}`;
    const changed = lookAt(lines.join('\n'), ctx());
    expect(check(changed, 'signature')?.ok).toBe(false);
    expect(changed.would).toBe('refused');
    expect(examine(lines.join('\n'), ctx()).signed).toBeNull();
  });

  it('expires at 7 d + the clock tolerance, to the second', () => {
    const r = ask();
    const expires = T0 + 7 * DAY;
    const within = lookAt(r.text, ctx({ now: expires + 3600_000 - 1000 }));
    expect(check(within, 'not_expired')).toMatchObject({
      ok: true,
      detail: /within the clock tolerance/,
    });
    expect(within.would).toBe('granted');
    const at = lookAt(r.text, ctx({ now: expires + 3600_000 }));
    expect(check(at, 'not_expired')).toEqual({
      name: 'not_expired',
      ok: false,
      detail: 'expired 1 h 0 min ago',
    });
    expect(at.would).toBe('refused');
    expect(check(lookAt(r.text, ctx({ now: expires - 1000 })), 'not_expired')?.detail).toBe(
      '0 min left',
    );
  });

  it('refuses a request seen before (replay)', () => {
    const r = ask();
    const a = lookAt(r.text, ctx({ seenReqIds: new Set([r.payload.req_id]) }));
    expect(check(a, 'not_seen_before')?.ok).toBe(false);
    expect(a.would).toBe('refused');
  });

  it('refuses a fingerprint already on the licence', () => {
    const lic = licence();
    const withN = { ...lic, installs: [...lic.installs, listed(n, ISO)] };
    const a = lookAt(ask().text, ctx({ licence: withN }));
    expect(check(a, 'not_already_listed')?.ok).toBe(false);
    expect(a.would).toBe('refused');
  });

  it('refuses an implausible fingerprint: not the house shape, E’s own, an unknown kind', () => {
    for (const fp of [
      'svc1-7KQ2M-9XD4T-PAJ3R-WB8NE', // the design page's form, which this service does not write
      'ABCD-EFGH-IJKL-MNOP-QRST-UVW1', // 1 is not base32
      'abcd-efgh-ijkl-mnop-qrst-uvwx',
      'ABCD-EFGH-IJKL',
      e.fingerprint,
    ]) {
      const a = lookAt(ask({ fingerprint: fp }).text, ctx());
      expect(check(a, 'fingerprint_plausible')?.ok, fp).toBe(false);
      expect(a.would).toBe('refused');
    }
    const k = lookAt(ask({ kind: 'toaster' as 'machine-id' }).text, ctx());
    expect(check(k, 'fingerprint_plausible')).toMatchObject({ ok: false, detail: /kind/ });
  });

  it('seats 10 of 10: pending when online, manual offline (self_service 0 or not), granted on a site licence', () => {
    const full = licence({}, 9);
    const online = lookAt(ask().text, ctx({ licence: full, online: true }));
    expect(check(online, 'seat_available')).toEqual({
      name: 'seat_available',
      ok: false,
      detail: '10 of 10 installs used',
    });
    expect(online.would).toBe('pending');
    expect(online.why).toBe('install limit reached; the authority must approve');
    const noSelf = licence({ vouch: { self_service: 0, grant_days: 60 } }, 9);
    const offline = lookAt(ask().text, ctx({ licence: noSelf }));
    expect(offline.would).toBe('manual');
    expect(examine(ask().text, ctx({ licence: noSelf })).route).toBe('forward');
    const site = licence(
      { tier: 'strategic', site: { name: 'Acme' }, limits: { services: null, installs: null } },
      40,
    );
    const s = lookAt(ask().text, ctx({ licence: site }));
    expect(check(s, 'seat_available')).toMatchObject({ ok: true, detail: 'site licence (Acme)' });
    expect(s.would).toBe('granted');
  });

  it('grants held by E count as seats, and exhaust the offline allowance', () => {
    const a = lookAt(ask().text, ctx({ grantsIssued: 2 }));
    expect(check(a, 'seat_available')?.detail).toBe('3 of 10 installs used');
    expect(a.would).toBe('manual');
    expect(a.why).toMatch(/no offline grants left/);
    const on = examine(ask().text, ctx({ grantsIssued: 2, online: true }));
    expect([on.answer.would, on.route]).toEqual(['granted', 'authority']);
    expect(lookAt(ask().text, ctx({ grantsIssued: 9 })).checks.at(-1)?.ok).toBe(false);
  });

  it('refuses when E holds no licence, an unverified trial, or a lapsed one; in grace waits for the authority', () => {
    const none = lookAt(ask().text, ctx({ licence: null }));
    expect(none.would).toBe('refused');
    expect(check(none, 'seat_available')?.ok).toBe(false);
    const trial = licence({
      tier: 'trial',
      trial: { trial_id: 't', company_key: 'k', verified: false },
    });
    expect(lookAt(ask().text, ctx({ licence: trial })).why).toMatch(/unverified/);
    const old = licence({ expires_at: '2026-09-01T00:00:00.000Z', grace_days: 30 });
    expect(lookAt(ask().text, ctx({ licence: old })).why).toMatch(/lapsed/);
    const grace = licence({ expires_at: '2026-11-20T00:00:00.000Z', grace_days: 30 });
    expect(lookAt(ask().text, ctx({ licence: grace, online: true })).would).toBe('pending');
    expect(lookAt(ask().text, ctx({ licence: grace })).would).toBe('manual');
  });

  it('never throws on any text, and never would grant a mutated one', () => {
    const r = ask();
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.anything()), (t) => {
        expect(lookAt(t, ctx()).would).toBe('refused');
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.nat(r.text.length - 1),
        fc.constantFrom('A', 'z', '0', '-', ':', '.'),
        (at, c) => {
          if (r.text.charAt(at) === c) return;
          const t = r.text.slice(0, at) + c + r.text.slice(at + 1);
          expect(lookAt(t, ctx()).would).toBe('refused');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('writes spans as days and hours, hours and minutes, or minutes', () => {
    expect(span(7 * DAY - MIN)).toBe('6 d 23 h');
    expect(span(5 * 3600_000 + 12 * MIN)).toBe('5 h 12 min');
    expect(span(-40 * MIN)).toBe('40 min');
  });
});

// The confirmation loop without a network: a spy transport counts every call, so offline is
// shown to open no socket whatever asks (start, schedule, the API), the licence's min_mode
// raises the mode, and the schedule's waits keep their jitter bounds.
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import type { Secret } from '../shared/secret.js';
import { licencePayload } from '../testing/licence/issuer.js';
import type { AuthorityResponse } from './authority-transport.js';
import { createConfirmation, type ConfirmSettings } from './confirm.js';
import { CONFIRM_EVERY_MS, nextCheckInMs } from './confirm.schedule.js';
import type { VerifiedLicence } from './document/licence-doc.js';
import { EMPTY_REVOCATIONS, type LicencePayload } from './index.js';

const NOW = '2026-11-27T12:00:00.000Z';

function harness(check: ConfirmSettings['check'], over: Partial<LicencePayload> = {}) {
  const calls: { path: string; body: unknown }[] = [];
  const appended: { type: string; data: unknown }[] = [];
  const verified = {
    licence: licencePayload(NOW, over),
    statements: [],
  } as unknown as VerifiedLicence;
  const confirm = createConfirmation({
    licence: {
      current: () => verified,
      view: () => null,
      knownStatements: () => [],
      trustContext: () => ({ roots: [], revokedKids: new Set(), fips: false }),
      authorityTime: async () => false,
      effectiveNow: () => Date.parse(NOW),
      offerRevocations: async () => undefined,
      installFrom: async () => ({ changed: false }),
      revocations: () => EMPTY_REVOCATIONS,
      settle: async () => undefined,
    },
    ledger: {
      append: (e: { type: string; data: unknown }) => {
        appended.push(e);
      },
    } as never,
    writer: { transact: async (fn: () => void) => fn() } as never,
    clock: createFakeClock(NOW),
    settings: {
      check,
      authorityUrl: 'https://authority.invalid',
      authorityPins: [],
      caBundle: null,
      httpsProxy: null as Secret | null,
      noProxy: null,
    },
    fingerprint: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF',
    installPub: null,
    version: '0.0.0-test',
    log: { warn: () => undefined, info: () => undefined },
    post: async (_s, path, body): Promise<AuthorityResponse> => {
      calls.push({ path, body });
      return { ok: false, result: 'unreachable', detail: 'spy', via: 'direct' };
    },
  });
  return { confirm, calls, appended };
}

describe('offline never opens a socket', () => {
  it('start, schedule and the API: no transport call; only the API check is answered and recorded', async () => {
    const h = harness('offline');
    expect(await h.confirm.check('start')).toBeNull();
    expect(await h.confirm.check('schedule')).toBeNull();
    const api = await h.confirm.checkNow();
    expect(api).toMatchObject({ result: 'offline', asked: false, mode: 'offline' });
    expect(h.calls).toHaveLength(0);
    expect(h.appended.map((e) => e.type)).toEqual(['licence.check']);
  });

  it("auto asks /v1/check once per check; a licence's min_mode raises offline to auto", async () => {
    const auto = harness('auto');
    await auto.confirm.check('schedule');
    expect(auto.calls.map((c) => c.path)).toEqual(['/v1/check']);
    const floor = harness('offline', { check: { min_mode: 'auto', max_unconfirmed_days: null } });
    expect(floor.confirm.mode()).toBe('auto');
    expect(await floor.confirm.check('start')).toMatchObject({
      result: 'unreachable',
      asked: true,
    });
    expect(floor.calls).toHaveLength(1);
  });

  it('two checks at once run one after the other, each with its own nonce', async () => {
    const h = harness('auto');
    await Promise.all([h.confirm.check('schedule'), h.confirm.checkNow()]);
    const nonces = h.calls.map((c) => (c.body as { nonce: string }).nonce);
    expect(new Set(nonces).size).toBe(2);
  });
});

describe('the schedule', () => {
  it('hourly ±10%, the authority may say when, a failure retries after 5–15 minutes', () => {
    expect(nextCheckInMs(null, () => 0)).toBe(CONFIRM_EVERY_MS * 0.9);
    expect(nextCheckInMs(null, () => 1)).toBe(Math.round(CONFIRM_EVERY_MS * 1.1));
    const ok = { confirmed: true, asked: true, next_check_after_s: 7200 };
    expect(nextCheckInMs(ok, () => 0.5)).toBe(7_200_000);
    const failed = { confirmed: false, asked: true, next_check_after_s: null };
    expect(nextCheckInMs(failed, () => 0)).toBe(5 * 60_000);
    expect(nextCheckInMs(failed, () => 1)).toBe(15 * 60_000);
    expect(nextCheckInMs({ ...ok, next_check_after_s: 1 }, () => 0.5)).toBe(60_000);
  });
});

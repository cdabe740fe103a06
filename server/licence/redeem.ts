// POST /v1/licence/redeem (licence.md §3.4): a short code (SVCT-XXXX-XXXX) is redeemed online,
// where the authority enforces one trial per company and answers a trial licence listing this
// install, installed through the one verifier; a long SVCT1- (or P-256 SVCT2-) code is a signed trial token,
// verified here against the key statements this install knows, bound to this fingerprint, and
// refused when its trial (or company) was already redeemed here. Every refusal is recorded.
import { randomBytes } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { ConflictError, InvalidInputError } from '../shared/errors.js';
import { postToAuthority } from './authority-transport.js';
import type { ConfirmSettings } from './confirm.js';
import type { LicenceEvents } from './licence.events.js';
import type { LicenceService, LicenceView } from './licence.service.js';
import type { LicenceStore } from './licence.store.js';
import { isOfflineTrialCode, openTrialCode } from './trial-code.js';

export const REDEEM_FORMAT = 'svc-redeem/1';
/** A redeemed offline code: the trial's terms (§3.4: 50 services, 10 installs, 1 day grace). */
export const CODE_TRIAL = {
  tier: 'trial',
  services: 50,
  install_limit: 10,
  grace_days: 1,
} as const;
const SHORT_CODE = /^SVCT-[0-9A-Z]{4}-[0-9A-Z]{4}$/;
const DAY_MS = 86_400_000;

interface Deps {
  readonly licence: LicenceService;
  readonly store: LicenceStore;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly writer: Writer;
  readonly settings: ConfirmSettings;
  readonly fingerprint: string | null;
  readonly installPub: string | null;
  readonly version: string;
  readonly post?: typeof postToAuthority;
}

export interface RedeemAnswer {
  readonly via: 'online' | 'offline';
  readonly licence: LicenceView | null;
}

export function createRedeemer(deps: Deps) {
  const { licence, store, ledger, writer, settings } = deps;
  const post = deps.post ?? postToAuthority;

  async function refuse(
    code: 'online' | 'offline',
    why: string,
    detail: string,
    err: Error,
  ): Promise<never> {
    await writer.transact(() => {
      ledger.append({
        type: 'licence.trial_refused',
        actor: 'system',
        data: { why, code, detail },
        reason: detail,
      });
    });
    throw err;
  }

  async function offline(code: string, actor: string): Promise<RedeemAnswer> {
    const v = openTrialCode(
      code,
      licence.knownStatements(),
      licence.trustContext(),
      licence.effectiveNow(),
    );
    if (!v.ok) {
      const msg = `the trial code was refused (${v.check}): ${v.detail}`;
      return refuse(
        'offline',
        v.check,
        v.detail,
        new InvalidInputError('trial_code_refused', msg, { field: 'code', check: v.check }),
      );
    }
    const t = v.token;
    if (store.trialRedeemed(t.trial_id, t.company_key)) {
      const detail = `trial ${t.trial_id} (or another of its company) was already redeemed on this install`;
      return refuse('offline', 'trial_used', detail, new ConflictError('trial_used', detail));
    }
    const expires = new Date(licence.effectiveNow() + t.days * DAY_MS).toISOString();
    await writer.transact(() => {
      ledger.append({
        type: 'licence.trial_redeemed',
        actor,
        data: {
          trial_id: t.trial_id,
          company_key: t.company_key,
          kid: t.kid,
          ...CODE_TRIAL,
          days: t.days,
          expires_at: expires,
          fingerprint: deps.fingerprint,
          verified: true,
        },
        reason: 'offline trial code redeemed',
      });
    });
    await licence.settle(actor);
    return { via: 'offline', licence: licence.view() };
  }

  async function online(code: string, actor: string): Promise<RedeemAnswer> {
    if (settings.check === 'offline') {
      const detail =
        'SVC_LICENCE_CHECK=offline: this install never asks the licence authority; redeem an offline SVCT1- or SVCT2- code instead';
      return refuse(
        'online',
        'offline_by_choice',
        detail,
        new ConflictError('offline_by_choice', detail),
      );
    }
    const url = settings.authorityUrl ?? licence.current()?.licence.authority?.url ?? null;
    if (url === null) {
      const detail = 'no licence authority is known: set SVC_AUTHORITY_URL';
      return refuse('online', 'no_authority', detail, new ConflictError('no_authority', detail));
    }
    const r = await post({ ...settings, authorityUrl: url }, '/v1/redeem', {
      format: REDEEM_FORMAT,
      code,
      fingerprint: deps.fingerprint,
      install_pub: deps.installPub,
      version: deps.version,
      nonce: randomBytes(16).toString('base64url'),
    });
    if (!r.ok)
      return refuse(
        'online',
        r.result,
        r.detail,
        new ConflictError('authority_unreachable', `the code could not be redeemed: ${r.detail}`, {
          result: r.result,
        }),
      );
    const body = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as Record<
      string,
      unknown
    >;
    if (r.status !== 200 || body['licence'] === undefined) {
      const error = typeof body['error'] === 'string' ? body['error'] : 'refused';
      const detail =
        typeof body['message'] === 'string'
          ? body['message']
          : `the authority answered ${String(r.status)}`;
      const err =
        error === 'trial_used'
          ? new ConflictError(
              'trial_used',
              `a trial was already redeemed for this company: ${detail}`,
            )
          : new InvalidInputError(
              'trial_code_refused',
              `the authority refused the code (${error}): ${detail}`,
              {
                field: 'code',
                check: error,
              },
            );
      return refuse('online', error, detail, err);
    }
    // The same verifier as any licence: a forged or foreign answer is refused and recorded.
    await licence.installFrom(body['licence'], 'redeem', actor);
    return { via: 'online', licence: licence.view() };
  }

  return {
    /** POST /v1/licence/redeem {code}. */
    async redeem(code: string, actor: string): Promise<RedeemAnswer> {
      if (licence.current() !== null) {
        throw new ConflictError(
          'licence_in_force',
          'a signed licence is in force: a trial code cannot replace it (DELETE /v1/licence first)',
        );
      }
      const trimmed = code.trim();
      if (isOfflineTrialCode(trimmed)) return offline(trimmed, actor);
      const short = trimmed.toUpperCase();
      if (!SHORT_CODE.test(short))
        throw new InvalidInputError(
          'invalid_code',
          'a trial code is SVCT-XXXX-XXXX (redeemed online) or a long SVCT1- or SVCT2- code (offline)',
          { field: 'code' },
        );
      return online(short, actor);
    },
  };
}
export type Redeemer = ReturnType<typeof createRedeemer>;

// The licence in force as people and decisions see it (licence.md §3.3, §3.7, §3.8): whether it
// covers this install (listed, a site licence, or an offline grant while it holds), its stage
// at effective time, and why it does not let the service operate when it does not. Reads
// only: the licence service (licence.service.ts) owns the licence in force and records.
import type { LicencePayload, VerifiedLicence } from './document/licence-doc.js';
import type { CheckMode } from './check-mode.js';
import { STRICT_UNCONFIRMED_MS, effectiveCheckMode, unconfirmedSince } from './check-mode.js';
import type { RevocationList } from './document/revocations-doc.js';
import type { LicenceStore, VouchedRow } from './licence.store.js';
import { stageOf, stageOperates, type LicenceStage } from './stages.js';

/** The trial on offer: 90 days at present (normally 30), 50 services, up to 10 installs. */
export const TRIAL = {
  tier: 'trial',
  services: 50,
  install_limit: 10,
  days: 90,
  grace_days: 14,
} as const;
const DAY_MS = 86_400_000;
/** How long a superseded serial keeps working once the newer serial is known (§3.9). */
export const SUPERSEDED_DAYS = 14;

export interface LicenceView {
  readonly kind: 'trial' | 'licence';
  readonly tier: string;
  readonly customer: string | null;
  readonly licence_id: string | null;
  readonly serial: number | null;
  readonly source: string;
  /** the licensed number of services, null for unlimited */
  readonly services: number | null;
  /** the services counted now (a signal in the last 30 days, or pinned); null when not counted */
  readonly services_used: number | null;
  readonly installs: number;
  readonly install_limit: number | null;
  readonly started_at: string;
  readonly expires_at: string | null;
  readonly grace_ends_at: string | null;
  readonly stage: LicenceStage;
  readonly in_grace: boolean;
  readonly valid: boolean;
  /** why the licence does not let the service operate, when it does not */
  readonly why: string | null;
  readonly days_left: number | null;
  /** the confirmation mode in force: SVC_LICENCE_CHECK raised to the licence's min_mode */
  readonly check: CheckMode;
  /** the last confirmation by the licence authority */
  readonly confirmed_at: string | null;
  /** when the licence in force was installed (the offline trial: when it started) */
  readonly installed_at: string | null;
  readonly verified: boolean;
  readonly on_licence: boolean;
  /** until when an offline grant from an install on the licence lets this one run (§3.7) */
  readonly vouched_until: string | null;
  readonly site: string | null;
  readonly file_mounted: string | null;
}

/** An offline grant from an install on the licence (installs/grant.ts checked it). */
export type Vouch = Pick<
  VouchedRow,
  'req_id' | 'fingerprint' | 'licence_id' | 'licence_serial' | 'granted_by' | 'role' | 'valid_until'
>;

export interface Active {
  readonly verified: VerifiedLicence;
  readonly text: string;
}

interface ViewDeps {
  readonly store: LicenceStore;
  readonly check: CheckMode;
  /** this install's fingerprint, null when the host gives none */
  readonly fingerprint: string | null;
  readonly servicesUsed?: () => number;
  /** the seats in use: the licence's installs and the grants issued here (the exchange) */
  readonly installsUsed?: () => number;
  /** the seats keychain members approved on this home hold */
  readonly keychainSeats?: () => number;
  /** effective time, ms */
  readonly now: () => number;
  /** the signed licence in force, or null */
  readonly active: () => Active | null;
  /** the mounted licence file while one is in force, else null */
  readonly mountedFile: () => string | null;
  /** the revocation list in force (its `grants` withdraw offline grants) */
  readonly revocations: () => RevocationList;
}

/**
 * How long the licence may go unconfirmed in the mode in force, or null for no limit: the
 * licence's `check.max_unconfirmed_days` (auto or strict; an offline install never asks), else
 * strict's 72 hours.
 */
export function unconfirmedLimit(
  l: Pick<LicencePayload, 'check'>,
  mode: CheckMode,
): { ms: number; words: string; who: string } | null {
  const days = l.check?.max_unconfirmed_days ?? null;
  if (mode !== 'offline' && days !== null)
    return {
      ms: days * DAY_MS,
      words: `${String(days)} day${days === 1 ? '' : 's'}`,
      who: 'the licence asks to be confirmed regularly',
    };
  if (mode === 'strict')
    return { ms: STRICT_UNCONFIRMED_MS, words: '72 hours', who: 'strict licence checking' };
  return null;
}

export function createLicenceViews(deps: ViewDeps) {
  const { store } = deps;
  const time = { now: deps.now };
  const settings = { check: deps.check };

  const listsThisInstall = (l: LicencePayload): boolean =>
    deps.fingerprint !== null && l.installs.some((i) => i.fingerprint === deps.fingerprint);

  /** Why the revocation list in force withdraws a grant (a seat removed), or null. */
  const withdrawn = (grant: Pick<Vouch, 'req_id'>): string | null =>
    deps.revocations().grants.find((g) => g.req_id === grant.req_id)?.reason ?? null;

  /** The grant this install runs under for `l`, while it holds (a serial listing it supersedes it). */
  function vouchedFor(l: LicencePayload, grant: Vouch | null = store.vouched()): Vouch | null {
    if (grant === null || grant.licence_id !== l.licence_id || listsThisInstall(l)) return null;
    // A grant is for one install: a copy of this data folder on another host is not covered.
    if (deps.fingerprint === null || grant.fingerprint !== deps.fingerprint) return null;
    if (withdrawn(grant) !== null) return null;
    return time.now() < Date.parse(grant.valid_until) ? grant : null;
  }

  function coversThisInstall(l: LicencePayload, grant?: Vouch): boolean {
    return l.site !== null || listsThisInstall(l) || vouchedFor(l, grant) !== null;
  }

  /** The view of the licence in force at effective time. */
  function view(): LicenceView | null {
    const tEff = time.now();
    const file = deps.mountedFile();
    const active = deps.active();
    if (active !== null) {
      const l = active.verified.licence;
      const st = stageOf(l, tEff);
      const mode = effectiveCheckMode(settings.check, l);
      const why = whyNotValid(l, st.stage, tEff, mode);
      return {
        kind: 'licence',
        tier: l.tier,
        customer: l.customer.name,
        licence_id: l.licence_id,
        serial: l.serial,
        source: store.current()?.source ?? 'api',
        services: l.limits.services,
        services_used: deps.servicesUsed?.() ?? null,
        // An install running under a grant holds a seat of its own beside the licence's.
        installs:
          (deps.installsUsed?.() ?? l.installs.length) +
          (vouchedFor(l) === null ? 0 : 1) +
          (deps.keychainSeats?.() ?? 0),
        install_limit: l.limits.installs,
        started_at: l.not_before,
        expires_at: l.expires_at,
        grace_ends_at: st.grace_ends_at,
        stage: st.stage,
        in_grace: st.stage === 'in_grace',
        valid: why === null,
        why,
        days_left: st.days_left,
        check: mode,
        confirmed_at: store.check()?.last_confirmed_at ?? null,
        installed_at: store.current()?.installed_at ?? null,
        verified: true,
        on_licence: coversThisInstall(l),
        vouched_until: vouchedFor(l)?.valid_until ?? null,
        site: l.site?.name ?? null,
        file_mounted: file,
      };
    }
    const row = store.get();
    if (row === null) return null;
    const expires = Date.parse(row.expires_at);
    const st = stageOf(
      {
        not_before: row.started_at,
        expires_at: row.expires_at,
        grace_days: row.grace_days,
        warn_days: [14, 7, 1],
      },
      tEff,
    );
    // A trial code redeemed offline is bound to the fingerprint it was redeemed on.
    const redeemed = row.kind === 'trial_code';
    const here = !redeemed || row.fingerprint === deps.fingerprint;
    const valid = stageOperates(st.stage) && here;
    return {
      kind: 'trial',
      tier: row.tier,
      customer: null,
      licence_id: null,
      serial: null,
      source: redeemed ? 'redeem' : 'trial_local',
      services: row.services,
      services_used: deps.servicesUsed?.() ?? null,
      installs: 1 + (deps.keychainSeats?.() ?? 0),
      install_limit: row.install_limit,
      started_at: row.started_at,
      expires_at: row.expires_at,
      grace_ends_at: new Date(expires + row.grace_days * DAY_MS).toISOString(),
      stage: st.stage,
      in_grace: st.stage === 'in_grace',
      valid,
      why: !here
        ? `the trial code was redeemed on another install (${row.fingerprint ?? 'none'})`
        : valid
          ? null
          : 'the trial has ended',
      days_left: st.days_left,
      // A trial held here is offline by choice: no licence to confirm with the authority.
      check: 'offline',
      confirmed_at: null,
      installed_at: row.started_at,
      verified: redeemed,
      on_licence: here,
      vouched_until: null,
      site: null,
      file_mounted: file,
    };
  }

  function whyNotValid(
    l: LicencePayload,
    stage: LicenceStage,
    tEff: number,
    mode: CheckMode,
  ): string | null {
    const trustRow = store.trust();
    if (trustRow.revoked === l.licence_id) return 'the licence has been revoked';
    if (
      trustRow.superseded_since !== null &&
      tEff >= Date.parse(trustRow.superseded_since) + SUPERSEDED_DAYS * DAY_MS
    ) {
      return `serial ${String(l.serial)} was superseded more than ${String(SUPERSEDED_DAYS)} days ago; install the newer one`;
    }
    if (!coversThisInstall(l)) {
      const ended = store.vouched();
      const reason = ended === null ? null : withdrawn(ended);
      if (ended?.licence_id === l.licence_id && reason !== null)
        return `the grant from ${ended.granted_by} was revoked (${reason}): this install is a candidate again; ask again or install a licence that lists it`;
      if (ended?.licence_id === l.licence_id)
        return `the grant from ${ended.granted_by} ended at ${ended.valid_until}: ask again (POST /v1/licence/installs/ask) or install a licence that lists this install`;
      return `this install (${deps.fingerprint ?? 'no fingerprint'}) is not on the licence`;
    }
    if (stage === 'not_yet') return `the licence starts at ${l.not_before}`;
    if (stage === 'lapsed') return 'the licence has lapsed: its grace period has ended';
    const current = store.current();
    const limit = unconfirmedLimit(l, mode);
    if (limit !== null && current !== null) {
      const confirmed = store.check()?.last_confirmed_at ?? null;
      if (tEff - unconfirmedSince(confirmed, current.installed_at) > limit.ms)
        return `${limit.who}: not confirmed by the licence authority for more than ${limit.words} (last confirmed ${confirmed ?? 'never'}); it operates again on the next confirmation (POST /v1/licence/check)`;
    }
    return null;
  }

  return { listsThisInstall, vouchedFor, coversThisInstall, view };
}

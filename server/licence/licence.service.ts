// The licence as far as this version goes: the offline trial (npm start, --trial,
// SVC_TRIAL=1). Signed licence files and installs arrive with the licence issue.
import type { Clock } from '../shared/clock.js';
import type { DomainLedger } from '../ledger/index.js';
import type { LicenceStore } from './licence.store.js';
import type { LicenceEvents } from './licence.events.js';

/** The trial on offer: 90 days at present (normally 30), 50 services, up to 10 installs. */
export const TRIAL = {
  tier: 'trial',
  services: 50,
  install_limit: 10,
  days: 90,
  grace_days: 14,
} as const;
const DAY_MS = 86_400_000;

export interface LicenceView {
  readonly kind: string;
  readonly tier: string;
  readonly services: number;
  readonly installs: number;
  readonly install_limit: number;
  readonly started_at: string;
  readonly expires_at: string;
  readonly in_grace: boolean;
  readonly valid: boolean;
  readonly days_left: number;
  readonly check: string;
}

interface Deps {
  readonly store: LicenceStore;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly clock: Clock;
  readonly checkMode: string;
}

export function createLicenceService({ store, ledger, clock, checkMode }: Deps) {
  return {
    view(): LicenceView | null {
      const row = store.get();
      if (row === null) return null;
      const now = clock.now();
      const expires = Date.parse(row.expires_at);
      const graceEnd = expires + row.grace_days * DAY_MS;
      return {
        kind: row.kind,
        tier: row.tier,
        services: row.services,
        installs: 1,
        install_limit: row.install_limit,
        started_at: row.started_at,
        expires_at: row.expires_at,
        in_grace: now >= expires && now < graceEnd,
        valid: now < graceEnd,
        days_left: Math.max(0, Math.ceil((expires - now) / DAY_MS)),
        // An offline trial is offline by choice: nothing to confirm with the authority.
        check: row.kind === 'trial' ? 'offline' : checkMode,
      };
    },
    /** Start the offline trial once per install; runs inside a writer job. */
    startTrialIfNone(actor: string, fingerprint: string | null): boolean {
      if (store.get() !== null) return false;
      ledger.append({
        type: 'licence.trial_started',
        actor,
        data: {
          tier: TRIAL.tier,
          services: TRIAL.services,
          install_limit: TRIAL.install_limit,
          days: TRIAL.days,
          grace_days: TRIAL.grace_days,
          expires_at: new Date(clock.now() + TRIAL.days * DAY_MS).toISOString(),
          fingerprint,
        },
        reason: 'offline trial started at first start',
      });
      return true;
    },
  };
}
export type LicenceService = ReturnType<typeof createLicenceService>;

import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { LicenceEvents } from './licence.events.js';

export interface LicenceRow {
  readonly kind: string;
  readonly tier: string;
  readonly services: number;
  readonly install_limit: number;
  readonly started_at: string;
  readonly expires_at: string;
  readonly grace_days: number;
  readonly fingerprint: string | null;
}

export function createLicenceStore(db: Database) {
  const get = db.prepare<[], LicenceRow>(
    `SELECT kind, tier, services, install_limit, started_at, expires_at, grace_days, fingerprint FROM licence_state WHERE id = 1`,
  );
  const put = db.prepare<[string, string, number, number, string, string, number, string | null]>(
    `INSERT OR REPLACE INTO licence_state (id, kind, tier, services, install_limit, started_at, expires_at, grace_days, fingerprint) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // Read on every gated request (mode): cached, and dropped whenever a licence event is
  // applied. A read inside an open transaction is never cached, so a rollback leaves no trace.
  let cached: LicenceRow | null | undefined;
  return {
    get(): LicenceRow | null {
      if (cached !== undefined) return cached;
      const row = get.get() ?? null;
      if (!db.inTransaction) cached = row;
      return row;
    },
    projection: projectionOf<LicenceEvents>({
      name: 'licence',
      tables: ['licence_state'],
      on: {
        'licence.trial_started': (d, e) => {
          cached = undefined;
          put.run(
            'trial',
            String(d.tier),
            Number(d.services),
            Number(d.install_limit),
            e.ts,
            String(d.expires_at),
            Number(d.grace_days),
            typeof d.fingerprint === 'string' ? d.fingerprint : null,
          );
        },
      },
    }),
  };
}
export type LicenceStore = ReturnType<typeof createLicenceStore>;

// The licence's tables, written only by this projection of licence.* events: the offline
// trial (licence_state), the signed licence in force (licence_current), the highest serial
// seen per licence (licence_serials), local trials per fingerprint (trial_history) and the
// revocation verdicts (licence_trust), and the grant this install runs under (licence_vouched).
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

export interface CurrentRow {
  readonly source: string;
  readonly licence_id: string;
  readonly serial: number;
  readonly sha256: string;
  readonly tier: string;
  readonly installed_at: string;
  readonly stage: string | null;
  readonly warned_days: number | null;
}

export interface TrustRow {
  readonly revocations_seq: number;
  readonly revoked: string | null;
  readonly superseded_since: string | null;
}

export interface CheckRow {
  readonly last_checked_at: string;
  readonly last_result: string;
  readonly last_confirmed_at: string | null;
  readonly authority_time: string | null;
}

/** The offline grant this install runs under (licence.md §3.7), until a serial lists it. */
export interface VouchedRow {
  readonly req_id: string;
  readonly fingerprint: string;
  readonly licence_id: string;
  readonly licence_serial: number;
  readonly granted_by: string;
  readonly role: string;
  readonly valid_until: string;
  readonly accepted_at: string;
}

export function createLicenceStore(db: Database) {
  const get = db.prepare<[], LicenceRow>(
    `SELECT kind, tier, services, install_limit, started_at, expires_at, grace_days, fingerprint FROM licence_state WHERE id = 1`,
  );
  const put = db.prepare<[string, string, number, number, string, string, number, string | null]>(
    `INSERT OR REPLACE INTO licence_state (id, kind, tier, services, install_limit, started_at, expires_at, grace_days, fingerprint) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const currentQ = db.prepare<[], CurrentRow>(
    `SELECT source, licence_id, serial, sha256, tier, installed_at, stage, warned_days FROM licence_current WHERE id = 1`,
  );
  const putCurrent = db.prepare<[string, string, number, string, string, string]>(
    `INSERT OR REPLACE INTO licence_current (id, source, licence_id, serial, sha256, tier, installed_at, stage, warned_days)
     VALUES (1, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
  );
  const dropCurrent = db.prepare(`DELETE FROM licence_current WHERE id = 1`);
  const dropTrial = db.prepare(`DELETE FROM licence_state WHERE id = 1`);
  const setStage = db.prepare<[string, number | null]>(
    `UPDATE licence_current SET stage = ?, warned_days = ? WHERE id = 1`,
  );
  const serialQ = db.prepare<[string], { serial: number }>(
    `SELECT serial FROM licence_serials WHERE licence_id = ?`,
  );
  const raiseSerial = db.prepare<[string, number]>(
    `INSERT INTO licence_serials (licence_id, serial) VALUES (?, ?)
     ON CONFLICT (licence_id) DO UPDATE SET serial = max(serial, excluded.serial)`,
  );
  const trialQ = db.prepare<[string], { started_at: string }>(
    `SELECT started_at FROM trial_history WHERE fingerprint = ?`,
  );
  const putTrial = db.prepare<[string, string, number]>(
    `INSERT OR IGNORE INTO trial_history (fingerprint, started_at, verified) VALUES (?, ?, ?)`,
  );
  const trustQ = db.prepare<[], TrustRow>(
    `SELECT revocations_seq, revoked, superseded_since FROM licence_trust WHERE id = 1`,
  );
  const ensureTrust = db.prepare(
    `INSERT OR IGNORE INTO licence_trust (id, revocations_seq, revoked, superseded_since) VALUES (1, 0, NULL, NULL)`,
  );
  const setSeq = db.prepare<[number]>(
    `UPDATE licence_trust SET revocations_seq = max(revocations_seq, ?) WHERE id = 1`,
  );
  const setRevoked = db.prepare<[string | null]>(
    `UPDATE licence_trust SET revoked = ? WHERE id = 1`,
  );
  const setSuperseded = db.prepare<[string | null]>(
    `UPDATE licence_trust SET superseded_since = ? WHERE id = 1`,
  );
  const checkQ = db.prepare<[], CheckRow>(
    `SELECT last_checked_at, last_result, last_confirmed_at, authority_time FROM licence_check WHERE id = 1`,
  );
  const putCheck = db.prepare<[string, string, string | null, string | null]>(
    `INSERT INTO licence_check (id, last_checked_at, last_result, last_confirmed_at, authority_time)
     VALUES (1, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET last_checked_at = excluded.last_checked_at,
       last_result = excluded.last_result,
       last_confirmed_at = coalesce(excluded.last_confirmed_at, last_confirmed_at),
       authority_time = coalesce(excluded.authority_time, authority_time)`,
  );
  const redeemedQ = db.prepare<[string, string], { trial_id: string }>(
    `SELECT trial_id FROM trial_redeemed WHERE trial_id = ? OR company_key = ? LIMIT 1`,
  );
  const putRedeemed = db.prepare<[string, string, string | null, string]>(
    `INSERT OR IGNORE INTO trial_redeemed (trial_id, company_key, fingerprint, redeemed_at) VALUES (?, ?, ?, ?)`,
  );
  const vouchedQ = db.prepare<[], VouchedRow>(
    `SELECT req_id, fingerprint, licence_id, licence_serial, granted_by, role, valid_until, accepted_at FROM licence_vouched WHERE id = 1`,
  );
  const putVouched = db.prepare<[string, string, string, number, string, string, string, string]>(
    `INSERT OR REPLACE INTO licence_vouched (id, req_id, fingerprint, licence_id, licence_serial, granted_by, role, valid_until, accepted_at)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const dropVouched = db.prepare(`DELETE FROM licence_vouched WHERE id = 1`);
  const trust = (): void => {
    ensureTrust.run();
  };

  // Read on every gated request (mode): cached, and dropped whenever a licence event is
  // applied. A read inside an open transaction is never cached, so a rollback leaves no trace.
  let cached: LicenceRow | null | undefined;
  let cachedCurrent: CurrentRow | null | undefined;
  let cachedCheck: CheckRow | null | undefined;
  let cachedTrust: TrustRow | undefined;
  let cachedVouched: VouchedRow | null | undefined;
  const dropCache = (): void => {
    cachedVouched = undefined;
    cached = undefined;
    cachedCurrent = undefined;
    cachedCheck = undefined;
    cachedTrust = undefined;
  };
  return {
    get(): LicenceRow | null {
      if (cached !== undefined) return cached;
      const row = get.get() ?? null;
      if (!db.inTransaction) cached = row;
      return row;
    },
    current(): CurrentRow | null {
      if (cachedCurrent !== undefined) return cachedCurrent;
      const row = currentQ.get() ?? null;
      if (!db.inTransaction) cachedCurrent = row;
      return row;
    },
    highestSerial(licenceId: string): number | null {
      return serialQ.get(licenceId)?.serial ?? null;
    },
    /** The last check with the authority and the last confirmation, or null before any. */
    check(): CheckRow | null {
      if (cachedCheck !== undefined) return cachedCheck;
      const row = checkQ.get() ?? null;
      if (!db.inTransaction) cachedCheck = row;
      return row;
    },
    /** Whether a trial code of this trial (or company) was already redeemed here. */
    trialRedeemed(trialId: string, companyKey: string): boolean {
      return redeemedQ.get(trialId, companyKey) !== undefined;
    },
    trialStartedFor(fingerprint: string): string | null {
      return trialQ.get(fingerprint)?.started_at ?? null;
    },
    trust(): TrustRow {
      if (cachedTrust !== undefined) return cachedTrust;
      const row = trustQ.get() ?? { revocations_seq: 0, revoked: null, superseded_since: null };
      if (!db.inTransaction) cachedTrust = row;
      return row;
    },
    /** The grant this install runs under, or null. */
    vouched(): VouchedRow | null {
      if (cachedVouched !== undefined) return cachedVouched;
      const row = vouchedQ.get() ?? null;
      if (!db.inTransaction) cachedVouched = row;
      return row;
    },
    /** Drop what was read: a group rolled back. */
    dropCache,
    projection: projectionOf<LicenceEvents>({
      name: 'licence',
      tables: [
        'licence_state',
        'licence_current',
        'licence_serials',
        'trial_history',
        'licence_trust',
        'licence_check',
        'trial_redeemed',
        'licence_vouched',
      ],
      on: {
        'licence.trial_started': (d, e) => {
          dropCache();
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
          if (typeof d.fingerprint === 'string') putTrial.run(d.fingerprint, e.ts, 0);
        },
        'licence.installed': (d, e) => {
          dropCache();
          putCurrent.run(d.source, d.licence_id, d.serial, d.sha256, d.tier, e.ts);
          raiseSerial.run(d.licence_id, d.serial);
          trust();
          setRevoked.run(null);
          setSuperseded.run(null);
        },
        'licence.replaced': (d, e) => {
          dropCache();
          putCurrent.run(d.source, d.licence_id, d.serial, d.sha256, d.tier, e.ts);
          raiseSerial.run(d.licence_id, d.serial);
          trust();
          setRevoked.run(null);
          setSuperseded.run(null);
        },
        // Removing goes back to setup: the signed licence and the offline trial both end
        // (trial_history keeps the fingerprint, so no second trial follows).
        'licence.removed': () => {
          dropCache();
          dropCurrent.run();
          dropTrial.run();
          dropVouched.run();
        },
        'licence.install.grant_accepted': (d, e) => {
          dropCache();
          putVouched.run(
            d.req_id,
            d.fingerprint,
            d.licence_id,
            d.licence_serial,
            d.granted_by,
            d.role,
            d.valid_until,
            e.ts,
          );
        },
        'licence.expiring': (d) => {
          dropCache();
          setStage.run('expiring', d.days);
        },
        'licence.grace_entered': () => {
          dropCache();
          setStage.run('in_grace', null);
        },
        'licence.lapsed': () => {
          dropCache();
          setStage.run('lapsed', null);
        },
        'licence.revoked': (d) => {
          dropCache();
          trust();
          setRevoked.run(d.licence_id);
        },
        'licence.superseded': (_d, e) => {
          dropCache();
          trust();
          setSuperseded.run(e.ts);
        },
        'licence.revocations_updated': (d) => {
          dropCache();
          trust();
          setSeq.run(d.seq);
        },
        'licence.check': (d, e) => {
          dropCache();
          putCheck.run(e.ts, d.result, d.confirmed ? e.ts : null, d.authority_time);
        },
        'licence.trial_redeemed': (d, e) => {
          dropCache();
          put.run(
            'trial_code',
            d.tier,
            d.services,
            d.install_limit,
            e.ts,
            d.expires_at,
            d.grace_days,
            d.fingerprint,
          );
          putRedeemed.run(d.trial_id, d.company_key, d.fingerprint, e.ts);
          if (d.fingerprint !== null) putTrial.run(d.fingerprint, e.ts, 1);
        },
      },
    }),
  };
}
export type LicenceStore = ReturnType<typeof createLicenceStore>;

// The install exchange's tables (licence.md §3.7), written only by this projection of
// licence.install.* events: requests asked here and requests received here (licence_requests),
// and the installs removed here (licence_install_removals). The grant this install runs under
// is the licence store's (licence_vouched): it decides whether the licence covers this install.
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../../ledger/index.js';
import type { LicenceEvents } from '../licence.events.js';
import type { RequestRecord } from './vouch.js';

export type RequestSide = 'asked' | 'received';
/** open (asked, or only wrong codes so far), granted, pending, manual, burned, or refused by the authority */
export type RequestState = 'open' | 'granted' | 'pending' | 'manual' | 'burned' | 'refused';

export interface RequestRow {
  readonly req_id: string;
  readonly side: RequestSide;
  readonly fingerprint: string;
  readonly purpose: string;
  readonly label: string | null;
  readonly nonce: string | null;
  readonly install_pub: string | null;
  readonly code: string | null;
  readonly licence_id: string | null;
  readonly state: RequestState;
  readonly mismatches: number;
  readonly via: string | null;
  readonly why: string | null;
  readonly role: string | null;
  readonly valid_until: string | null;
  readonly polled_state: string | null;
  readonly created_at: string;
  readonly expires_at: string;
  readonly updated_at: string;
}

export interface RemovalRow {
  readonly fingerprint: string;
  readonly licence_id: string;
  readonly licence_serial: number;
  readonly req_id: string | null;
  readonly was: string;
  readonly removed_at: string;
}

type AskedRow = LicenceEvents['licence.install.asked'] & { readonly ts: string };
type VouchedRow = Omit<LicenceEvents['licence.install.vouched'], 'install_pub'> & {
  readonly install_pub: string | null;
  readonly ts: string;
};

const COLUMNS = `req_id, side, fingerprint, purpose, label, nonce, install_pub, code, licence_id, state,
  mismatches, via, why, role, valid_until, polled_state, created_at, expires_at, updated_at`;

export function createExchangeStore(db: Database) {
  const one = db.prepare<[string, RequestSide], RequestRow>(
    `SELECT ${COLUMNS} FROM licence_requests WHERE req_id = ? AND side = ?`,
  );
  const bySide = db.prepare<[RequestSide], RequestRow>(
    `SELECT ${COLUMNS} FROM licence_requests WHERE side = ? ORDER BY created_at DESC, req_id DESC LIMIT 200`,
  );
  const grantsQ = db.prepare<[string], RequestRow>(
    `SELECT ${COLUMNS} FROM licence_requests
     WHERE side = 'received' AND state = 'granted' AND via = 'grant' AND licence_id = ?
     ORDER BY created_at`,
  );
  // Named parameters: several are written twice (created_at and updated_at start equal).
  const asked = db.prepare<[AskedRow]>(
    `INSERT OR IGNORE INTO licence_requests (req_id, side, fingerprint, purpose, label, nonce, install_pub,
       code, licence_id, state, mismatches, created_at, expires_at, updated_at)
     VALUES (@req_id, 'asked', @fingerprint, @purpose, @label, @nonce, @install_pub, @code, @licence_id,
       'open', 0, @ts, @expires_at, @ts)`,
  );
  // A wrong code for a request never recorded here opens its row (the replay guard's too).
  const mismatch = db.prepare<
    [{ req_id: string; fingerprint: string; attempt: number; expires_at: string; ts: string }]
  >(
    `INSERT INTO licence_requests (req_id, side, fingerprint, purpose, state, mismatches, created_at, expires_at, updated_at)
     VALUES (@req_id, 'received', @fingerprint, '', 'open', @attempt, @ts, @expires_at, @ts)
     ON CONFLICT (req_id, side) DO UPDATE SET mismatches = max(mismatches, excluded.mismatches),
       updated_at = excluded.updated_at`,
  );
  const burned = db.prepare<[{ req_id: string; fingerprint: string; ts: string }]>(
    `INSERT INTO licence_requests (req_id, side, fingerprint, purpose, state, mismatches, created_at, expires_at, updated_at)
     VALUES (@req_id, 'received', @fingerprint, '', 'burned', 0, @ts, @ts, @ts)
     ON CONFLICT (req_id, side) DO UPDATE SET state = 'burned', updated_at = excluded.updated_at`,
  );
  const vouched = db.prepare<[VouchedRow]>(
    `INSERT INTO licence_requests (req_id, side, fingerprint, purpose, label, install_pub, licence_id, state, via,
       why, role, valid_until, mismatches, created_at, expires_at, updated_at)
     VALUES (@req_id, 'received', @fingerprint, @purpose, @label, @install_pub, @licence_id, @result, @via,
       @why, @role, @valid_until, 0, @ts, @expires_at, @ts)
     ON CONFLICT (req_id, side) DO UPDATE SET fingerprint = excluded.fingerprint, purpose = excluded.purpose,
       label = excluded.label, install_pub = excluded.install_pub, licence_id = excluded.licence_id, state = excluded.state, via = excluded.via,
       why = excluded.why, role = excluded.role, valid_until = excluded.valid_until,
       expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
  );
  const accepted = db.prepare<[{ req_id: string; valid_until: string; role: string; ts: string }]>(
    `UPDATE licence_requests SET state = 'granted', via = 'grant', valid_until = @valid_until, role = @role,
       updated_at = @ts
     WHERE req_id = @req_id AND side = 'asked'`,
  );
  const polled = db.prepare<[{ req_id: string; state: string; ts: string }]>(
    `UPDATE licence_requests SET polled_state = @state, updated_at = @ts WHERE req_id = @req_id AND side = 'asked'`,
  );
  const removalsQ = db.prepare<[string, number], RemovalRow>(
    `SELECT fingerprint, licence_id, licence_serial, req_id, was, removed_at FROM licence_install_removals
     WHERE licence_id = ? AND licence_serial >= ? ORDER BY removed_at`,
  );
  const removalsAll = db.prepare<[], RemovalRow>(
    `SELECT fingerprint, licence_id, licence_serial, req_id, was, removed_at FROM licence_install_removals ORDER BY removed_at`,
  );
  const removed = db.prepare<[string, string, number, string, string | null, string]>(
    `INSERT OR REPLACE INTO licence_install_removals (fingerprint, licence_id, licence_serial, was, req_id, removed_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const grantRemovalsQ = db.prepare<[string], RemovalRow>(
    `SELECT fingerprint, licence_id, licence_serial, req_id, was, removed_at FROM licence_install_removals
     WHERE licence_id = ? AND was = 'grant' ORDER BY removed_at`,
  );

  return {
    request: (reqId: string, side: RequestSide): RequestRow | null => one.get(reqId, side) ?? null,
    /** The newest 200 requests of a side. */
    requests: (side: RequestSide): readonly RequestRow[] => bySide.all(side),
    /** Offline grants issued here for a licence (the caller drops those a serial lists or that ended). */
    grantsIssued: (licenceId: string): readonly RequestRow[] => grantsQ.all(licenceId),
    /** What vouch.ts needs of a received request: its state and wrong codes so far. */
    recordOf(reqId: string): RequestRecord | null {
      const r = one.get(reqId, 'received');
      if (r === undefined) return null;
      const state =
        r.state === 'open'
          ? 'open'
          : r.state === 'burned'
            ? 'burned'
            : r.state === 'granted'
              ? 'vouched'
              : r.state === 'manual'
                ? 'forwarded'
                : 'authority';
      return { state, mismatches: r.mismatches };
    },
    /** Every removal recorded here. */
    removals: (): readonly RemovalRow[] => removalsAll.all(),
    /** Grants removed here, whatever the serial: a grant is E's own, no serial restores it. */
    grantRemovals: (licenceId: string): readonly RemovalRow[] => grantRemovalsQ.all(licenceId),
    /** The removals that hold for this serial of a licence (a later serial is the vendor's word). */
    removalsFor: (lic: { licence_id: string; serial: number }): readonly RemovalRow[] =>
      removalsQ.all(lic.licence_id, lic.serial),
    projection: projectionOf<LicenceEvents>({
      name: 'licence-exchange',
      tables: ['licence_requests', 'licence_install_removals'],
      on: {
        'licence.install.asked': (d, e) => {
          asked.run({ ...d, ts: e.ts });
        },
        'licence.install.code_mismatch': (d, e) => {
          mismatch.run({ ...d, ts: e.ts });
        },
        'licence.install.request_burned': (d, e) => {
          burned.run({ req_id: d.req_id, fingerprint: d.fingerprint, ts: e.ts });
        },
        'licence.install.vouched': (d, e) => {
          vouched.run({ ...d, install_pub: d.install_pub ?? null, ts: e.ts });
        },
        'licence.install.grant_accepted': (d, e) => {
          accepted.run({ req_id: d.req_id, valid_until: d.valid_until, role: d.role, ts: e.ts });
        },
        'licence.install.polled': (d, e) => {
          polled.run({ req_id: d.req_id, state: d.state, ts: e.ts });
        },
        'licence.install.removed': (d, e) => {
          removed.run(d.fingerprint, d.licence_id, d.licence_serial, d.was, d.req_id, e.ts);
        },
      },
    }),
  };
}
export type ExchangeStore = ReturnType<typeof createExchangeStore>;

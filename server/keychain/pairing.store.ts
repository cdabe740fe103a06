// Pairing's and handover's operational tables (keychain_windows, keychain_pairing,
// keychain_handover): short-lived, holding the nonces and codes people compare, so written
// here directly rather than projected from the ledger; the services append a keychain.*
// event beside every change.
import type { Database } from 'better-sqlite3';

export interface WindowRow {
  readonly id: string;
  readonly opened_at: string;
  readonly expires_at: string;
  readonly failures: number;
  readonly closed_at: string | null;
}

export type PairingState = 'open' | 'added' | 'failed' | 'cancelled';

export interface PairingRow {
  readonly request_id: string;
  readonly side: 'home' | 'joiner';
  readonly window_id: string | null;
  readonly keychain_id: string;
  readonly peer_fp: string;
  readonly peer_sig_pub: string;
  readonly peer_kx_pub: string;
  readonly peer_label: string;
  readonly own_label: string | null;
  readonly address: string | null;
  readonly commit_hash: string;
  readonly home_nonce: string | null;
  readonly joiner_nonce: string | null;
  readonly state: PairingState;
  readonly reason: string | null;
  readonly home_confirmed: number;
  readonly joiner_confirmed: number;
  readonly created_at: string;
  readonly expires_at: string;
}

export interface OfferRow {
  readonly offer_id: string;
  readonly to_fp: string;
  readonly epoch: number;
  readonly prev: string;
  readonly code: string;
  readonly state: 'open' | 'accepted' | 'cancelled';
  readonly reason: string | null;
  /** the handover record (canonical JSON) once accepted */
  readonly record: string | null;
  readonly created_at: string;
  readonly expires_at: string;
}

export function createPairingStore(db: Database) {
  const putOffer = db.prepare<Omit<OfferRow, 'state' | 'reason' | 'record'>>(
    `INSERT INTO keychain_handover (offer_id, to_fp, epoch, prev, code, state, created_at, expires_at)
     VALUES (@offer_id, @to_fp, @epoch, @prev, @code, 'open', @created_at, @expires_at)`,
  );
  const offer = db.prepare<[string], OfferRow>(
    'SELECT * FROM keychain_handover WHERE offer_id = ?',
  );
  const latestOffer = db.prepare<[], OfferRow>(
    'SELECT * FROM keychain_handover ORDER BY created_at DESC, offer_id DESC LIMIT 1',
  );
  const endOffer = db.prepare<[string, string | null, string | null, string]>(
    "UPDATE keychain_handover SET state = ?, reason = ?, record = ? WHERE offer_id = ? AND state = 'open'",
  );
  const openWindow = db.prepare<[string, string, string]>(
    'INSERT INTO keychain_windows (id, opened_at, expires_at) VALUES (?, ?, ?)',
  );
  const window = db.prepare<[string], WindowRow>('SELECT * FROM keychain_windows WHERE id = ?');
  const latestWindow = db.prepare<[], WindowRow>(
    'SELECT * FROM keychain_windows ORDER BY opened_at DESC, id DESC LIMIT 1',
  );
  const failWindow = db.prepare<[string]>(
    'UPDATE keychain_windows SET failures = failures + 1 WHERE id = ?',
  );
  const closeWindow = db.prepare<[string, string]>(
    'UPDATE keychain_windows SET closed_at = ? WHERE id = ? AND closed_at IS NULL',
  );
  const put = db.prepare<PairingRow>(
    `INSERT INTO keychain_pairing (request_id, side, window_id, keychain_id, peer_fp, peer_sig_pub,
       peer_kx_pub, peer_label, own_label, address, commit_hash, home_nonce, joiner_nonce, state, reason,
       home_confirmed, joiner_confirmed, created_at, expires_at)
     VALUES (@request_id, @side, @window_id, @keychain_id, @peer_fp, @peer_sig_pub, @peer_kx_pub,
       @peer_label, @own_label, @address, @commit_hash, @home_nonce, @joiner_nonce, @state, @reason,
       @home_confirmed, @joiner_confirmed, @created_at, @expires_at)`,
  );
  const get = db.prepare<[string], PairingRow>(
    'SELECT * FROM keychain_pairing WHERE request_id = ?',
  );
  const bySide = db.prepare<[string], PairingRow>(
    'SELECT * FROM keychain_pairing WHERE side = ? ORDER BY created_at DESC, request_id',
  );
  const inWindow = db.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM keychain_pairing WHERE window_id = ? AND state = 'open'",
  );
  const allInWindow = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM keychain_pairing WHERE window_id = ?',
  );
  const setNonces = db.prepare<[string, string, string]>(
    'UPDATE keychain_pairing SET home_nonce = ?, joiner_nonce = ? WHERE request_id = ?',
  );
  const confirm = {
    home: db.prepare<[string]>(
      'UPDATE keychain_pairing SET home_confirmed = 1 WHERE request_id = ?',
    ),
    joiner: db.prepare<[string]>(
      'UPDATE keychain_pairing SET joiner_confirmed = 1 WHERE request_id = ?',
    ),
  };
  const end = db.prepare<[PairingState, string | null, string]>(
    "UPDATE keychain_pairing SET state = ?, reason = ? WHERE request_id = ? AND state = 'open'",
  );
  // Ended requests are kept an hour for the view, then forgotten with their nonces.
  const prune = db.prepare<[string]>('DELETE FROM keychain_pairing WHERE expires_at < ?');
  const pruneWindows = db.prepare<[string]>('DELETE FROM keychain_windows WHERE expires_at < ?');

  return {
    putOffer(row: Omit<OfferRow, 'state' | 'reason' | 'record'>): void {
      putOffer.run(row);
    },
    offer: (id: string): OfferRow | null => offer.get(id) ?? null,
    latestOffer: (): OfferRow | null => latestOffer.get() ?? null,
    /** Ends an open offer: accepted (with its record) or cancelled; false when it had ended. */
    endOffer(
      id: string,
      state: 'accepted' | 'cancelled',
      reason: string | null,
      record: string | null,
    ): boolean {
      return endOffer.run(state, reason, record, id).changes === 1;
    },
    openWindow(id: string, openedAt: string, expiresAt: string): void {
      openWindow.run(id, openedAt, expiresAt);
    },
    window: (id: string): WindowRow | null => window.get(id) ?? null,
    latestWindow: (): WindowRow | null => latestWindow.get() ?? null,
    failWindow(id: string): void {
      failWindow.run(id);
    },
    closeWindow(id: string, at: string): void {
      closeWindow.run(at, id);
    },
    put(row: PairingRow): void {
      put.run(row);
    },
    get: (requestId: string): PairingRow | null => get.get(requestId) ?? null,
    list: (side: 'home' | 'joiner'): PairingRow[] => bySide.all(side),
    openInWindow: (windowId: string): number => inWindow.get(windowId)?.n ?? 0,
    requestsInWindow: (windowId: string): number => allInWindow.get(windowId)?.n ?? 0,
    setNonces(requestId: string, homeNonce: string, joinerNonce: string): void {
      setNonces.run(homeNonce, joinerNonce, requestId);
    },
    confirm(requestId: string, side: 'home' | 'joiner'): void {
      confirm[side].run(requestId);
    },
    /** Ends an open request; false when it had ended already. */
    end(requestId: string, state: Exclude<PairingState, 'open'>, reason: string | null): boolean {
      return end.run(state, reason, requestId).changes === 1;
    },
    prune(beforeIso: string): void {
      prune.run(beforeIso);
      pruneWindows.run(beforeIso);
    },
  };
}
export type PairingStore = ReturnType<typeof createPairingStore>;

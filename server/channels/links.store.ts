// Which approval requests had a link used (table channel_link_uses, migration 0017).
import type { Database } from 'better-sqlite3';

export interface LinkUse {
  readonly request_id: string;
  readonly decision: 'approve' | 'deny';
  readonly token_id: string;
  readonly used_at: string;
}

export interface LinkUses {
  find(requestId: string): LinkUse | null;
  /** Records the use; false when the request already had a link used (nothing changes). */
  markUsed(use: LinkUse): boolean;
}

export function createLinkUseStore(db: Database): LinkUses {
  const find = db.prepare<[string], LinkUse>(
    'SELECT request_id, decision, token_id, used_at FROM channel_link_uses WHERE request_id = ?',
  );
  const insert = db.prepare<[string, string, string, string]>(
    `INSERT INTO channel_link_uses (request_id, decision, token_id, used_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (request_id) DO NOTHING`,
  );
  return {
    find: (requestId) => find.get(requestId) ?? null,
    markUsed: (use) =>
      insert.run(use.request_id, use.decision, use.token_id, use.used_at).changes === 1,
  };
}

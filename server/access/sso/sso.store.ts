// SSO settings (a projection of config.sso_set) and the groups seen in SSO sign-ins.
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../../ledger/index.js';
import type { AccessEvents } from '../access.events.js';
import { canonicalJson } from '../../shared/canonical-json.js';

export const SSO_SET = 'config.sso_set';
/** Group values remembered at most; the stalest go first. */
const MAX_GROUPS_SEEN = 10_000;

export interface StoredSsoSettings {
  readonly settings: Record<string, unknown>;
  readonly set_by: string;
  readonly set_at: string;
}

export interface GroupSeen {
  readonly value: string;
  readonly first_seen_at: string;
  readonly last_seen_at: string;
  readonly sign_ins: number;
}

export function createSsoStore(db: Database) {
  const get = db.prepare<[], { settings: string; set_by: string; set_at: string }>(
    'SELECT settings, set_by, set_at FROM sso_settings WHERE id = 1',
  );
  const put = db.prepare<[string, string, string]>(
    'INSERT OR REPLACE INTO sso_settings (id, settings, set_by, set_at) VALUES (1, ?, ?, ?)',
  );
  const see = db.prepare<[string, string, string]>(
    `INSERT INTO sso_groups_seen (value, first_seen_at, last_seen_at, sign_ins) VALUES (?, ?, ?, 1)
     ON CONFLICT (value) DO UPDATE SET last_seen_at = excluded.last_seen_at, sign_ins = sign_ins + 1`,
  );
  const trim = db.prepare<[number]>(
    `DELETE FROM sso_groups_seen WHERE value IN
       (SELECT value FROM sso_groups_seen ORDER BY last_seen_at DESC LIMIT -1 OFFSET ?)`,
  );
  const search = db.prepare<[string, number], GroupSeen>(
    `SELECT value, first_seen_at, last_seen_at, sign_ins FROM sso_groups_seen
     WHERE instr(lower(value), lower(?)) > 0 ORDER BY value LIMIT ?`,
  );
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM sso_groups_seen');
  return {
    get(): StoredSsoSettings | null {
      const row = get.get();
      return row ? { ...row, settings: JSON.parse(row.settings) as Record<string, unknown> } : null;
    },
    /** Remember the groups of one sign-in (call inside a writer job). */
    sawGroups(values: readonly string[], at: string): void {
      for (const v of values) see.run(v, at, at);
      trim.run(MAX_GROUPS_SEEN);
    },
    searchGroups: (q: string, limit: number): GroupSeen[] => search.all(q, limit),
    groupsSeen: (): number => count.get()?.n ?? 0,
    projection: projectionOf<AccessEvents>({
      name: 'sso',
      tables: ['sso_settings'],
      on: {
        [SSO_SET]: (d, e) => {
          put.run(canonicalJson(d.settings ?? {}), e.actor, e.ts);
        },
      },
    }),
  };
}
export type SsoStore = ReturnType<typeof createSsoStore>;

import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { PolicyEvents } from './policy.events.js';
import { canonicalJson } from '../shared/canonical-json.js';

/** PUT /v1/policy: data {policy, sha256, via?}. */
export const POLICY_SET = 'policy.set';
/** The SVC_POLICY file, read at start, differs from what was recorded last: {policy, file, sha256}. */
export const POLICY_LOADED = 'policy.loaded';

export type PolicyRowSource = 'api' | 'file';

export interface PolicyRow {
  readonly source: PolicyRowSource;
  /** The document as stored (canonical JSON, parsed). */
  readonly document: Record<string, unknown>;
  readonly file: string | null;
  readonly sha256: string;
  readonly set_by: string;
  readonly set_at: string;
  readonly seq: number;
}

interface RawRow extends Omit<PolicyRow, 'document'> {
  readonly document: string;
}

const COLUMNS = 'source, document, file, sha256, set_by, set_at, seq';
const toRow = (r: RawRow | undefined): PolicyRow | null =>
  r === undefined ? null : { ...r, document: JSON.parse(r.document) as Record<string, unknown> };
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function createPolicyStore(db: Database) {
  const get = db.prepare<[PolicyRowSource], RawRow>(
    `SELECT ${COLUMNS} FROM policy_state WHERE source = ?`,
  );
  const last = db.prepare<[], RawRow>(
    `SELECT ${COLUMNS} FROM policy_state ORDER BY seq DESC LIMIT 1`,
  );
  const put = db.prepare<[PolicyRowSource, string, string | null, string, string, string, number]>(
    `INSERT OR REPLACE INTO policy_state (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    /** The last document of one source: set through the API, or loaded from the file. */
    get: (source: PolicyRowSource): PolicyRow | null => toRow(get.get(source)),
    /** The document the ledger recorded last, of either source. */
    last: (): PolicyRow | null => toRow(last.get()),
    projection: projectionOf<PolicyEvents>({
      name: 'policy',
      tables: ['policy_state'],
      on: {
        [POLICY_SET]: (d, e) => {
          put.run('api', canonicalJson(d.policy ?? {}), null, text(d.sha256), e.actor, e.ts, e.seq);
        },
        [POLICY_LOADED]: (d, e) => {
          put.run(
            'file',
            canonicalJson(d.policy ?? {}),
            text(d.file),
            text(d.sha256),
            e.actor,
            e.ts,
            e.seq,
          );
        },
      },
    }),
  };
}
export type PolicyStore = ReturnType<typeof createPolicyStore>;

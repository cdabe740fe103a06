// The last lookback report: a projection of lookback.reported (one row, replaced by each run).
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { LOOKBACK_REPORTED, type LookbackEvents } from './lookback.events.js';

export interface StoredReport {
  readonly report: LookbackEvents[typeof LOOKBACK_REPORTED];
  readonly run_by: string;
  readonly run_at: string;
  readonly seq: number;
}

export function createLookbackStore(db: Database) {
  const get = db.prepare<[], { report: string; run_by: string; run_at: string; seq: number }>(
    'SELECT report, run_by, run_at, seq FROM lookback_reports WHERE id = 1',
  );
  const put = db.prepare<[string, string, string, number]>(
    'INSERT OR REPLACE INTO lookback_reports (id, report, run_by, run_at, seq) VALUES (1, ?, ?, ?, ?)',
  );
  return {
    last(): StoredReport | null {
      const row = get.get();
      return row === undefined
        ? null
        : { ...row, report: JSON.parse(row.report) as StoredReport['report'] };
    },
    projection: projectionOf<LookbackEvents>({
      name: 'lookback',
      tables: ['lookback_reports'],
      on: {
        [LOOKBACK_REPORTED]: (d, e) => {
          put.run(canonicalJson(d), e.actor, e.ts, e.seq);
        },
      },
    }),
  };
}
export type LookbackStore = ReturnType<typeof createLookbackStore>;

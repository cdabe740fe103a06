import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { ImpactEvents } from './impact.events.js';
import { canonicalJson } from '../shared/canonical-json.js';

export const IMPACT_SET = 'config.impact_set';

export function createImpactStore(db: Database) {
  const get = db.prepare<[], { figures: string; set_by: string; set_at: string }>(
    'SELECT figures, set_by, set_at FROM impact_figures WHERE id = 1',
  );
  const put = db.prepare<[string, string, string]>(
    'INSERT OR REPLACE INTO impact_figures (id, figures, set_by, set_at) VALUES (1, ?, ?, ?)',
  );
  return {
    get(): { figures: Record<string, unknown>; set_by: string; set_at: string } | null {
      const row = get.get();
      return row ? { ...row, figures: JSON.parse(row.figures) as Record<string, unknown> } : null;
    },
    projection: projectionOf<ImpactEvents>({
      name: 'impact',
      tables: ['impact_figures'],
      on: {
        [IMPACT_SET]: (d, e) => {
          put.run(canonicalJson(d.figures), e.actor, e.ts);
        },
      },
    }),
  };
}
export type ImpactStore = ReturnType<typeof createImpactStore>;

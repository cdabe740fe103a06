import type { Database } from 'better-sqlite3';
import type { Projection } from '../ledger/index.js';
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
    projection: {
      name: 'impact',
      tables: ['impact_figures'],
      types: [IMPACT_SET],
      apply(e) {
        if (e.type === IMPACT_SET) put.run(canonicalJson(e.data['figures'] ?? {}), e.actor, e.ts);
      },
    } satisfies Projection,
  };
}
export type ImpactStore = ReturnType<typeof createImpactStore>;

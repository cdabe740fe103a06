import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { BrandingEvents } from './branding.events.js';
import { canonicalJson } from '../shared/canonical-json.js';

/** PUT /v1/branding: data {branding, sha256, via?}. */
export const BRANDING_SET = 'config.branding_set';

export interface BrandingRow {
  /** The document as stored (canonical JSON, parsed). */
  readonly document: Record<string, unknown>;
  readonly sha256: string;
  readonly set_by: string;
  readonly set_at: string;
  readonly seq: number;
}

interface RawRow extends Omit<BrandingRow, 'document'> {
  readonly document: string;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function createBrandingStore(db: Database) {
  const get = db.prepare<[], RawRow>(
    'SELECT document, sha256, set_by, set_at, seq FROM branding_state WHERE id = 1',
  );
  const put = db.prepare<[string, string, string, string, number]>(
    `INSERT OR REPLACE INTO branding_state (id, document, sha256, set_by, set_at, seq)
     VALUES (1, ?, ?, ?, ?, ?)`,
  );
  // Bumped on every apply (committed or rolled back) so the service knows its cache is old.
  let changes = 0;
  return {
    get(): BrandingRow | null {
      const row = get.get();
      return row === undefined
        ? null
        : { ...row, document: JSON.parse(row.document) as Record<string, unknown> };
    },
    /** A counter that moves whenever the projection applied an event. */
    changes: (): number => changes,
    projection: projectionOf<BrandingEvents>({
      name: 'branding',
      tables: ['branding_state'],
      on: {
        [BRANDING_SET]: (d, e) => {
          put.run(canonicalJson(d.branding ?? {}), text(d.sha256), e.actor, e.ts, e.seq);
          changes += 1;
        },
      },
    }),
  };
}
export type BrandingStore = ReturnType<typeof createBrandingStore>;

import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { SnapshotEvents } from './snapshots.events.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { applyDiff, diffOf, type Facts, type FactsDiff } from './snapshots.diff.js';

/** A connector's setup differs from the last read (or was read for the first time). */
export const SNAPSHOT_CHANGED = 'snapshot.changed';
/** A connector's setup could not be read, after reads that worked (or none yet). */
export const SNAPSHOT_FAILED = 'snapshot.failed';
/** A connector's setup reads again after snapshot.failed, unchanged. */
export const SNAPSHOT_RECOVERED = 'snapshot.recovered';

export interface StoredChange extends FactsDiff {
  readonly seq: number;
  readonly connector: string;
  readonly at: string;
  readonly first?: true;
}

export interface ReadRow {
  readonly connector: string;
  readonly status: 'ok' | 'failed';
  readonly attempt_at: string;
  readonly ok_at: string | null;
  readonly detail: string | null;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function createSnapshotsStore(db: Database) {
  const getFacts = db.prepare<[string], { facts: string }>(
    'SELECT facts FROM snapshot_facts WHERE connector = ?',
  );
  const putFacts = db.prepare<[string, string, string, number]>(
    `INSERT INTO snapshot_facts (connector, facts, changed_at, seq) VALUES (?, ?, ?, ?)
     ON CONFLICT (connector) DO UPDATE SET facts = excluded.facts,
       changed_at = excluded.changed_at, seq = excluded.seq`,
  );
  const putChange = db.prepare<[number, string, string, string]>(
    'INSERT OR REPLACE INTO snapshot_changes (seq, connector, at, diff) VALUES (?, ?, ?, ?)',
  );
  const changesSince = db.prepare<
    [string, number],
    { seq: number; connector: string; at: string; diff: string }
  >('SELECT seq, connector, at, diff FROM snapshot_changes WHERE at >= ? ORDER BY seq LIMIT ?');
  const reads = db.prepare<[], ReadRow>(
    'SELECT connector, status, attempt_at, ok_at, detail FROM snapshot_reads ORDER BY connector',
  );
  const getRead = db.prepare<[string], ReadRow>(
    'SELECT connector, status, attempt_at, ok_at, detail FROM snapshot_reads WHERE connector = ?',
  );
  const putRead = db.prepare<[string, string, string, string | null, string | null]>(
    `INSERT INTO snapshot_reads (connector, status, attempt_at, ok_at, detail) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (connector) DO UPDATE SET status = excluded.status,
       attempt_at = excluded.attempt_at, ok_at = coalesce(excluded.ok_at, ok_at),
       detail = excluded.detail`,
  );

  const factsOf = (connector: string): Facts | null => {
    const row = getFacts.get(connector);
    return row ? (JSON.parse(row.facts) as Facts) : null;
  };

  return {
    /** The newest facts of a connector, or null before its first snapshot. */
    facts: factsOf,
    /** Changes at or after `iso`, oldest first, at most `limit`. */
    changesSince(iso: string, limit: number): StoredChange[] {
      return changesSince.all(iso, limit).map((r) => ({
        seq: r.seq,
        connector: r.connector,
        at: r.at,
        ...(JSON.parse(r.diff) as FactsDiff & { first?: true }),
      }));
    },
    reads: (): ReadRow[] => reads.all(),
    read: (connector: string): ReadRow | null => getRead.get(connector) ?? null,
    /** Record a read (operational state: no event; call inside the writer job). */
    recordRead(connector: string, at: string, ok: boolean, detail: string | null): void {
      putRead.run(connector, ok ? 'ok' : 'failed', at, ok ? at : null, ok ? null : detail);
    },
    projection: projectionOf<SnapshotEvents>({
      name: 'snapshots',
      tables: ['snapshot_facts', 'snapshot_changes'],
      reserves: [SNAPSHOT_FAILED, SNAPSHOT_RECOVERED],
      on: {
        [SNAPSHOT_CHANGED]: (d, e) => {
          const connector = text(d.connector);
          if (connector === '') return;
          const diff = diffOf(d);
          // A first snapshot replaces whatever an earlier connector of that name left.
          const before = d.first === true ? {} : (factsOf(connector) ?? {});
          putFacts.run(connector, canonicalJson(applyDiff(before, diff)), e.ts, e.seq);
          const stored = d.first === true ? { ...diff, first: true } : diff;
          putChange.run(e.seq, connector, e.ts, canonicalJson(stored));
        },
      },
    }),
  };
}
export type SnapshotsStore = ReturnType<typeof createSnapshotsStore>;

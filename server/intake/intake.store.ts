// The signals table: the latest state of every alert instance, a projection of signal.*
// events (rebuilt from the ledger by svc-core rebuild).
import type { Database } from 'better-sqlite3';
import { canonicalJson } from '../shared/canonical-json.js';
import { projectionOf } from '../ledger/index.js';
import type { IntakeEvents } from './intake.events.js';

export interface SignalRow {
  readonly fingerprint: string;
  readonly source: string;
  readonly name: string;
  readonly status: 'firing' | 'resolved';
  readonly severity: string;
  readonly service: string;
  readonly resource: string | null;
  readonly started_at: string;
  readonly ended_at: string | null;
  readonly summary: string;
  readonly link: string | null;
  readonly fired: number;
}

export const SIGNAL_FIRED = 'signal.fired';
export const SIGNAL_RESOLVED = 'signal.resolved';

/** A firing signal as noise control reads it. */
export interface FiringSignalRow {
  readonly source: string;
  readonly fingerprint: string;
  readonly name: string;
  readonly severity: string;
  readonly service: string;
  readonly resource: string | null;
  readonly labels: Readonly<Record<string, string>>;
}

/** Severities worst first (signal.ts), as an episode's severity ranks its signals'. */
export const SEVERITY_ORDER = ['critical', 'high', 'warning', 'info', 'unknown'] as const;

/** A signal's place in SEVERITY_ORDER, in SQL (a word intake does not know ranks as unknown). */
const SEVERITY_RANK = `CASE severity ${SEVERITY_ORDER.map((v, i) => `WHEN '${v}' THEN ${String(i)}`).join(' ')} ELSE ${String(SEVERITY_ORDER.length - 1)} END`;

/**
 * A port for the episode list's query language: SQL for the worst severity among the signals
 * whose (source, fingerprint) the subquery `keys` selects; 'unknown' when it selects none.
 */
export function worstSeveritySql(keys: string): string {
  const name = SEVERITY_ORDER.map((v, i) => `WHEN ${String(i)} THEN '${v}'`).join(' ');
  return `SELECT CASE min(${SEVERITY_RANK}) ${name} ELSE 'unknown' END
    FROM signals WHERE (source, fingerprint) IN (${keys})`;
}

export function createIntakeStore(db: Database) {
  const firing = db.prepare<[], Omit<FiringSignalRow, 'labels'> & { labels: string }>(
    `SELECT source, fingerprint, name, severity, service, resource, labels FROM signals WHERE status = 'firing'`,
  );
  const get = db.prepare<[string, string], SignalRow>(
    `SELECT fingerprint, source, name, status, severity, service, resource, started_at, ended_at, summary, link, fired FROM signals WHERE source = ? AND fingerprint = ?`,
  );
  const statusOf = db.prepare<[string, string], { status: 'firing' | 'resolved' }>(
    `SELECT status FROM signals WHERE source = ? AND fingerprint = ?`,
  );
  const fire = db.prepare<Record<string, unknown>>(
    `INSERT INTO signals (fingerprint, source, name, status, severity, service, resource, started_at, ended_at, summary, labels, link, fired, first_seq, last_seq)
     VALUES (@fingerprint, @source, @name, 'firing', @severity, @service, @resource, @started_at, NULL, @summary, @labels, @link, 1, @seq, @seq)
     ON CONFLICT (source, fingerprint) DO UPDATE SET
       name = excluded.name, status = 'firing', severity = excluded.severity,
       service = excluded.service, resource = excluded.resource, started_at = excluded.started_at,
       ended_at = NULL, summary = excluded.summary, labels = excluded.labels, link = excluded.link,
       fired = signals.fired + 1, last_seq = excluded.last_seq`,
  );
  const resolve = db.prepare<Record<string, unknown>>(
    `INSERT INTO signals (fingerprint, source, name, status, severity, service, resource, started_at, ended_at, summary, labels, link, fired, first_seq, last_seq)
     VALUES (@fingerprint, @source, @name, 'resolved', @severity, @service, @resource, @started_at, @ended_at, @summary, @labels, @link, 0, @seq, @seq)
     ON CONFLICT (source, fingerprint) DO UPDATE SET status = 'resolved', ended_at = excluded.ended_at, last_seq = excluded.last_seq`,
  );
  // For the investigation (a port wired by the composition root): an episode's alerts.
  const byKeys = db.prepare<
    [string],
    { name: string; status: string; labels: string; severity: string }
  >(
    `SELECT name, status, labels, severity FROM signals
     WHERE (source, fingerprint) IN (
       SELECT json_extract(value, '$.source'), json_extract(value, '$.fingerprint') FROM json_each(?))
     ORDER BY first_seq`,
  );
  // For the live view (a port wired by the composition root): the worst of some signals'
  // severities, in the order of signal.ts's Severity.
  const worstOf = db.prepare<[string], { severity: string }>(
    `SELECT severity FROM signals
     WHERE (source, fingerprint) IN (
       SELECT json_extract(value, '$.source'), json_extract(value, '$.fingerprint') FROM json_each(?))
     ORDER BY ${SEVERITY_RANK}
     LIMIT 1`,
  );
  const counts = db.prepare<[], { status: string; n: number }>(
    `SELECT status, count(*) AS n FROM signals GROUP BY status`,
  );

  /** A signal event's row; a field of another type than the schema's is stored as null. */
  function row(data: IntakeEvents['signal.fired'], seq: number): Record<string, unknown> {
    const s = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    return {
      fingerprint: s(data.fingerprint),
      source: s(data.source),
      name: s(data.name),
      severity: s(data.severity),
      service: s(data.service),
      resource: s(data.resource),
      started_at: s(data.started_at),
      ended_at: s(data.ended_at),
      summary: s(data.summary) ?? '',
      labels: canonicalJson(data.labels ?? {}),
      link: s(data.link),
      seq,
    };
  }

  return {
    get: (source: string, fingerprint: string): SignalRow | null =>
      get.get(source, fingerprint) ?? null,
    /** A signal's status, or null for one never seen: what intake reads for every alert. */
    statusOf: (source: string, fingerprint: string): 'firing' | 'resolved' | null =>
      statusOf.get(source, fingerprint)?.status ?? null,
    counts: (): Record<string, number> =>
      Object.fromEntries(counts.all().map((r) => [r.status, r.n])),
    /** These signals (by source and fingerprint), oldest first, with their labels. */
    byKeys: (
      keys: readonly { source: string; fingerprint: string }[],
    ): { name: string; status: string; severity: string; labels: Record<string, string> }[] =>
      byKeys
        .all(JSON.stringify(keys))
        .map((r) => ({ ...r, labels: JSON.parse(r.labels) as Record<string, string> })),
    /** The worst severity of these signals (critical first); null when none is stored. */
    worstSeverity: (keys: readonly { source: string; fingerprint: string }[]): string | null =>
      keys.length === 0 ? null : (worstOf.get(JSON.stringify(keys))?.severity ?? null),
    /** Every signal firing now (inhibition reads it only when the policy has rules). */
    *firing(): Generator<FiringSignalRow> {
      for (const r of firing.iterate()) {
        yield { ...r, labels: JSON.parse(r.labels) as Record<string, string> };
      }
    },
    projection: projectionOf<IntakeEvents>({
      name: 'signals',
      tables: ['signals'],
      on: {
        [SIGNAL_FIRED]: (d, e) => {
          fire.run(row(d, e.seq));
        },
        [SIGNAL_RESOLVED]: (d, e) => {
          resolve.run(row(d, e.seq));
        },
      },
    }),
  };
}
export type IntakeStore = ReturnType<typeof createIntakeStore>;

// SQL for reading the ledger with the filters of GET /v1/ledger.
import type { Database } from 'better-sqlite3';
import { compileQuery, type QueryFields, type QueryNode } from '../shared/query-language.js';
import { toLedgerEvent, type LedgerEvent } from './ledger.types.js';

export const LEDGER_QUERY_FIELDS: QueryFields = {
  list: 'ledger',
  fields: {
    seq: { column: 'seq', type: 'integer' },
    type: { column: 'type', type: 'text' },
    category: { column: 'category', type: 'text' },
    actor: { column: 'actor', type: 'text' },
    reason: { column: 'reason', type: 'text' },
    trace: { column: 'trace_id', type: 'text' },
    trace_id: { column: 'trace_id', type: 'text' },
    ts: { column: 'ts', type: 'time' },
  },
  dataColumn: 'data',
  timeColumn: 'ts',
  textColumns: ['type', 'actor', 'reason', 'data'],
};

export interface LedgerFilter {
  readonly types: readonly string[];
  readonly trace?: string;
  readonly actor?: string;
  readonly q?: string;
  readonly query?: QueryNode;
  readonly since?: string;
  readonly until?: string;
  readonly beforeSeq?: number;
  readonly afterSeq?: number;
}

export interface LedgerPage {
  readonly order: 'asc' | 'desc';
  readonly limit: number;
  readonly offset: number;
  readonly latest?: number;
}

export interface LedgerRow extends LedgerEvent {
  readonly hash: string;
}

type Where = { sql: string[]; params: (string | number)[] };

function globEscape(text: string): string {
  return text.replace(/[*?[]/g, (c) => `[${c}]`);
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function where(filter: LedgerFilter, nowMs: number, withTypes: boolean): Where {
  const w: Where = { sql: [], params: [] };
  if (withTypes && filter.types.length > 0) {
    // GLOB is case-sensitive, so SQLite can answer a prefix from the type index.
    w.sql.push(`(${filter.types.map(() => 'type GLOB ?').join(' OR ')})`);
    w.params.push(...filter.types.map((t) => `${globEscape(t)}*`));
  }
  if (filter.trace !== undefined) {
    w.sql.push('trace_id = ?');
    w.params.push(filter.trace);
  }
  if (filter.actor !== undefined) {
    w.sql.push('actor = ?');
    w.params.push(filter.actor);
  }
  if (filter.q !== undefined && filter.q !== '') {
    const like = `%${likeEscape(filter.q)}%`;
    w.sql.push(
      `(type LIKE ? ESCAPE '\\' OR actor LIKE ? ESCAPE '\\' OR reason LIKE ? ESCAPE '\\' OR data LIKE ? ESCAPE '\\' OR trace_id LIKE ? ESCAPE '\\')`,
    );
    w.params.push(like, like, like, like, like);
  }
  if (filter.query !== undefined) {
    const compiled = compileQuery(filter.query, LEDGER_QUERY_FIELDS, nowMs);
    w.sql.push(`(${compiled.sql})`);
    w.params.push(...compiled.params);
  }
  if (filter.since !== undefined) {
    w.sql.push('ts >= ?');
    w.params.push(filter.since);
  }
  if (filter.until !== undefined) {
    w.sql.push('ts < ?');
    w.params.push(filter.until);
  }
  if (filter.beforeSeq !== undefined) {
    w.sql.push('seq < ?');
    w.params.push(filter.beforeSeq);
  }
  if (filter.afterSeq !== undefined) {
    w.sql.push('seq > ?');
    w.params.push(filter.afterSeq);
  }
  return w;
}

const clause = (w: Where): string => (w.sql.length > 0 ? `WHERE ${w.sql.join(' AND ')}` : '');

type Row = {
  seq: number;
  ts: string;
  type: string;
  actor: string;
  data: string;
  reason: string | null;
  trace_id: string | null;
  hash: Buffer;
};

export function createLedgerListStore(db: Database) {
  return {
    /** One page of events plus whether more follow. */
    page(
      filter: LedgerFilter,
      page: LedgerPage,
      nowMs: number,
    ): { events: LedgerRow[]; more: boolean } {
      const w = where(filter, nowMs, true);
      let scope = clause(w);
      const params: (string | number)[] = [...w.params];
      if (page.latest !== undefined) {
        // Only the newest N matching events, then paged in the requested order.
        const inner = `SELECT seq FROM ledger ${clause(w)} ORDER BY seq DESC LIMIT ?`;
        scope = `WHERE seq IN (${inner})`;
        params.push(page.latest);
      }
      const sql = `SELECT seq, ts, type, actor, data, reason, trace_id, hash FROM ledger ${scope} ORDER BY seq ${page.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`;
      const rows = db
        .prepare<(string | number)[], Row>(sql)
        .all(...params, page.limit + 1, page.offset);
      const more = rows.length > page.limit;
      return {
        more,
        events: rows
          .slice(0, page.limit)
          .map((r) => ({ ...toLedgerEvent(r), hash: r.hash.toString('hex') })),
      };
    },
    /** Events per category under every filter but the type filter (facet counts). */
    counts(filter: LedgerFilter, nowMs: number): Record<string, number> {
      const w = where(filter, nowMs, false);
      const rows = db
        .prepare<(string | number)[], { category: string; n: number }>(
          `SELECT category, count(*) AS n FROM ledger ${clause(w)} GROUP BY category ORDER BY category`,
        )
        .all(...w.params);
      return Object.fromEntries(rows.map((r) => [r.category, r.n]));
    },
  };
}
export type LedgerListStore = ReturnType<typeof createLedgerListStore>;

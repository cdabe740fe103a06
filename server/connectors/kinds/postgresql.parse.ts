// Shaping PostgreSQL rows (pg_stat_activity, pg_locks, pg_stat_replication, pg_settings) into
// the answers the postgresql kind gives. Pure functions: no I/O, so unit-testable. The SQL
// casts counts to int and durations to float8, so rows hold plain numbers.

export type Row = Readonly<Record<string, unknown>>;

/** Queries are clipped to this many characters in every answer. */
export const QUERY_CLIP = 500;

export interface Connections {
  readonly max_connections: number;
  readonly total: number;
  readonly by_state: Record<string, number>;
  readonly by_role: readonly { role: string; n: number }[];
  readonly by_database: readonly { database: string; n: number }[];
  readonly waiting: number;
}

export interface BlockedSession {
  readonly pid: number;
  readonly role: string;
  readonly query: string;
  readonly waiting_s: number;
  readonly blocked_by: readonly number[];
}

export interface Blocker {
  readonly pid: number;
  readonly role: string;
  readonly state: string;
  readonly xact_s: number | null;
  readonly query: string;
}

export interface Replica {
  readonly client: string;
  readonly state: string;
  readonly lag_bytes: number | null;
  readonly replay_lag_s: number | null;
}

export interface SlowQuery {
  readonly pid: number;
  readonly role: string;
  readonly database: string;
  readonly state: string;
  readonly running_s: number;
  readonly query: string;
}

export interface Statement {
  readonly query: string;
  readonly calls: number;
  readonly mean_ms: number;
  readonly total_ms: number;
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function num(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : 0;
}

function numOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Seconds with millisecond precision: enough for people, stable for tests. */
function seconds(value: unknown): number {
  return Math.round(num(value) * 1000) / 1000;
}

function secondsOrNull(value: unknown): number | null {
  const n = numOrNull(value);
  return n === null ? null : Math.round(n * 1000) / 1000;
}

/** A query as people read it: whitespace flattened, at most QUERY_CLIP characters. */
export function clipQuery(value: unknown): string {
  const flat = text(value).replace(/\s+/g, ' ').trim();
  return flat.length > QUERY_CLIP ? `${flat.slice(0, QUERY_CLIP)}…` : flat;
}

function pids(value: unknown): number[] {
  return Array.isArray(value) ? value.map(num).filter((p) => p > 0) : [];
}

function tally<K extends string>(
  rows: readonly Row[],
  column: string,
  key: K,
): ({ n: number } & Record<K, string>)[] {
  const counts = new Map<string, number>();
  for (const r of rows) {
    const name = text(r[column]);
    counts.set(name, (counts.get(name) ?? 0) + num(r['n']));
  }
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([name, n]) => ({ [key]: name, n }) as { n: number } & Record<K, string>);
}

/** Rows grouped by (state, role, database, waiting) with a count `n` each. */
export function connectionsFrom(maxConnections: unknown, rows: readonly Row[]): Connections {
  const byState: Record<string, number> = {};
  let total = 0;
  let waiting = 0;
  for (const r of rows) {
    const n = num(r['n']);
    const state = text(r['state']) || 'unknown';
    byState[state] = (byState[state] ?? 0) + n;
    total += n;
    if (r['waiting'] === true) waiting += n;
  }
  return {
    max_connections: num(maxConnections),
    total,
    by_state: byState,
    by_role: tally(rows, 'role', 'role'),
    by_database: tally(rows, 'database', 'database'),
    waiting,
  };
}

export function blockedFrom(rows: readonly Row[]): BlockedSession[] {
  return rows.map((r) => ({
    pid: num(r['pid']),
    role: text(r['role']),
    query: clipQuery(r['query']),
    waiting_s: seconds(r['waiting_s']),
    blocked_by: pids(r['blocked_by']),
  }));
}

export function blockersFrom(rows: readonly Row[]): Blocker[] {
  return rows.map((r) => ({
    pid: num(r['pid']),
    role: text(r['role']),
    state: text(r['state']) || 'unknown',
    xact_s: secondsOrNull(r['xact_s']),
    query: clipQuery(r['query']),
  }));
}

export function replicasFrom(rows: readonly Row[]): Replica[] {
  return rows.map((r) => ({
    client: text(r['client']),
    state: text(r['state']) || 'unknown',
    lag_bytes: numOrNull(r['lag_bytes']),
    replay_lag_s: secondsOrNull(r['replay_lag_s']),
  }));
}

export function slowQueriesFrom(rows: readonly Row[]): SlowQuery[] {
  return rows.map((r) => ({
    pid: num(r['pid']),
    role: text(r['role']),
    database: text(r['database']),
    state: text(r['state']) || 'unknown',
    running_s: seconds(r['running_s']),
    query: clipQuery(r['query']),
  }));
}

export function statementsFrom(rows: readonly Row[]): Statement[] {
  const ms = (v: unknown) => Math.round(num(v) * 1000) / 1000;
  return rows.map((r) => ({
    query: clipQuery(r['query']),
    calls: num(r['calls']),
    mean_ms: ms(r['mean_ms']),
    total_ms: ms(r['total_ms']),
  }));
}

/** Settings whose value is a credential as a whole. */
const SECRET_SETTING = /pass(word|phrase)|secret|token/i;
/** `password=…` inside a connection string such as primary_conninfo. */
const CONNINFO_PASSWORD = /(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi;

/** A setting's value as a fact, with credentials masked: primary_conninfo can hold one. */
export function settingFact(name: string, value: unknown): string {
  const v = text(value);
  if (SECRET_SETTING.test(name) && v !== '') return '***';
  return v.replace(CONNINFO_PASSWORD, '$1***');
}

export function factsFrom(version: unknown, rows: readonly Row[]): Record<string, string> {
  const facts: Record<string, string> = {};
  for (const r of rows) {
    const name = text(r['name']);
    if (name !== '') facts[name] = settingFact(name, r['value']);
  }
  facts['version'] = text(version);
  return facts;
}

/** "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64…" → "PostgreSQL 15.18". */
export function shortVersion(version: unknown): string {
  const v = text(version);
  const m = /^(\S+ \d+(?:\.\d+)*(?:beta\d+|rc\d+|devel)?)/.exec(v);
  return m?.[1] ?? (clipQuery(v).slice(0, 60) || 'PostgreSQL');
}

export interface RoleFacts {
  readonly role: string;
  readonly superuser: boolean;
  readonly monitor: boolean;
  readonly can_write: boolean;
  readonly standby: boolean;
}

/**
 * The health line's role part. A superuser (or a role that can write tables) still passes:
 * every session is read-only anyway, but the operator is told to narrow the role.
 */
export function roleDetail(f: RoleFacts): string {
  const parts: string[] = [];
  if (f.superuser)
    parts.push(
      `role ${f.role} is a SUPERUSER: use a LOGIN role in pg_monitor without write grants`,
    );
  else {
    parts.push(`role ${f.role} (not superuser)`);
    if (f.can_write)
      parts.push('warning: the role can write tables here (sessions stay read-only)');
    if (!f.monitor)
      parts.push('warning: not in pg_monitor, so other roles\u2019 sessions are hidden');
  }
  if (f.standby) parts.push('standby');
  return parts.join(', ');
}

// Small, total readers for untrusted JSON: they never throw on a wrong type, they return
// undefined, so a normaliser decides what is required.
import { createHash } from 'node:crypto';
import { NotReadableError, Severity, type Signal } from '../signal.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}

export function arr(v: unknown): Json[] | undefined {
  return Array.isArray(v) ? (v as Json[]) : undefined;
}

/** A non-empty trimmed string; numbers are written as text (ids often arrive as numbers). */
export function str(v: unknown): string | undefined {
  if (typeof v === 'string') {
    const t = v.trim();
    return t === '' ? undefined : t;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return v.toString();
  return undefined;
}

/** The first non-empty string among the values. */
export function first(...values: unknown[]): string | undefined {
  for (const v of values) {
    const s = str(v);
    if (s !== undefined) return s;
  }
  return undefined;
}

/** Value at a dotted path; keys containing dots can be given as an array path. */
export function at(root: unknown, path: string | readonly string[]): Json | undefined {
  const keys = typeof path === 'string' ? path.split('.') : path;
  let cur: unknown = root;
  for (const key of keys) {
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else if (isObject(cur) && Object.hasOwn(cur, key)) cur = cur[key];
    else return undefined;
  }
  return cur as Json | undefined;
}

export function required(value: string | undefined, what: string): string {
  if (value === undefined) throw new NotReadableError(`${what} is missing`);
  return value;
}

const SENTINEL = /^0001-01-01T00:00:00/;

/** An unexpanded template placeholder such as "{PID}": senders' test runs post them as values. */
export const PLACEHOLDER = /^\{[A-Za-z_.]+\}$/;

/**
 * A timestamp in any form the sources use, as ISO 8601 UTC; undefined when absent, empty,
 * the "no end" sentinel 0001-01-01, a template placeholder, or unreadable. Numbers are epoch
 * seconds, milliseconds, microseconds or nanoseconds, told apart by their size.
 */
export function time(v: unknown): string | undefined {
  if (typeof v === 'number' || typeof v === 'bigint') return fromEpoch(Number(v));
  const s = str(v);
  if (s === undefined || SENTINEL.test(s) || PLACEHOLDER.test(s)) return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return fromEpoch(Number(s));
  // "+0000" offsets without a colon, as CloudWatch and Wazuh write them; a time without any
  // zone is UTC (never the server's local zone, which would differ from host to host).
  let normal = s.replace(/([+-]\d{2})(\d{2})$/, '$1:$2').replace(/(\.\d{3})\d+/, '$1');
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(normal))
    normal = `${normal.replace(' ', 'T')}Z`;
  const ms = Date.parse(normal);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function fromEpoch(n: number): string | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  const ms = n >= 1e17 ? n / 1e6 : n >= 1e14 ? n / 1e3 : n >= 1e11 ? n : n * 1000;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** A stable fingerprint from parts, for sources whose bodies carry none. */
export function hashOf(source: string, ...parts: (string | undefined)[]): string {
  return createHash('sha256')
    .update([source, ...parts.map((p) => p ?? '')].join('\u001f'))
    .digest('hex')
    .slice(0, 32);
}

/** A source's id as the fingerprint, hashed past `max` characters (the intake takes at most 512). */
export function idFingerprint(source: string, id: string, max = 512): string {
  return id.length <= max ? id : hashOf(source, id);
}

/** As idFingerprint, hashed past 256 with an "id" part: the cloud and paging sources' rule, kept so stored keys match. */
export function dedupKey(source: string, id: string): string {
  return id.length > 256 ? hashOf(source, 'id', id) : id;
}

/** A short id (a check number) as "<source>:<id>", apart from other sources' ids; hashed past 200. */
export function prefixedId(source: string, id: string): string {
  return id.length <= 200 ? `${source}:${id}` : hashOf(source, id);
}

/** JSON text of a value cut off below `depth` levels ("…"), never recursing deeper. */
export function boundedJson(v: unknown, depth: number): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (depth <= 0) return '"…"';
  if (Array.isArray(v))
    return `[${v
      .slice(0, 50)
      .map((x) => boundedJson(x, depth - 1))
      .join(',')}]`;
  const entries = Object.entries(v).slice(0, 50);
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${boundedJson(x, depth - 1)}`).join(',')}}`;
}

/** Severity from a lookup table, case-insensitive; unknown when absent or not listed. */
export function severity(value: unknown, table: Readonly<Record<string, Severity>>): Severity {
  const s = str(value)?.toLowerCase();
  return s !== undefined && Object.hasOwn(table, s)
    ? (table[s] ?? Severity.Unknown)
    : Severity.Unknown;
}

/** The common severity words (critical, high, error, warning, info, …). */
export const COMMON_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  crit: 'critical',
  fatal: 'critical',
  emergency: 'critical',
  disaster: 'critical',
  page: 'critical',
  p1: 'critical',
  high: 'high',
  error: 'high',
  major: 'high',
  p2: 'high',
  warning: 'warning',
  warn: 'warning',
  medium: 'warning',
  average: 'warning',
  minor: 'warning',
  p3: 'warning',
  info: 'info',
  informational: 'info',
  information: 'info',
  low: 'info',
  notice: 'info',
  debug: 'info',
  none: 'info',
  p4: 'info',
  p5: 'info',
};

/** Build a signal with the defaults every normaliser shares. */
export function signal(
  s: Omit<Signal, 'labels' | 'link' | 'service' | 'resource' | 'ended_at'> & Partial<Signal>,
): Signal {
  return {
    service: null,
    resource: null,
    ended_at: null,
    labels: {},
    link: null,
    ...s,
    name: s.name.slice(0, 500),
    summary: s.summary.slice(0, 2000),
  };
}

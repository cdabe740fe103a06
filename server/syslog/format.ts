// RFC 5424 messages from ledger events:
//
//   <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [svc@32473 seq="…" actor="…" trace="…"] MSG
//
// MSG is a short text and the compact JSON of {type, actor, reason, data}. Every header
// field is capped, so the header stays well under the smallest limit (2,048 bytes for UDP)
// and a size limit only ever cuts the body: the data first, then the reason.

import type { SyslogEvent } from './syslog.js';
import { severityOf } from './select.js';

/**
 * Facility names in the order SVC_SYSLOG_FACILITY lists them, which is their code 0..23:
 * the RFC 5424 table, with the BSD/Solaris names for 12..15 (ntp, security = log audit,
 * console = log alert, solaris-cron = clock daemon), as Python's SysLogHandler has them.
 */
// prettier-ignore
const FACILITY_NAMES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv',
  'ftp', 'ntp', 'security', 'console', 'solaris-cron',
  'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7',
] as const;

export const FACILITY_CODES: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries(FACILITY_NAMES.map((name, code) => [name, code])),
);

export function facilityCode(name: string): number {
  const code = FACILITY_CODES[name];
  if (code === undefined) throw new Error(`unknown syslog facility ${JSON.stringify(name)}`);
  return code;
}

export function priority(facility: number, severity: number): number {
  return facility * 8 + severity;
}

/** Our SD-ID: 32473 is the enterprise number RFC 5612 reserves for documentation. */
export const SD_ID = 'svc@32473';
export const MAX_MESSAGE_BYTES = 8192;
export const MAX_UDP_BYTES = 2048;

// Caps of RFC 5424 §6 for the header fields, and ours for the SD values.
const MAX_HOSTNAME = 255;
const MAX_APP_NAME = 48;
const MAX_PROCID = 128;
const MAX_MSGID = 32;
const MAX_SD_VALUE = 128;
const MAX_TEXT_PART = 64;

/** A message ready for any transport. */
export interface Formatted {
  /** The whole RFC 5424 message, without framing or line end. */
  readonly line: string;
  readonly pri: number;
  /** STRUCTURED-DATA and MSG only: for a local daemon that writes its own header (logger). */
  readonly local: string;
}

export interface FormatOptions {
  readonly facility: number;
  readonly hostname: string;
  readonly appName: string;
  readonly procId: string;
  readonly maxBytes: number;
}

export function formatMessage(event: SyslogEvent, opts: FormatOptions): Formatted {
  const pri = priority(opts.facility, severityOf(event.type));
  const sd = structuredData(event);
  const header = [
    `<${pri}>1`,
    timestamp(event.ts),
    headerField(opts.hostname, MAX_HOSTNAME),
    headerField(opts.appName, MAX_APP_NAME),
    headerField(opts.procId, MAX_PROCID),
    headerField(event.type, MAX_MSGID),
    sd,
  ].join(' ');
  const text = `${cutChars(oneLine(event.type), MAX_TEXT_PART)} by ${cutChars(oneLine(event.actor), MAX_TEXT_PART)}`;
  const payload: Payload = {
    type: event.type,
    actor: event.actor,
    reason: event.reason,
    data: maskSecrets(event.data),
  };
  const body = fitBody(text, payload, opts.maxBytes - byteLength(header) - 1);
  // The guard below only matters for a limit smaller than the header (no transport has one).
  return { line: cutUtf8(`${header} ${body}`, opts.maxBytes), pri, local: `${sd} ${body}` };
}

/** RFC 5424 frames for stream transports (RFC 6587 §3.4.1, RFC 5425 §4.3): `LEN SP MSG`. */
export function octetFrame(line: string): string {
  return `${byteLength(line)} ${line}`;
}

/** Header fields: printable US-ASCII without spaces, capped; NILVALUE when empty. */
export function headerField(value: string, maxLength: number): string {
  const clean = value.replace(/[^\x21-\x7e]/g, '_').slice(0, maxLength);
  return clean === '' ? '-' : clean;
}

/** PARAM-VALUE of RFC 5424 §6.3.3: `"`, `\` and `]` take a backslash. */
export function escapeSdValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

function structuredData(event: SyslogEvent): string {
  const params: [string, string][] = [
    ['seq', String(event.seq)],
    ['actor', event.actor],
  ];
  if (event.trace_id !== null) params.push(['trace', event.trace_id]);
  const rendered = params.map(
    ([k, v]) => `${k}="${escapeSdValue(cutChars(oneLine(v), MAX_SD_VALUE))}"`,
  );
  return `[${SD_ID} ${rendered.join(' ')}]`;
}

/** RFC 3339 as RFC 5424 wants it (at most 6 fraction digits); NILVALUE when unreadable. */
function timestamp(ts: string): string {
  const ms = Date.parse(ts);
  if (!Number.isFinite(ms)) return '-';
  const iso = new Date(ms).toISOString();
  return /^\d{4}-/.test(iso) ? iso : '-';
}

// ---- secrets ------------------------------------------------------------------------

/** Keys whose values are masked: a second guard, the ledger holds only references. */
export const SECRET_KEY = /token|secret|password|passphrase|key$|authorization|cookie/i;
const MAX_DEPTH = 32;

/** A JSON-safe copy of `value` with the values of secret-looking keys replaced by "***". */
export function maskSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  const toJson = (value as { toJSON?: unknown }).toJSON;
  // Date, Secret (which says "***") and the like: what JSON.stringify would show.
  if (typeof toJson === 'function') return maskSecrets(toJson.call(value), depth + 1);
  if (Array.isArray(value)) return value.map((v: unknown) => maskSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? '***' : maskSecrets(v, depth + 1);
  }
  return out;
}

// ---- size limits --------------------------------------------------------------------

interface Payload {
  readonly type: string;
  readonly actor: string;
  readonly reason: string | null;
  readonly data: unknown;
}

/**
 * `text JSON` within `budget` bytes. Too big: the data becomes a marker holding as much of
 * its JSON as fits (the marker keeps the body valid JSON); still too big: the reason is cut
 * as well; still too big (a huge type or actor): a plain cut.
 */
function fitBody(text: string, payload: Payload, budget: number): string {
  const render = (p: Payload): string => `${text} ${JSON.stringify(p)}`;
  const whole = render(payload);
  if (byteLength(whole) <= budget) return whole;

  const dataJson = JSON.stringify(payload.data) ?? 'null';
  const marker = (head: string) => ({ truncated: true, bytes: byteLength(dataJson), head });
  const withData = longestFitting(dataJson, budget, (head) =>
    render({ ...payload, data: marker(head) }),
  );
  if (withData !== null) return withData;

  const reason = payload.reason ?? '';
  const withReason = longestFitting(reason, budget, (r) =>
    render({ ...payload, reason: `${r}…`, data: marker('') }),
  );
  if (withReason !== null) return withReason;

  return cutUtf8(render({ ...payload, reason: '…', data: marker('') }), budget);
}

/** The rendering of the longest prefix of `source` that fits, or null when none does. */
function longestFitting(
  source: string,
  budget: number,
  build: (prefix: string) => string,
): string | null {
  const fits = (n: number): boolean => byteLength(build(cutChars(source, n))) <= budget;
  if (!fits(0)) return null;
  let lo = 0; // fits
  let hi = Math.min(source.length, budget); // may not fit; a longer prefix cannot
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return build(cutChars(source, lo));
}

// ---- text helpers -------------------------------------------------------------------

export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Control characters (line ends included) would split line-based transports. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
}

/** The first `n` UTF-16 units, never ending on half a surrogate pair. */
function cutChars(s: string, n: number): string {
  if (s.length <= n) return s;
  const end = n > 0 && /[\ud800-\udbff]/.test(s.charAt(n - 1)) ? n - 1 : n;
  return s.slice(0, end);
}

/** At most `maxBytes` bytes of UTF-8, cut on a character boundary. */
export function cutUtf8(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= maxBytes) return s;
  let end = Math.max(0, maxBytes);
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--; // step back over continuation bytes
  return buf.subarray(0, end).toString('utf8');
}

// Parsing Alertmanager API v2 answers (https://github.com/prometheus/alertmanager/blob/main/api/v2/openapi.yaml)
// into the shapes the alertmanager kind returns. Pure functions: no I/O, so unit-testable.
import { isRecord } from '../../shared/values.js';

export type Labels = Record<string, string>;

export interface AmAlert {
  readonly fingerprint: string;
  /** labels.alertname, '' when missing */
  readonly name: string;
  readonly status: {
    /** 'active' | 'suppressed' | 'unprocessed' */
    readonly state: string;
    readonly silenced_by: readonly string[];
    readonly inhibited_by: readonly string[];
  };
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly starts_at: string | null;
  readonly ends_at: string | null;
  readonly updated_at: string | null;
  readonly generator_url: string | null;
}

export interface AmMatcher {
  readonly name: string;
  readonly value: string;
  readonly is_regex: boolean;
  readonly is_equal: boolean;
}

export interface AmSilence {
  readonly id: string;
  /** 'expired' | 'active' | 'pending' */
  readonly status: string;
  readonly matchers: readonly AmMatcher[];
  readonly starts_at: string | null;
  readonly ends_at: string | null;
  readonly created_by: string;
  readonly comment: string;
}

export interface AmStatus {
  readonly version: string;
  /** ISO-8601 time Alertmanager started */
  readonly uptime: string | null;
  /** 'ready' | 'settling' | 'disabled' */
  readonly cluster_status: string;
}

function malformed(what: string, detail: string): Error {
  return new Error(`${what}: unexpected answer from Alertmanager (${detail})`);
}

/** Shortens text (bodies, filters) for error messages. */
export function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * Parses the JSON body of a 2xx answer. Alertmanager answers errors (400, 500) with a JSON
 * string or plain text; a proxy in front may answer with anything else.
 */
export function unwrap(httpStatus: number, body: string, what: string): unknown {
  if (httpStatus < 200 || httpStatus > 299) {
    let detail = body;
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'string') detail = parsed;
      else if (isRecord(parsed) && typeof parsed['message'] === 'string')
        detail = parsed['message'];
    } catch {
      // plain text
    }
    throw new Error(`${what} failed: HTTP ${String(httpStatus)}: ${clip(detail) || '(no body)'}`);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw malformed(what, 'not JSON');
  }
}

function labelsOf(raw: unknown): Labels {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw new Error('labels are not an object');
  const labels: Labels = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') labels[k] = v;
  return labels;
}

function stringOr<T>(raw: unknown, fallback: T): string | T {
  return typeof raw === 'string' && raw !== '' ? raw : fallback;
}

function stringsOf(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
}

/** A timestamp as ISO-8601 UTC; Alertmanager writes "0001-01-01T00:00:00Z" for "none". */
function timeOf(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '' || raw.startsWith('0001-01-01')) return null;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** GET /api/v2/alerts: a list of gettableAlert. */
export function parseAlerts(data: unknown, what: string): AmAlert[] {
  if (!Array.isArray(data)) throw malformed(what, 'alerts are not a list');
  return data.map((raw, i): AmAlert => {
    if (!isRecord(raw)) throw malformed(what, `alert ${String(i)} is not an object`);
    let labels: Labels;
    let annotations: Labels;
    try {
      labels = labelsOf(raw['labels']);
      annotations = labelsOf(raw['annotations']);
    } catch (err) {
      throw malformed(what, `alert ${String(i)}: ${(err as Error).message}`);
    }
    const status = isRecord(raw['status']) ? raw['status'] : {};
    return {
      fingerprint: stringOr(raw['fingerprint'], ''),
      name: labels['alertname'] ?? '',
      status: {
        state: stringOr(status['state'], 'unprocessed'),
        silenced_by: stringsOf(status['silencedBy']),
        inhibited_by: stringsOf(status['inhibitedBy']),
      },
      labels,
      annotations,
      starts_at: timeOf(raw['startsAt']),
      ends_at: timeOf(raw['endsAt']),
      updated_at: timeOf(raw['updatedAt']),
      generator_url: stringOr(raw['generatorURL'], null),
    };
  });
}

/** GET /api/v2/silences: a list of gettableSilence. */
export function parseSilences(data: unknown, what: string): AmSilence[] {
  if (!Array.isArray(data)) throw malformed(what, 'silences are not a list');
  return data.map((raw, i): AmSilence => {
    if (!isRecord(raw)) throw malformed(what, `silence ${String(i)} is not an object`);
    const status = isRecord(raw['status']) ? raw['status'] : {};
    const matchers = Array.isArray(raw['matchers']) ? raw['matchers'] : [];
    return {
      id: stringOr(raw['id'], ''),
      status: stringOr(status['state'], 'unknown'),
      matchers: matchers.filter(isRecord).map((m) => ({
        name: stringOr(m['name'], ''),
        value: typeof m['value'] === 'string' ? m['value'] : '',
        is_regex: m['isRegex'] === true,
        // absent means "equal" (older Alertmanagers do not send it)
        is_equal: m['isEqual'] !== false,
      })),
      starts_at: timeOf(raw['startsAt']),
      ends_at: timeOf(raw['endsAt']),
      created_by: stringOr(raw['createdBy'], ''),
      comment: typeof raw['comment'] === 'string' ? raw['comment'] : '',
    };
  });
}

/**
 * GET /api/v2/status. Only the version, start time and cluster state are kept: `config.original`
 * is the whole configuration file, receivers' credentials included, so it is never returned.
 */
export function parseStatus(data: unknown, what: string): AmStatus {
  if (!isRecord(data)) throw malformed(what, 'status is not an object');
  const versionInfo = isRecord(data['versionInfo']) ? data['versionInfo'] : {};
  const version = versionInfo['version'];
  if (typeof version !== 'string' || version === '') throw malformed(what, 'no version');
  const cluster = isRecord(data['cluster']) ? data['cluster'] : {};
  return {
    version,
    uptime: timeOf(data['uptime']),
    cluster_status: stringOr(cluster['status'], 'unknown'),
  };
}

// Parsing Prometheus HTTP API answers (https://prometheus.io/docs/prometheus/latest/querying/api/)
// into the shapes the prometheus kind returns. Pure functions: no I/O, so unit-testable.
import { isRecord } from '../../shared/values.js';

export type Labels = Record<string, string>;

export interface InstantSample {
  readonly metric: Labels;
  readonly value: number;
  readonly at: string;
}

export interface RangeSeries {
  readonly metric: Labels;
  readonly values: readonly (readonly [string, number])[];
}

export interface Target {
  readonly job: string;
  readonly instance: string;
  readonly health: string;
  readonly labels: Labels;
  readonly scrape_url: string;
  readonly last_error: string | null;
  readonly last_scrape: string | null;
}

export interface Alert {
  readonly name: string;
  readonly state: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly active_at: string | null;
  readonly value: number | null;
}

function malformed(what: string, detail: string): Error {
  return new Error(`${what}: unexpected answer from Prometheus (${detail})`);
}

/** Shortens text (queries, bodies) for error messages. */
export function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * Unwraps the `{status, data}` envelope. Prometheus answers errors with 400/422/503 and a
 * JSON body naming `errorType` and `error`; a proxy in front may answer with anything else.
 */
export function unwrap(httpStatus: number, body: string, what: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    if (httpStatus < 200 || httpStatus > 299)
      throw new Error(`${what} failed: HTTP ${String(httpStatus)}: ${clip(body) || '(no body)'}`);
    throw malformed(what, 'not JSON');
  }
  if (isRecord(parsed) && parsed['status'] === 'error') {
    const type = typeof parsed['errorType'] === 'string' ? parsed['errorType'] : 'error';
    const error = typeof parsed['error'] === 'string' ? parsed['error'] : '(no detail)';
    throw new Error(`${what} failed: ${type}: ${error}`);
  }
  if (httpStatus < 200 || httpStatus > 299)
    throw new Error(`${what} failed: HTTP ${String(httpStatus)}: ${clip(body) || '(no body)'}`);
  if (!isRecord(parsed) || parsed['status'] !== 'success' || !('data' in parsed))
    throw malformed(what, 'no success envelope');
  return parsed['data'];
}

/** Prometheus writes sample values as strings: "1", "1e+00", "NaN", "+Inf", "-Inf". */
export function parseSampleValue(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  if (typeof raw !== 'string') throw new Error(`sample value is not a string`);
  switch (raw) {
    case 'NaN':
      return Number.NaN;
    case '+Inf':
    case 'Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
    default: {
      const trimmed = raw.trim();
      const value = Number(trimmed);
      if (trimmed === '' || Number.isNaN(value))
        throw new Error(`sample value ${JSON.stringify(clip(raw, 40))} is not a number`);
      return value;
    }
  }
}

/** Unix seconds (possibly fractional) to ISO-8601 UTC. */
export function isoFromUnix(raw: unknown): string {
  const seconds = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds))
    throw new Error('timestamp is not a number');
  return new Date(Math.round(seconds * 1000)).toISOString();
}

function labelsOf(raw: unknown): Labels {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw new Error('labels are not an object');
  const labels: Labels = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') labels[k] = v;
  return labels;
}

function pointOf(raw: unknown): [string, number] {
  if (!Array.isArray(raw) || raw.length !== 2) throw new Error('sample is not [time, value]');
  return [isoFromUnix(raw[0]), parseSampleValue(raw[1])];
}

/**
 * An instant query's answer: a vector, or a scalar (as one sample with no labels). Native
 * histogram samples (`histogram` instead of `value`) are left out. A range vector (`up[5m]`)
 * is refused: that is what range_query is for.
 */
export function parseInstant(data: unknown, what: string): InstantSample[] {
  try {
    if (!isRecord(data)) throw new Error('data is not an object');
    const type = data['resultType'];
    const result = data['result'];
    if (type === 'scalar') {
      const [at, value] = pointOf(result);
      return [{ metric: {}, value, at }];
    }
    if (type === 'vector') {
      if (!Array.isArray(result)) throw new Error('result is not a list');
      const samples: InstantSample[] = [];
      for (const item of result) {
        if (!isRecord(item)) throw new Error('sample is not an object');
        if (item['value'] === undefined) continue;
        const [at, value] = pointOf(item['value']);
        samples.push({ metric: labelsOf(item['metric']), value, at });
      }
      return samples;
    }
    if (type === 'matrix')
      throw new Error('the query returns a range vector; use range_query or drop the [range]');
    if (type === 'string') throw new Error('the query returns a string, not a number');
    throw new Error(`resultType ${JSON.stringify(type)}`);
  } catch (err) {
    throw malformed(what, (err as Error).message);
  }
}

export function parseRange(data: unknown, what: string): RangeSeries[] {
  try {
    if (!isRecord(data)) throw new Error('data is not an object');
    if (data['resultType'] !== 'matrix')
      throw new Error(`resultType ${JSON.stringify(data['resultType'])}, expected matrix`);
    const result = data['result'];
    if (!Array.isArray(result)) throw new Error('result is not a list');
    return result.map((item: unknown): RangeSeries => {
      if (!isRecord(item)) throw new Error('series is not an object');
      const values = item['values'] ?? [];
      if (!Array.isArray(values)) throw new Error('values is not a list');
      return { metric: labelsOf(item['metric']), values: values.map(pointOf) };
    });
  } catch (err) {
    throw malformed(what, (err as Error).message);
  }
}

export function parseTargets(data: unknown, what: string): Target[] {
  try {
    if (!isRecord(data) || !Array.isArray(data['activeTargets']))
      throw new Error('no activeTargets list');
    return data['activeTargets'].map((item: unknown): Target => {
      if (!isRecord(item)) throw new Error('target is not an object');
      const labels = labelsOf(item['labels']);
      const lastError = typeof item['lastError'] === 'string' ? item['lastError'] : '';
      const lastScrape = typeof item['lastScrape'] === 'string' ? item['lastScrape'] : '';
      // A target never scraped reports lastScrape "0001-01-01T00:00:00Z".
      const scraped = lastScrape !== '' && !lastScrape.startsWith('0001-');
      return {
        job: labels['job'] ?? (typeof item['scrapePool'] === 'string' ? item['scrapePool'] : ''),
        instance: labels['instance'] ?? '',
        health: typeof item['health'] === 'string' ? item['health'] : 'unknown',
        labels,
        scrape_url: typeof item['scrapeUrl'] === 'string' ? item['scrapeUrl'] : '',
        last_error: lastError === '' ? null : lastError,
        last_scrape: scraped ? new Date(lastScrape).toISOString() : null,
      };
    });
  } catch (err) {
    throw malformed(what, (err as Error).message);
  }
}

export function parseAlerts(data: unknown, what: string, includePending: boolean): Alert[] {
  try {
    if (!isRecord(data) || !Array.isArray(data['alerts'])) throw new Error('no alerts list');
    const alerts: Alert[] = [];
    for (const item of data['alerts'] as unknown[]) {
      if (!isRecord(item)) throw new Error('alert is not an object');
      const state = typeof item['state'] === 'string' ? item['state'] : 'unknown';
      if (state !== 'firing' && !includePending) continue;
      const labels = labelsOf(item['labels']);
      const activeAt = typeof item['activeAt'] === 'string' ? item['activeAt'] : '';
      let value: number | null = null;
      try {
        value = item['value'] === undefined ? null : parseSampleValue(item['value']);
      } catch {
        value = null;
      }
      alerts.push({
        name: labels['alertname'] ?? '',
        state,
        labels,
        annotations: labelsOf(item['annotations']),
        active_at:
          activeAt === '' || Number.isNaN(Date.parse(activeAt))
            ? null
            : new Date(activeAt).toISOString(),
        value,
      });
    }
    return alerts;
  } catch (err) {
    throw malformed(what, (err as Error).message);
  }
}

export function parseStringList(data: unknown, what: string): string[] {
  if (data === null) return [];
  if (!Array.isArray(data) || !data.every((v) => typeof v === 'string'))
    throw malformed(what, 'not a list of strings');
  return data;
}

export function parseBuildInfo(data: unknown, what: string): { version: string } {
  if (!isRecord(data) || typeof data['version'] !== 'string') throw malformed(what, 'no version');
  return { version: data['version'] };
}

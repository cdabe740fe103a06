// What the per-day charts draw, apart from how: the stacked series in their order, a row per
// day with the quiet days filled in, the words a bar says, and the URL a selection writes.
import type { scaleBand } from '@visx/scale';
import { type HistogramDay } from './api.js';
import { duration } from '../../shared/parts.js';

/** Stacked bottom to top; `taken_back` is hatched (console.md D.1) and sits on top. */
export const SERIES = [
  { key: 'restored', label: 'restored' },
  { key: 'resolved', label: 'resolved' },
  { key: 'cleared', label: 'cleared' },
  { key: 'linked', label: 'linked' },
  { key: 'shadow', label: 'shadow' },
  { key: 'other', label: 'other' },
  { key: 'handed_over', label: 'handed over' },
  { key: 'taken_back', label: 'taken back' },
] as const;
export type SeriesKey = (typeof SERIES)[number]['key'];

export interface DayRow {
  day: string;
  total: number;
  counts: Record<SeriesKey, number>;
  restore: { median: number | null; n: number };
  handover: { median: number | null; n: number };
}

const DAY_MS = 86_400_000;
/** A year and a day: more bars than this are too thin to point at. */
export const MAX_DAYS = 366;

const dayMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const nextDay = (day: string): string => dayOf(dayMs(day) + DAY_MS);

function emptyCounts(): Record<SeriesKey, number> {
  return Object.fromEntries(SERIES.map((s) => [s.key, 0])) as Record<SeriesKey, number>;
}

/**
 * One row per day from the first to the last (the selection's edges when there is one), the
 * days with no episode at 0; the newest MAX_DAYS only. `since`/`until` as in the URL.
 */
export function dayRows(days: readonly HistogramDay[], since: string | null, until: string | null) {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const starts = days.map((d) => dayMs(d.day));
  if (since !== null) starts.push(dayMs(since.slice(0, 10)));
  // until is exclusive: its day is shown only when it is later than midnight.
  if (until !== null) {
    const end = Date.parse(until.length === 10 ? `${until}T00:00:00Z` : until);
    if (!Number.isNaN(end)) starts.push(Math.ceil(end / DAY_MS) * DAY_MS - DAY_MS);
  }
  const valid = starts.filter((t) => !Number.isNaN(t));
  if (valid.length === 0) return { rows: [] as DayRow[], cut: false };
  const last = Math.max(...valid);
  const first = Math.max(Math.min(...valid), last - (MAX_DAYS - 1) * DAY_MS);
  const rows: DayRow[] = [];
  for (let t = first; t <= last; t += DAY_MS) {
    const day = dayOf(t);
    const d = byDay.get(day);
    const counts = emptyCounts();
    if (d !== undefined) {
      for (const [result, n] of Object.entries(d.results)) {
        const key = SERIES.some((s) => s.key === result) ? (result as SeriesKey) : 'other';
        counts[key] += n;
      }
      counts.taken_back = d.taken_back;
    }
    rows.push({
      day,
      total: d?.total ?? 0,
      counts,
      restore: d?.restore_s ?? { median: null, n: 0 },
      handover: d?.handover_s ?? { median: null, n: 0 },
    });
  }
  return { rows, cut: Math.min(...valid) < first };
}

/** The segments of one bar, bottom to top, with where each starts. */
export function segments(row: DayRow) {
  let below = 0;
  return SERIES.filter((s) => row.counts[s.key] > 0).map((s) => {
    const n = row.counts[s.key];
    const seg = { key: s.key, label: s.label, n, below };
    below += n;
    return seg;
  });
}

/** The whole day in words: what a bar's aria-label and the tooltip say. */
export function describeDay(row: DayRow): string {
  if (row.total === 0) return `${row.day}: no episodes`;
  const parts = segments(row).map((s) => `${s.label} ${String(s.n)}`);
  return [
    `${row.day}: ${String(row.total)} episode${row.total === 1 ? '' : 's'}`,
    parts.join(', '),
    ...timesInWords(row),
  ].join('; ');
}

export function timesInWords(row: DayRow): string[] {
  const out: string[] = [];
  if (row.restore.median !== null)
    out.push(`median restore ${duration(row.restore.median)} (n=${String(row.restore.n)})`);
  if (row.handover.median !== null)
    out.push(`median handover ${duration(row.handover.median)} (n=${String(row.handover.n)})`);
  return out;
}

/** "20 Nov": the axis's date, in UTC as the days are. */
export function shortDate(day: string): string {
  return new Date(dayMs(day)).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}

/** Every k-th day as a tick, the first included, so that labels never overlap. */
export function tickDays(rows: readonly DayRow[], width: number): string[] {
  const most = Math.max(2, Math.min(10, Math.floor(width / 72)));
  const every = Math.max(1, Math.ceil(rows.length / most));
  return rows.filter((_, i) => i % every === 0).map((r) => r.day);
}

/** The page's URL with the days `from`..`to` (inclusive) as since/until, or none. */
export function selectionUrl(
  path: string,
  params: URLSearchParams,
  range: { from: string; to: string } | null,
): string {
  const next = new URLSearchParams(params);
  next.delete('offset');
  if (range === null) {
    next.delete('since');
    next.delete('until');
  } else {
    next.set('since', range.from);
    next.set('until', nextDay(range.to));
  }
  const text = next.toString();
  return `${path}${text === '' ? '' : `?${text}`}`;
}

/** Where the first day's slot (its bar and the padding around it) starts. */
export function slot0(x: ReturnType<typeof scaleBand<string>>, rows: readonly DayRow[]): number {
  return (x(rows[0]?.day ?? '') ?? 0) - (x.step() - x.bandwidth()) / 2;
}

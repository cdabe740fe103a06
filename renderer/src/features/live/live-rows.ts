// What the Live page shows of the running episodes, as plain functions: the view in the URL
// (grouping, severity filter, search), attention-first order, groups with their counts, and
// the sentence a screen reader hears for new rows.
import { type RunningEpisode } from './api.js';
import { type ApprovalRequest } from '../approvals/index.js';
import { SEVERITIES, severityOf, severityRank, type Severity } from '../../shared/severity.js';
import { FAILED_ACTIONS } from '../../shared/confidence.js';

export type Grouping = 'none' | 'incident' | 'service';

export interface LiveView {
  readonly group: Grouping;
  /** Severities shown; empty: all. */
  readonly sev: readonly Severity[];
  readonly q: string;
}

const GROUPINGS: readonly Grouping[] = ['none', 'incident', 'service'];

/** The view a URL's query string names (`group`, `sev` as a comma list, `q`). */
export function viewOf(params: URLSearchParams): LiveView {
  const group = params.get('group') ?? 'none';
  const sev = (params.get('sev') ?? '')
    .split(',')
    .filter((s): s is Severity => (SEVERITIES as readonly string[]).includes(s));
  return {
    group: (GROUPINGS as readonly string[]).includes(group) ? (group as Grouping) : 'none',
    sev: SEVERITIES.filter((s) => sev.includes(s)),
    q: params.get('q') ?? '',
  };
}

/**
 * `/live` with the view in its query string; what is at its default is left out. The wall
 * (`to: '/wall'`) takes the same filter and search, and never groups.
 */
export function hrefOf(view: LiveView, to: '/live' | '/wall' = '/live'): string {
  const params = new URLSearchParams();
  if (view.group !== 'none' && to === '/live') params.set('group', view.group);
  if (view.sev.length > 0) params.set('sev', view.sev.join(','));
  if (view.q !== '') params.set('q', view.q);
  const search = params.toString().replace(/%2C/g, ',');
  return search === '' ? to : `${to}?${search}`;
}

/**
 * Attention first: firing before quiet (a quiet episode's alerts have ended and it closes
 * after the hold), then worst severity, then newest.
 */
export function attentionOrder(a: RunningEpisode, b: RunningEpisode): number {
  return (
    Number(a.status === 'quiet') - Number(b.status === 'quiet') ||
    severityRank(a.severity) - severityRank(b.severity) ||
    b.t_open.localeCompare(a.t_open) ||
    b.episode_id.localeCompare(a.episode_id)
  );
}

/** The pending request each episode waits on (the one that expires first, if several). */
export function awaitingByEpisode(
  requests: readonly ApprovalRequest[],
): ReadonlyMap<string, ApprovalRequest> {
  const by = new Map<string, ApprovalRequest>();
  for (const r of requests) {
    if (r.status !== 'pending' || r.episode_id === null) continue;
    const held = by.get(r.episode_id);
    if (held === undefined || r.expires_at < held.expires_at) by.set(r.episode_id, r);
  }
  return by;
}

/** Live's attention buckets (console brief C.2), the one that needs a person most first. */
export const BUCKETS = [
  'awaiting approval',
  'action failed',
  'unsure',
  'acting',
  'observing',
] as const;
export type Bucket = (typeof BUCKETS)[number];

/**
 * Which bucket a running episode is in: waiting on an approval a person can give now; an
 * action that failed or was taken back; a leading hypothesis only suspected or disputed;
 * acting on its own (L1, L2); observing (shadow, off).
 */
export function bucketOf(row: RunningEpisode, awaiting: ReadonlyMap<string, unknown>): Bucket {
  if (awaiting.has(row.episode_id)) return 'awaiting approval';
  if (FAILED_ACTIONS.includes(row.action)) return 'action failed';
  if (row.confidence === 'suspected' || row.confidence === 'disputed') return 'unsure';
  return row.autonomy === 'L1' || row.autonomy === 'L2' ? 'acting' : 'observing';
}

/** The buckets in order, then `attentionOrder` within each. */
export function attentionFirst(
  awaiting: ReadonlyMap<string, unknown>,
): (a: RunningEpisode, b: RunningEpisode) => number {
  const rank = (r: RunningEpisode): number => BUCKETS.indexOf(bucketOf(r, awaiting));
  return (a, b) => rank(a) - rank(b) || attentionOrder(a, b);
}

/** The view's scope in words: "all services", or its severities and its search. */
export function scopeOf(view: LiveView): string {
  const parts = [
    view.sev.length === 0 ? 'all severities' : `${view.sev.join(', ')} only`,
    view.q.trim() === '' ? null : `matching “${view.q.trim()}”`,
  ].filter((p) => p !== null);
  return view.sev.length === 0 && view.q.trim() === '' ? 'all services' : parts.join(' · ');
}

export function matches(row: RunningEpisode, view: LiveView): boolean {
  if (view.sev.length > 0 && !view.sev.includes(severityOf(row.severity))) return false;
  const q = view.q.trim().toLowerCase();
  if (q === '') return true;
  return [row.service, row.episode_id, row.incident_id ?? '', ...row.alerts].some((t) =>
    t.toLowerCase().includes(q),
  );
}

export interface LiveGroup {
  /** '' for the one group of an ungrouped view and for the group without a value. */
  readonly key: string;
  readonly rows: readonly RunningEpisode[];
}

/**
 * Rows (already in order) in groups, each group where its first row would be; the group
 * without a value ("no incident") comes last and is there even when empty, so that grouping
 * never hides how many rows have none.
 */
export function groupsOf(rows: readonly RunningEpisode[], grouping: Grouping): LiveGroup[] {
  if (grouping === 'none') return [{ key: '', rows }];
  const groups = new Map<string, RunningEpisode[]>();
  for (const r of rows) {
    const key = (grouping === 'incident' ? r.incident_id : r.service) ?? '';
    const list = groups.get(key);
    if (list === undefined) groups.set(key, [r]);
    else list.push(r);
  }
  const none = groups.get('') ?? [];
  groups.delete('');
  const out = [...groups].map(([key, list]) => ({ key, rows: list }));
  return [...out, ...(grouping === 'incident' || none.length > 0 ? [{ key: '', rows: none }] : [])];
}

/** How many rows of each severity, worst first, leaving out those with none. */
export function severityCounts(rows: readonly RunningEpisode[]): [Severity, number][] {
  return SEVERITIES.map((s): [Severity, number] => [
    s,
    rows.filter((r) => severityOf(r.severity) === s).length,
  ]).filter(([, n]) => n > 0);
}

/** What a screen reader hears for rows that arrived: "New critical alert on billing: X". */
export function announcement(rows: readonly RunningEpisode[]): string {
  const said = rows
    .slice(0, 3)
    .map(
      (r) =>
        `New ${severityOf(r.severity)} alert on ${r.service}: ${r.alerts.join(', ') || 'no alert name'}`,
    );
  if (rows.length > 3) said.push(`and ${String(rows.length - 3)} more`);
  return said.join('. ');
}

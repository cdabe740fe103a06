// What one timeline row says (console brief C.4): its kind for the filter chips, a line a
// person reads, the objects it names as links, and whether state changed there (the only
// rows that get colour: a hypothesis promoted or cleared, an action verified, failed or taken
// back, an approval granted or denied). Pure: the page renders what this returns.
import { type Episode } from './api.js';

export type TimelineEvent = Episode['timeline'][number];

export const TIMELINE_KINDS = [
  ['all', 'All'],
  ['findings', 'Findings'],
  ['hypotheses', 'Hypotheses'],
  ['decisions', 'Decisions'],
  ['actions', 'Actions'],
  ['approvals', 'Approvals'],
  ['notes', 'Notes'],
  ['system', 'System'],
] as const;
export type TimelineKind = Exclude<(typeof TIMELINE_KINDS)[number][0], 'all'>;

/** The filter chip an event type belongs to; whatever is not named is the system's. */
export function kindOf(type: string): TimelineKind {
  if (type.startsWith('check.')) return 'findings';
  if (type === 'investigation.hypotheses') return 'hypotheses';
  if (
    type.startsWith('decision.') ||
    type === 'investigation.finished' ||
    type === 'investigation.waiting'
  )
    return 'decisions';
  if (type.startsWith('action.')) return 'actions';
  if (type.startsWith('approval.')) return 'approvals';
  if (type.startsWith('human.') || type === 'investigation.note' || type === 'episode.team')
    return 'notes';
  return 'system';
}

/** A state change worth colour, with its glyph and word (never colour alone, D.1). */
export type Change =
  'promoted' | 'cleared' | 'disputed' | 'verified' | 'failed' | 'taken_back' | 'granted' | 'denied';

export const CHANGE_MARK: Record<Change, string> = {
  promoted: '● promoted',
  cleared: '✕ cleared',
  disputed: '◇! disputed',
  verified: '✓ verified',
  failed: '✖ failed',
  taken_back: '↺ taken back',
  granted: '✓ approved',
  denied: '✖ denied',
};

export interface RowLink {
  readonly label: string;
  readonly to: string;
}

export interface Row {
  readonly event: TimelineEvent;
  readonly kind: TimelineKind;
  readonly summary: string;
  readonly change: Change | null;
  readonly links: readonly RowLink[];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const words = (s: string): string => s.replace(/_/g, ' ');

interface HypothesisLike {
  cause: string;
  service: string;
  title: string;
  confidence: string;
}

function hypothesesOf(data: Record<string, unknown>): HypothesisLike[] {
  const list = Array.isArray(data['hypotheses']) ? (data['hypotheses'] as unknown[]) : [];
  return list.map((h) => {
    const r = record(h);
    return {
      cause: text(r['cause']),
      service: text(r['service']),
      title: text(r['title']) || words(text(r['cause'])),
      confidence: text(r['confidence']),
    };
  });
}

/** The change a hypothesis's new confidence is (null: routine, e.g. raised as unproven). */
function confidenceChange(to: string): Change | null {
  if (to === 'proven' || to === 'linked') return 'promoted';
  if (to === 'cleared') return 'cleared';
  if (to === 'disputed') return 'disputed';
  return null;
}

/** Worst first, so a row with several changes shows the one that matters most. */
const SEVERITY: readonly Change[] = [
  'failed',
  'taken_back',
  'denied',
  'disputed',
  'promoted',
  'verified',
  'granted',
  'cleared',
];

function summaryOf(e: TimelineEvent, d: Record<string, unknown>): string {
  const finding = record(d['finding']);
  const fix = record(d['fix']);
  switch (e.type) {
    case 'episode.opened':
      return `opened by ${text(d['name'])} from ${text(d['source'])} (autonomy ${text(d['autonomy'])})`;
    case 'episode.joined':
      return `${text(d['name'])} joined from ${text(d['source'])}`;
    case 'episode.closed':
      return `closed: ${words(text(d['result']))} (decision ${words(text(d['decision']))}, outcome ${words(text(d['outcome']))})`;
    case 'episode.team':
      return `team verdict: ${text(d['verdict'])}${text(d['detail']) ? ` — ${text(d['detail'])}` : ''}`;
    case 'investigation.started':
      return `investigation started${Array.isArray(d['alerts']) ? ` for ${(d['alerts'] as unknown[]).map(text).join(', ')}` : ''}`;
    case 'investigation.step': {
      const n = Array.isArray(d['changes']) ? d['changes'].length : null;
      return `step: ${words(text(d['step']))}${n === null ? '' : ` (${String(n)} change${n === 1 ? '' : 's'} found)`}`;
    }
    case 'check.ran':
      return finding['readable'] === false
        ? // The engine's own line already begins "could not read: <why>" (run-checks.ts).
          `⚠ ${text(finding['check'])}: ${text(finding['says'])}`
        : `${text(finding['says'])} (${text(finding['check'])} via ${text(finding['connector'])})`;
    case 'decision.made':
      return `decided ${words(text(d['decision']))}${text(d['why']) ? ` — ${text(d['why'])}` : ''}`;
    case 'investigation.finished':
      return `finished: ${words(text(d['decision']))}${text(d['outcome']) ? ` → ${words(text(d['outcome']))}` : ''}`;
    case 'approval.requested':
      return `approval requested: ${text(d['title'])}`;
    case 'approval.decided':
      return `${text(d['by'])} ${d['decision'] === 'approve' ? 'approved' : 'denied'}${text(d['reason']) ? ` — ${text(d['reason'])}` : ''}`;
    case 'approval.closed':
      return `approval ${text(d['status'])}${text(d['reason']) ? ` — ${text(d['reason'])}` : ''}`;
    case 'human.deploy':
      return `deploy${text(d['service']) ? ` of ${text(d['service'])}` : ''}${text(d['version']) ? ` version ${text(d['version'])}` : ''}`;
    case 'human.action':
      return `${text(d['action']) || 'action'}${text(d['service']) ? ` on ${text(d['service'])}` : ''}${text(d['detail']) ? ` — ${text(d['detail'])}` : ''}`;
    default:
      if (e.type.startsWith('action.'))
        return `${text(fix['title']) || 'action'}${text(d['detail']) ? ` — ${text(d['detail'])}` : ''}${text(d['why']) ? ` — ${text(d['why'])}` : ''}`;
      if (e.type.startsWith('signal.')) return `${text(d['name'])} ${text(d['status'])}`.trim();
      return '';
  }
}

function changeOf(e: TimelineEvent, d: Record<string, unknown>): Change | null {
  switch (e.type) {
    case 'action.verified':
      return 'verified';
    case 'action.verify_failed':
    case 'action.refused':
      return 'failed';
    case 'action.taken_back':
      return 'taken_back';
    case 'action.done':
      return d['ok'] === false ? 'failed' : null;
    case 'approval.decided':
      return d['decision'] === 'approve' ? 'granted' : 'denied';
    default:
      return null;
  }
}

function linksOf(e: TimelineEvent, d: Record<string, unknown>, episodeId: string): RowLink[] {
  const links: RowLink[] = [];
  const episode = text(d['episode_id']);
  if (episode !== '' && episode !== episodeId)
    links.push({ label: episode, to: `/episodes/${encodeURIComponent(episode)}` });
  const incident = text(d['incident_id']);
  if (incident !== '')
    links.push({ label: incident, to: `/incidents/${encodeURIComponent(incident)}` });
  const request = text(d['request_id']);
  if (request !== '')
    links.push({
      label: request,
      to: `/approvals?${new URLSearchParams({ sel: request }).toString()}`,
    });
  return links;
}

/**
 * The rows of a timeline, oldest first. Hypotheses are compared with the previous
 * hypotheses event so that a row says what changed ("disk full: unproven → cleared").
 */
export function timelineRows(timeline: readonly TimelineEvent[], episodeId: string): Row[] {
  const confidence = new Map<string, string>();
  return timeline.map((e) => {
    const d = record(e.data);
    let summary = summaryOf(e, d);
    let change = changeOf(e, d);
    if (e.type === 'investigation.hypotheses') {
      const moves: string[] = [];
      const changes: Change[] = [];
      for (const h of hypothesesOf(d)) {
        const key = `${h.cause}@${h.service}`;
        const was = confidence.get(key);
        confidence.set(key, h.confidence);
        if (was === h.confidence) continue;
        moves.push(`${h.title}: ${was === undefined ? '' : `${was} → `}${h.confidence}`);
        const c =
          was === undefined && h.confidence === 'unproven' ? null : confidenceChange(h.confidence);
        if (c !== null) changes.push(c);
      }
      summary = moves.length === 0 ? 'hypotheses unchanged' : moves.join('; ');
      change = SEVERITY.find((s) => changes.includes(s)) ?? null;
    }
    if (summary === '' && e.reason) summary = e.reason;
    return { event: e, kind: kindOf(e.type), summary, change, links: linksOf(e, d, episodeId) };
  });
}

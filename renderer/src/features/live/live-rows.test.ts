import { describe, expect, it } from 'vitest';
import { type RunningEpisode } from './api.js';
import { type ApprovalRequest } from '../approvals/index.js';
import {
  announcement,
  attentionOrder,
  attentionFirst,
  awaitingByEpisode,
  bucketOf,
  groupsOf,
  hrefOf,
  matches,
  scopeOf,
  severityCounts,
  viewOf,
} from './live-rows.js';

const row = (over: Partial<RunningEpisode> & { episode_id: string }): RunningEpisode => ({
  service: 'svc',
  alerts: ['Alert'],
  status: 'open',
  step: 'intake',
  t_open: '2026-11-29T10:00:00.000Z',
  severity: 'info',
  incident_id: null,
  autonomy: 'shadow',
  confidence: '',
  action: '',
  ...over,
});

describe('the Live view in the URL', () => {
  it('reads group, sev and q, dropping what it does not know', () => {
    const v = viewOf(new URLSearchParams('group=incident&sev=warning,bogus,critical&q=pay'));
    expect(v).toEqual({ group: 'incident', sev: ['critical', 'warning'], q: 'pay' });
    expect(viewOf(new URLSearchParams('group=team'))).toEqual({ group: 'none', sev: [], q: '' });
  });

  it('writes only what is not at its default, and reads back the same', () => {
    expect(hrefOf({ group: 'none', sev: [], q: '' })).toBe('/live');
    const href = hrefOf({ group: 'service', sev: ['critical', 'high'], q: 'a b' });
    expect(href).toBe('/live?group=service&sev=critical,high&q=a+b');
    expect(viewOf(new URL(href, 'http://x').searchParams)).toEqual({
      group: 'service',
      sev: ['critical', 'high'],
      q: 'a b',
    });
  });

  it('carries the filter and search to the wall, not the grouping, and says the scope', () => {
    const view = { group: 'service', sev: ['critical', 'high'], q: ' pay ' } as const;
    expect(hrefOf(view, '/wall')).toBe('/wall?sev=critical,high&q=+pay+');
    expect(hrefOf({ group: 'incident', sev: [], q: '' }, '/wall')).toBe('/wall');
    expect(scopeOf(view)).toBe('critical, high only · matching “pay”');
    expect(scopeOf({ group: 'none', sev: [], q: 'db' })).toBe('all severities · matching “db”');
    expect(scopeOf({ group: 'none', sev: [], q: '  ' })).toBe('all services');
  });
});

describe('attention order', () => {
  it('puts firing before quiet, then the worst severity, then the newest', () => {
    const rows = [
      row({ episode_id: 'old-crit', severity: 'critical', t_open: '2026-11-29T09:00:00.000Z' }),
      row({ episode_id: 'new-info', severity: 'info', t_open: '2026-11-29T11:00:00.000Z' }),
      row({ episode_id: 'new-crit', severity: 'critical', t_open: '2026-11-29T10:00:00.000Z' }),
      row({ episode_id: 'quiet-crit', severity: 'critical', status: 'quiet' }),
      row({ episode_id: 'odd', severity: 'page-me' }),
      row({ episode_id: 'high', severity: 'high' }),
    ];
    expect(rows.sort(attentionOrder).map((r) => r.episode_id)).toEqual([
      'new-crit',
      'old-crit',
      'high',
      'new-info',
      'odd',
      'quiet-crit',
    ]);
  });
});

describe('episodes waiting for an approval', () => {
  const request = (over: Partial<ApprovalRequest>): ApprovalRequest =>
    ({
      request_id: 'apr-1',
      status: 'pending',
      episode_id: 'ep-info',
      expires_at: '2026-11-29T11:00:00.000Z',
      ...over,
    }) as ApprovalRequest;

  it('come first, whatever their severity, the rest in attention order', () => {
    const rows = [
      row({ episode_id: 'ep-crit', severity: 'critical' }),
      row({ episode_id: 'ep-info', severity: 'info' }),
      row({ episode_id: 'ep-quiet', severity: 'info', status: 'quiet' }),
    ];
    const awaiting = awaitingByEpisode([request({}), request({ episode_id: 'ep-quiet' })]);
    expect(rows.sort(attentionFirst(awaiting)).map((r) => r.episode_id)).toEqual([
      'ep-info',
      'ep-quiet',
      'ep-crit',
    ]);
  });

  it('keep the request that expires first; closed requests and none for an episode do not count', () => {
    const awaiting = awaitingByEpisode([
      request({ request_id: 'later', expires_at: '2026-11-29T12:00:00.000Z' }),
      request({ request_id: 'sooner', expires_at: '2026-11-29T10:30:00.000Z' }),
      request({ request_id: 'done', status: 'approved', episode_id: 'ep-other' }),
      request({ request_id: 'raise', episode_id: null }),
    ]);
    expect([...awaiting].map(([ep, r]) => [ep, r.request_id])).toEqual([['ep-info', 'sooner']]);
  });
});

describe('attention buckets (console brief C.2)', () => {
  const none = new Map<string, unknown>();
  it('waiting for approval, a failed action, an unsure hypothesis, acting, then observing', () => {
    const rows = [
      row({ episode_id: 'observing', severity: 'critical' }),
      row({ episode_id: 'acting', autonomy: 'L2', confidence: 'proven' }),
      row({ episode_id: 'unsure', confidence: 'disputed' }),
      row({ episode_id: 'failed', autonomy: 'L1', action: 'taken_back' }),
      row({ episode_id: 'awaiting', action: 'not_verified' }),
      row({ episode_id: 'acting-l1', autonomy: 'L1', action: 'verified', severity: 'high' }),
    ];
    const awaiting = new Map([['awaiting', {}]]);
    expect(rows.sort(attentionFirst(awaiting)).map((r) => r.episode_id)).toEqual([
      'awaiting',
      'failed',
      'unsure',
      'acting-l1',
      'acting',
      'observing',
    ]);
  });

  it('reads every failed state as failed, and no hypothesis yet as not unsure', () => {
    for (const action of ['taken_back', 'not_verified', 'dry_run_failed', 'refused'])
      expect(bucketOf(row({ episode_id: 'e', action }), none)).toBe('action failed');
    for (const action of ['', 'running', 'verified', 'shadow'])
      expect(bucketOf(row({ episode_id: 'e', action }), none)).toBe('observing');
    expect(bucketOf(row({ episode_id: 'e', confidence: 'suspected' }), none)).toBe('unsure');
    expect(bucketOf(row({ episode_id: 'e', confidence: '' }), none)).toBe('observing');
    expect(bucketOf(row({ episode_id: 'e', confidence: 'unproven' }), none)).toBe('observing');
    expect(bucketOf(row({ episode_id: 'e', autonomy: 'off' }), none)).toBe('observing');
  });
});

describe('filter and search', () => {
  const r = row({ episode_id: 'ep-1', service: 'Billing', alerts: ['QueueBacklog'] });
  it('matches severity and text over service, alerts and episode, ignoring case', () => {
    expect(matches(r, { group: 'none', sev: [], q: 'billing' })).toBe(true);
    expect(matches(r, { group: 'none', sev: [], q: 'backlog' })).toBe(true);
    expect(matches(r, { group: 'none', sev: [], q: 'ep-1' })).toBe(true);
    expect(matches(r, { group: 'none', sev: [], q: 'payments' })).toBe(false);
    expect(matches(r, { group: 'none', sev: ['info'], q: '' })).toBe(true);
    expect(matches(r, { group: 'none', sev: ['critical'], q: '' })).toBe(false);
  });
});

describe('groups', () => {
  const rows = [
    row({ episode_id: 'a', service: 'pay', incident_id: 'inc-1', severity: 'critical' }),
    row({ episode_id: 'b', service: 'web', incident_id: null }),
    row({ episode_id: 'c', service: 'pay', incident_id: 'inc-1', severity: 'warning' }),
  ];
  it('keeps the order of first rows, and the no-value group last', () => {
    expect(groupsOf(rows, 'incident').map((g) => [g.key, g.rows.length])).toEqual([
      ['inc-1', 2],
      ['', 1],
    ]);
    expect(groupsOf(rows, 'service').map((g) => [g.key, g.rows.length])).toEqual([
      ['pay', 2],
      ['web', 1],
    ]);
  });
  it('shows the no-incident group even when empty; no grouping is one group', () => {
    expect(groupsOf(rows.slice(0, 1), 'incident').map((g) => g.key)).toEqual(['inc-1', '']);
    expect(groupsOf(rows, 'none')).toEqual([{ key: '', rows }]);
  });
  it('counts each severity present, worst first', () => {
    expect(severityCounts(rows)).toEqual([
      ['critical', 1],
      ['warning', 1],
      ['info', 1],
    ]);
  });
});

describe('announcement', () => {
  it('names severity, service and alert; more than three are counted', () => {
    expect(
      announcement([
        row({
          episode_id: 'a',
          severity: 'critical',
          service: 'billing',
          alerts: ['QueueBacklog'],
        }),
      ]),
    ).toBe('New critical alert on billing: QueueBacklog');
    const many = ['a', 'b', 'c', 'd', 'e'].map((id) => row({ episode_id: id }));
    expect(announcement(many)).toMatch(/^New info alert on svc: Alert\. .*\. and 2 more$/);
  });
});

// One closed episode with the investigation an operator reads on the episode page: a deploy
// and a restart reported before it (POST /v1/events types), a watched file that changed, the
// changes step as the orchestrator records it, checks (one read, two unreadable), a cause
// cleared and two left unproven, and the decision `cleared`. For console tests only.
import type { Writer } from '../../db/writer.js';
import { createChangesReader } from '../../investigate/changes.js';
import type { LedgerReader, LedgerService } from '../../ledger/index.js';
import { seedEpisodes } from './episodes.js';

interface Deps {
  readonly ledger: LedgerService;
  readonly writer: Writer;
  readonly reader: LedgerReader;
  readonly clock: { set(iso: string): void };
}

export interface InvestigatedEpisode {
  readonly episodeId: string;
  readonly incidentId: string;
  /** seq of each event by type (the last of a type wins) */
  readonly seqs: Readonly<Record<string, number>>;
}

const at = (iso: string, s: number): string => new Date(Date.parse(iso) + s * 1000).toISOString();

/** The findings: the deploy check read and refuting; the disk and pool checks unreadable. */
function findingsAt(open: string) {
  const base = { connector: 'ssh-web', service: 'payments', values: {}, at: at(open, 30) };
  return [
    {
      ...base,
      id: 'f-deploy',
      check: 'change.recent_deploy',
      connector: 'git-payments',
      call: 'git log --since=1h',
      says: 'payments-api v412 rolled out 20 min before; error rate unchanged since',
      excerpt: 'v412 2026-11-21T09:40Z ci:payments',
      readable: true,
    },
    {
      ...base,
      id: 'f-disk',
      check: 'host.disk_free',
      call: 'df -P /var',
      says: 'could not read: ssh connection refused by web-1',
      excerpt: '',
      readable: false,
    },
    {
      ...base,
      id: 'f-pool',
      check: 'db.pool_in_use',
      connector: 'pg-main',
      call: 'SELECT count(*) FROM pg_stat_activity',
      says: 'could not read: permission denied for pg_stat_activity',
      excerpt: '',
      readable: false,
    },
  ];
}

const hypothesis = (cause: string, confidence: string, refuting: string[] = []) => ({
  cause,
  confidence,
  fixes: [],
  pack: cause === 'bad_deploy' ? 'change' : 'host',
  proving: [],
  refuting,
  service: 'payments',
  supporting: [],
  title: cause.replace(/_/g, ' '),
});

export function seedInvestigatedEpisode(deps: Deps, open: string): InvestigatedEpisode {
  const { ledger, writer, reader, clock } = deps;
  const seqs: Record<string, number> = {};
  const append = (input: Parameters<LedgerService['append']>[0]): void => {
    seqs[input.type] = ledger.append(input).seq;
  };
  writer.transactNow(() => {
    clock.set(at(open, -20 * 60));
    append({
      type: 'human.deploy',
      actor: 'ci:payments',
      data: { service: 'payments', version: 'v412', host: 'web-2' },
    });
    clock.set(at(open, -8 * 60));
    append({
      type: 'human.action',
      actor: 'human:alice',
      data: { service: 'payments', action: 'restart', detail: 'restarted payments-api' },
    });
  });
  // As the orchestrator reads them (server/investigate/wire.ts), plus a watched file's diff.
  const changes = createChangesReader({
    snapshots: () => [
      {
        seq: 1,
        connector: 'ssh-web',
        at: at(open, -5 * 60),
        added: { 'diff:/etc/payments/app.conf': '-pool_size = 20 | +pool_size = 5' },
        removed: {},
        changed: { 'file:/etc/payments/app.conf': { from: 'a'.repeat(64), to: 'b'.repeat(64) } },
      },
    ],
    events: (since) =>
      reader.list({ type: 'human.deploy,human.action', since, order: 'asc', limit: 200 }).events,
  })(at(open, -3600), 'payments');
  const findings = findingsAt(open);
  const during = (id: string): void => {
    const trace = { trace_id: id, actor: 'system' };
    clock.set(at(open, 5));
    append({
      ...trace,
      type: 'investigation.started',
      data: { episode_id: id, service: 'payments', alerts: ['HighErrorRate'], queue_s: 0 },
    });
    append({
      ...trace,
      type: 'investigation.step',
      data: { episode_id: id, step: 'changes', changes },
    });
    clock.set(at(open, 30));
    for (const finding of findings)
      append({ ...trace, type: 'check.ran', data: { episode_id: id, finding } });
    append({
      ...trace,
      type: 'investigation.hypotheses',
      data: {
        episode_id: id,
        packs: ['change', 'host'],
        hypotheses: [
          hypothesis('bad_deploy', 'cleared', ['f-deploy']),
          hypothesis('disk_full', 'unproven'),
          hypothesis('db_pool_exhausted', 'unproven'),
        ],
      },
    });
    append({
      ...trace,
      type: 'decision.made',
      data: {
        episode_id: id,
        decision: 'cleared',
        why: 'every cause the checks could test was ruled out (bad_deploy)',
        next: 'none',
      },
    });
    // Finished, or the service would take the investigation up again when it starts.
    append({
      ...trace,
      type: 'investigation.finished',
      data: { episode_id: id, decision: 'cleared', outcome: 'cleared', result: 'cleared' },
    });
  };
  const [ids] = seedEpisodes({ ledger, writer, clock }, [
    {
      service: 'payments',
      t_open: open,
      t_close: at(open, 300),
      alerts: ['HighErrorRate'],
      decision: 'cleared',
      outcome: 'cleared',
      result: 'cleared',
      confidence: 'cleared',
      during,
    },
  ]);
  if (ids === undefined) throw new Error('seedInvestigatedEpisode: nothing seeded');
  return { episodeId: ids[0], incidentId: ids[1], seqs };
}

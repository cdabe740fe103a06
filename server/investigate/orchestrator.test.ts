// The orchestrator over a real SQLite ledger with small fakes for the engine, decision
// table, approvals and actions: every step lands in the ledger, the concurrency bound holds,
// an approval wait survives as ledger state, and a crash mid-action is ended explicitly.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest, OpenApproval } from '../approvals/index.js';
import { createEpisodesStore } from '../episodes/index.js';
import { EPISODE_INPUTS } from '../compose/index.js';
import { createIncidentsStore } from '../incidents/index.js';
import { systemClock } from '../shared/clock.js';
import { closeFields, type ActionResult } from './closing.js';
import { createOrchestrator, NOT_COVERED, type OrchestratorDeps } from './orchestrator.js';
import type { AutonomyLevel, DecideInput, DecideOutput, Hypothesis } from './types.js';

import { DIAGNOSIS, FIX, PROVEN, planOf } from '../testing/investigate/fixtures/nginx-down.js';
import {
  openEpisode as openOn,
  openInvestigationBench,
  type InvestigationBench,
} from '../testing/investigate/fixtures/orchestrator-bench.js';
import { ledgerRows } from '../testing/ledger-rows.js';

const log = pino({ level: 'silent' });

let bench: InvestigationBench;
let store: InvestigationBench['store'];

beforeEach(() => {
  bench = openInvestigationBench('orchestrator-');
  ({ store } = bench);
});
afterEach(() => {
  bench.close();
});

const openEpisode = (service: string): string => openOn(bench, service);

/** A wake scans on the next turn: after this, what it found is queued (and drained waits). */
const nextTurn = (): Promise<void> =>
  new Promise((r) => {
    setImmediate(r);
  });

interface Harness {
  readonly deps: OrchestratorDeps;
  readonly opened: OpenApproval[];
  readonly executed: string[];
  active: number;
  maxActive: number;
}

function harness(over: {
  level?: AutonomyLevel;
  decide?: (i: DecideInput) => DecideOutput;
  result?: ActionResult;
  maxConcurrent?: number;
}): Harness {
  const h: Harness = { opened: [], executed: [], active: 0, maxActive: 0, deps: null as never };
  (h as { deps: OrchestratorDeps }).deps = {
    store,
    ledger: bench.ledger,
    writer: bench.writer,
    clock: systemClock,
    log,
    maxConcurrent: over.maxConcurrent ?? 2,
    // Only start and wake scan in these tests, never the safety-net poll.
    pollMs: 60_000,
    episode: bench.episode,
    diagnose: async () => {
      h.active += 1;
      h.maxActive = Math.max(h.maxActive, h.active);
      await new Promise((r) => setTimeout(r, 20));
      h.active -= 1;
      return DIAGNOSIS;
    },
    changes: () => [],
    autonomy: { levelOf: () => over.level ?? 'L1', fixMode: () => 'advise', halted: () => false },
    planFix: (episodeId, _service, d) =>
      d.hypotheses.length === 0
        ? null
        : {
            choice: {
              pack: 'host',
              id: FIX.id,
              title: FIX.title,
              risk: 'low',
              kind: 'fix',
              allowed: true,
              safe: false,
              runnable: true,
            },
            plan: planOf(episodeId),
          },
    changeWindow: () => null,
    approvalRoute: () => true,
    decide: over.decide ?? (() => ({ decision: 'act', why: 'proven, L1 asks', next: 'ask' })),
    approvals: {
      open: (input) => {
        h.opened.push(input);
        return Promise.resolve(request(input, 'pending', `ap-${String(h.opened.length)}`));
      },
    },
    actions: {
      dryRun: () => Promise.resolve({ ok: true, detail: 'would restart nginx: allowed' }),
      shadow: () => Promise.resolve(),
      execute: (plan) => {
        h.executed.push(plan.fix.id);
        return Promise.resolve(over.result ?? 'verified');
      },
    },
    planOf: (r) => planOf(r.episode_id ?? ''),
  };
  return h;
}

function request(
  input: OpenApproval,
  status: ApprovalRequest['status'],
  id: string,
): ApprovalRequest {
  return {
    ...input,
    request_id: id,
    status,
    requested_by_id: input.requested_by,
    subject_sha256: '0'.repeat(64),
    requested_at: '2026-11-22T10:00:01.000Z',
    expires_at: '2026-11-23T10:00:01.000Z',
    decisions: [],
    channels: [],
    closed_at: null,
    reason: null,
  };
}

const types = (id: string): string[] =>
  ledgerRows(bench.db)
    .filter((r) => r.trace_id === id)
    .map((r) => r.type);

describe('the orchestrator', () => {
  it('writes every step of an investigation to the ledger and waits for approval at L1', async () => {
    const h = harness({});
    const o = createOrchestrator(h.deps);
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(types(id)).toEqual([
      'episode.opened',
      'investigation.started',
      'investigation.step',
      'investigation.step',
      'check.ran',
      'investigation.hypotheses',
      'decision.made',
      'investigation.waiting',
    ]);
    expect(h.opened).toHaveLength(1);
    expect(h.opened[0]?.quorum).toBe(1);
    const row = store.get(id);
    expect(row?.status).toBe('waiting');
    expect(row?.t_handover).not.toBeNull();
    expect(JSON.parse(row?.findings ?? '[]')).toHaveLength(1);

    // Approved: the action runs and the investigation ends verified.
    o.decided(request(h.opened[0] as OpenApproval, 'approved', 'ap-1'));
    await o.drained();
    expect(h.executed).toEqual(['restart_unit']);
    const done = store.get(id);
    expect(done?.status).toBe('done');
    const fields = closeFields(done, '2026-11-22T10:00:00.000Z');
    expect(fields).toMatchObject({
      decision: 'act',
      outcome: 'mitigated',
      result: 'resolved',
      action: 'verified',
      confidence: 'proven',
      kind: 'failure',
      fix: 'restart_unit',
    });
    o.stop();
  });

  it('ends a denied request as denied, and runs nothing', async () => {
    const h = harness({});
    const o = createOrchestrator(h.deps);
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    o.decided({ ...request(h.opened[0] as OpenApproval, 'denied', 'ap-1'), reason: 'not now' });
    await o.drained();
    expect(h.executed).toEqual([]);
    expect(closeFields(store.get(id), '2026-11-22T10:00:00.000Z')).toMatchObject({
      decision: 'denied',
      outcome: 'rejected',
      result: 'handed_over',
    });
    o.stop();
  });

  it('investigates at most maxConcurrent episodes at once', async () => {
    const h = harness({
      maxConcurrent: 1,
      decide: () => ({ decision: 'abstain', why: 'x', next: 'none' }),
    });
    const o = createOrchestrator(h.deps);
    const ids = [openEpisode('a'), openEpisode('b'), openEpisode('c')];
    await o.start();
    await o.drained();
    expect(h.maxActive).toBe(1);
    for (const id of ids) expect(store.get(id)?.status).toBe('done');
    o.stop();
  });

  it('skips an episode of a service the licence does not cover, saying so, and runs nothing', async () => {
    const h = harness({});
    let diagnosed = 0;
    const o = createOrchestrator({
      ...h.deps,
      covered: (service) => service !== 'beyond',
      diagnose: async (ctx) => {
        diagnosed += 1;
        return h.deps.diagnose(ctx);
      },
    });
    const out = openEpisode('beyond');
    const inside = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(types(out)).toEqual(['episode.opened', 'investigation.skipped']);
    const skipped = ledgerRows(bench.db).find(
      (r) => r.trace_id === out && r.type === 'investigation.skipped',
    );
    expect(JSON.parse(skipped?.data ?? '{}')).toMatchObject({ why: NOT_COVERED });
    expect(store.get(out)?.status).toBe('skipped');
    expect(types(inside)).toContain('investigation.started');
    expect(diagnosed).toBe(1);
    expect(h.opened).toHaveLength(1);
    o.stop();
  });

  it('skips an episode of a service whose autonomy is off', async () => {
    const h = harness({ level: 'off' });
    const o = createOrchestrator(h.deps);
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(store.get(id)?.status).toBe('skipped');
    expect(types(id)).not.toContain('check.ran');
    o.stop();
  });

  it('ends an action a crash interrupted as handed over, and never runs it twice', async () => {
    const id = openEpisode('nginx');
    bench.writer.transactNow(() => {
      for (const [type, data] of [
        ['investigation.started', { service: 'nginx', alerts: [], queue_s: 0 }],
        ['decision.made', { decision: 'act', why: 'L2 safe', next: 'act' }],
        [
          'action.started',
          {
            fix: { pack: 'p', id: 'restart_unit', title: 'Restart', risk: 'low', kind: 'restart' },
            connector: 'ssh-web',
            call: 'restart',
          },
        ],
      ] as const)
        bench.ledger.append({
          type,
          actor: 'system',
          data: { episode_id: id, ...data },
          trace_id: id,
        });
    });
    const h = harness({});
    const o = createOrchestrator(h.deps);
    await o.start();
    await o.drained();
    expect(h.executed).toEqual([]);
    expect(types(id)).toContain('investigation.recovered');
    expect(closeFields(store.get(id), '2026-11-22T10:00:00.000Z')).toMatchObject({
      decision: 'ask_human',
      action: 'not_verified',
    });
    o.stop();
  });

  it('at start, dispatches an approval a crash left unheard, and ends a wait whose request ended or is gone', async () => {
    const before = harness({});
    const first = createOrchestrator(before.deps);
    const ids = [openEpisode('nginx'), openEpisode('nginx'), openEpisode('nginx')];
    await first.start();
    await first.drained();
    first.stop(); // the crash: approved, committed, and nobody heard it
    const asked = before.opened.map((o, i) => request(o, 'pending', `ap-${String(i + 1)}`));
    expect(ids.map((id) => store.get(id)?.status)).toEqual(['waiting', 'waiting', 'waiting']);
    const now: Record<string, ApprovalRequest | null> = {
      [ids[0] ?? '']: { ...(asked[0] as ApprovalRequest), status: 'approved' },
      [ids[1] ?? '']: { ...(asked[1] as ApprovalRequest), status: 'withdrawn', reason: 'lowered' },
      [ids[2] ?? '']: null,
    };
    const h = harness({});
    const o = createOrchestrator({
      ...h.deps,
      approvals: {
        ...h.deps.approvals,
        find: (rid) => Object.values(now).find((r) => r?.request_id === rid) ?? null,
      },
    });
    // Which request each episode waits on is what the first run recorded.
    for (const id of ids) {
      const rid = store.get(id)?.request_id ?? '';
      const r = now[id];
      now[id] = r === undefined || r === null ? null : { ...r, request_id: rid, episode_id: id };
    }
    await o.start();
    await o.drained();
    expect(h.executed).toEqual(['restart_unit']);
    expect(ids.map((id) => store.get(id)?.status)).toEqual(['done', 'done', 'done']);
    expect(closeFields(store.get(ids[0] ?? ''), '2026-11-22T10:00:00.000Z')).toMatchObject({
      action: 'verified',
    });
    o.stop();
  });

  it('runs an investigation interrupted before acting again', async () => {
    const id = openEpisode('nginx');
    bench.writer.transactNow(() => {
      bench.ledger.append({
        type: 'investigation.started',
        actor: 'system',
        data: { episode_id: id, service: 'nginx', alerts: [], queue_s: 0 },
        trace_id: id,
      });
    });
    const h = harness({
      decide: () => ({ decision: 'shadow', why: 'shadow records', next: 'record' }),
    });
    const o = createOrchestrator(h.deps);
    await o.start();
    await o.drained();
    expect(types(id)).toContain('investigation.recovered');
    expect(closeFields(store.get(id), '2026-11-22T10:00:00.000Z')).toMatchObject({
      decision: 'shadow',
      outcome: 'shadow',
      result: 'shadow',
    });
    o.stop();
  });

  it('investigates again when a signal joins after a round ended', async () => {
    const h = harness({
      decide: () => ({ decision: 'abstain', why: 'nothing decisive', next: 'none' }),
    });
    const o = createOrchestrator(h.deps);
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(store.get(id)?.status).toBe('done');
    bench.writer.transactNow(() => {
      bench.ledger.append({
        type: 'episode.joined',
        actor: 'system',
        data: {
          episode_id: id,
          service: 'nginx',
          source: 'test',
          fingerprint: 'other',
          name: 'LabSiteDown',
        },
        trace_id: id,
      });
    });
    expect(store.get(id)?.status).toBe('again');
    o.wake();
    await nextTurn();
    await o.drained();
    expect(types(id).filter((t) => t === 'decision.made')).toHaveLength(2);
    expect(store.get(id)?.status).toBe('done');
    o.stop();
  });

  it('moves a downstream episode into the incident of the episode whose cause explains it', async () => {
    const db = openOn(bench, 'postgresql', 'in-db');
    const app = openOn(bench, 'app', 'in-app');
    const episodes = createEpisodesStore(bench.db, EPISODE_INPUTS);
    const incidentOf = (id: string) => episodes.get(id)?.incident_id;
    bench.writer.transactNow(() => {
      for (const [id, incident] of [
        [db, 'in-db'],
        [app, 'in-app'],
      ] as const) {
        bench.ledger.append({
          type: 'incident.opened',
          actor: 'system',
          data: { incident_id: incident, episode_id: id, service: 'x', group_key: null },
          trace_id: incident,
        });
      }
    });
    const linked: Hypothesis = {
      ...PROVEN,
      service: 'postgresql',
      confidence: 'linked',
      linked_episode: db,
    };
    const h = harness({ decide: () => ({ decision: 'downstream', why: 'linked', next: 'none' }) });
    const o = createOrchestrator({
      ...h.deps,
      diagnose: () => Promise.resolve({ ...DIAGNOSIS, hypotheses: [linked] }),
      link: (id, to) => {
        bench.ledger.append({
          type: 'incident.linked',
          actor: 'system',
          data: {
            incident_id: incidentOf(to),
            episode_id: id,
            service: 'app',
            from_incident: incidentOf(id),
            relation: 'downstream',
            to_episode: to,
          },
          trace_id: incidentOf(to) ?? '',
        });
      },
    });
    await o.start();
    await o.drained();
    expect(incidentOf(app)).toBe('in-db');
    const left = createIncidentsStore(bench.db, episodes).get('in-app');
    expect(left?.status).toBe('resolved');
    o.stop();
  });

  it('starts nothing while inactive (SVC_ORCHESTRATE=0, or not operating), and catches up after', async () => {
    let active = false;
    const h = harness({ decide: () => ({ decision: 'abstain', why: 'x', next: 'none' }) });
    const o = createOrchestrator({ ...h.deps, active: () => active });
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(store.get(id)).toBeNull();
    expect(types(id)).toEqual(['episode.opened']);
    active = true;
    o.wake();
    await nextTurn();
    await o.drained();
    expect(store.get(id)?.status).toBe('done');
    o.stop();
  });

  it('withdraws a request whose episode closed, and never runs a fix approved after the close', async () => {
    const h = harness({});
    const withdrawn: string[] = [];
    const o = createOrchestrator({
      ...h.deps,
      approvals: {
        ...h.deps.approvals,
        withdraw: (id) => {
          withdrawn.push(id);
          return Promise.resolve();
        },
      },
    });
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(store.get(id)?.status).toBe('waiting');
    bench.writer.transactNow(() => {
      bench.ledger.append({
        type: 'episode.closed',
        actor: 'system',
        data: {
          episode_id: id,
          decision: 'settled',
          outcome: 'cleared',
          result: 'resolved',
          action: '',
          handover_s: null,
        },
        trace_id: id,
      });
    });
    // Approved after the close: nothing runs.
    o.decided(request(h.opened[0] as OpenApproval, 'approved', 'ap-1'));
    await o.drained();
    expect(h.executed).toEqual([]);
    expect(closeFields(store.get(id), '2026-11-22T10:00:00.000Z')).toMatchObject({
      decision: 'settled',
    });
    o.stop();

    // Still waiting when the episode closed: the scan withdraws the request.
    const other = openEpisode('nginx');
    const o2 = createOrchestrator({
      ...h.deps,
      approvals: {
        ...h.deps.approvals,
        withdraw: (rid) => {
          withdrawn.push(rid);
          return Promise.resolve();
        },
      },
    });
    await o2.start();
    await o2.drained();
    bench.writer.transactNow(() => {
      bench.ledger.append({
        type: 'episode.closed',
        actor: 'system',
        data: {
          episode_id: other,
          decision: 'settled',
          outcome: 'cleared',
          result: 'resolved',
          action: '',
          handover_s: null,
        },
        trace_id: other,
      });
    });
    o2.wake();
    await nextTurn();
    await o2.drained();
    expect(withdrawn).toEqual(['ap-2']);
    expect(store.get(other)?.status).toBe('done');
    o2.stop();
  });

  it('joins instead of acting when the same cause is already proven elsewhere (same_cause)', async () => {
    const h = harness({});
    const links: string[] = [];
    const o = createOrchestrator({
      ...h.deps,
      relate: () => ({ decision: 'same_cause', to: 'ep-other', why: 'already proven there' }),
      link: (id, to, relation) => {
        links.push(`${relation}:${to}`);
      },
    });
    const id = openEpisode('worker');
    await o.start();
    await o.drained();
    expect(h.opened).toEqual([]);
    expect(h.executed).toEqual([]);
    expect(links).toEqual(['same_cause:ep-other']);
    expect(closeFields(store.get(id), '2026-11-22T10:00:00.000Z')).toMatchObject({
      decision: 'same_cause',
      outcome: 'explained',
      result: 'linked',
    });
    o.stop();
  });

  it('runs nothing when the action is vetoed, and hands the episode over', async () => {
    const h = harness({ level: 'L2', decide: () => ({ decision: 'act', why: 'L2', next: 'act' }) });
    const asked: string[] = [];
    const dryRuns: string[] = [];
    const o = createOrchestrator({
      ...h.deps,
      actions: {
        ...h.deps.actions,
        dryRun: (plan) => {
          dryRuns.push(plan.fix.id);
          return h.deps.actions.dryRun(plan);
        },
      },
      vetoAction: (id, plan) => {
        asked.push(`${id}:${plan.fix.id}`);
        return Promise.resolve({ vetoed: true, why: 'System 1 vetoed: wrong unit' });
      },
    });
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(asked).toEqual([`${id}:restart_unit`]);
    expect(dryRuns).toEqual([]);
    expect(h.executed).toEqual([]);
    expect(h.opened).toEqual([]);
    expect(types(id).slice(-3)).toEqual([
      'decision.made',
      'decision.made',
      'investigation.finished',
    ]);
    const row = store.get(id);
    expect(JSON.parse(row?.decision ?? '{}')).toMatchObject({
      decision: 'vetoed',
      why: 'System 1 vetoed: wrong unit',
      handover: true,
      fix: { id: 'restart_unit' },
    });
    expect(row?.t_handover).not.toBeNull();
    expect(closeFields(row, '2026-11-22T10:00:00.000Z')).toMatchObject({
      decision: 'vetoed',
      outcome: 'escalated',
      result: 'handed_over',
      action: '',
    });
    o.stop();
  });

  it('asks no veto for a shadow record, and goes on when the action is not vetoed', async () => {
    const asked: string[] = [];
    const vetoAction = (id: string) => {
      asked.push(id);
      return Promise.resolve({ vetoed: false, why: '' });
    };
    const shadow = harness({
      decide: () => ({ decision: 'shadow', why: 'shadow records', next: 'record' }),
    });
    const o = createOrchestrator({ ...shadow.deps, vetoAction });
    openEpisode('nginx');
    await o.start();
    await o.drained();
    o.stop();
    expect(asked).toEqual([]);

    const h = harness({});
    const o2 = createOrchestrator({ ...h.deps, vetoAction });
    const id = openEpisode('nginx');
    await o2.start();
    await o2.drained();
    expect(asked).toEqual([id]);
    expect(h.opened).toHaveLength(1);
    o2.stop();
  });

  it('calls the finished hook after each finish, and a failing hook never fails the episode', async () => {
    const h = harness({ decide: () => ({ decision: 'abstain', why: 'x', next: 'none' }) });
    const seen: string[] = [];
    const o = createOrchestrator({
      ...h.deps,
      finished: (id) => {
        // The finish has committed: the hook reads the finished row.
        seen.push(`${id}:${store.get(id)?.status ?? 'none'}`);
        return Promise.reject(new Error('the note failed'));
      },
    });
    const id = openEpisode('nginx');
    await o.start();
    await o.drained();
    expect(seen).toEqual([`${id}:done`]);
    expect(store.get(id)?.status).toBe('done');
    o.stop();
  });

  it('wakes only between start and stop, and a wake starts the due episodes', async () => {
    const h = harness({ decide: () => ({ decision: 'abstain', why: 'x', next: 'none' }) });
    const o = createOrchestrator({ ...h.deps, pollMs: 60_000 });
    const early = openEpisode('nginx');
    o.wake(); // not started: nothing happens, start's own scan finds it
    await new Promise((r) => setImmediate(r));
    expect(types(early)).toEqual(['episode.opened']);
    await o.start();
    await o.drained();
    expect(store.get(early)?.status).toBe('done');
    const ids = [openEpisode('nginx'), openEpisode('nginx')];
    o.wake();
    o.wake();
    await new Promise((r) => setImmediate(r));
    await o.drained();
    expect(ids.map((id) => store.get(id)?.status)).toEqual(['done', 'done']);
    o.stop();
    const late = openEpisode('nginx');
    o.wake();
    await new Promise((r) => setImmediate(r));
    expect(types(late)).toEqual(['episode.opened']);
  });
});

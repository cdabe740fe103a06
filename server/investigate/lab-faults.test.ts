// The real packs (build/packs/src, unsigned) against RECORDED connector answers for each lab
// fault (fixtures/: lab.json is the healthy lab, each <fault>.json the answers that differ
// and the ground truth). Each episode must prove exactly the ground-truth cause (or link it
// to the dependency it lives on), and no other cause may be proven or linked.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createFixPlanner } from './fix-plan.js';
import type { EstateLike } from './plan.js';
import { engineFor, FIXTURES, packs, readJson } from '../testing/investigate/recorded.js';

interface Episode {
  readonly service: string;
  readonly alerts: string[];
  readonly proven: [string, string][];
  readonly linked: [string, string][];
  readonly fix?: { id: string; op: string; args: Record<string, unknown> };
}

interface Fault {
  readonly fault: string;
  /** the estate as the service knows it (default: the lab's, after discovery) */
  readonly estate?: EstateLike;
  /** the fault makes checks unreadable on purpose */
  readonly unreadable?: boolean;
  readonly answers: Record<string, unknown>;
  readonly episodes: Episode[];
}

const faults = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json') && f !== 'lab.json')
  .sort()
  .map((f) => readJson<Fault>(f));

const pairs = (list: readonly { cause: string; service: string }[]) =>
  list.map((h) => `${h.cause}(${h.service})`).sort();

describe('the real packs against recorded answers from each lab fault', () => {
  it('covers every lab fault, the red herring and the no-fault case', () => {
    expect(faults.map((f) => f.fault)).toEqual([
      'app-down',
      'bad-deploy',
      'before-discovery',
      'cert-expiry',
      'cpu-busy-build',
      'cpu-hog',
      'db-auth-refused',
      'db-down',
      'disk-full-logs',
      'disk-full',
      'harmless-deploy-then-crash',
      'memory-fell-busy-machine',
      'memory-pressure',
      'no-fault',
      'pool-exhausted',
      'probe-unreadable',
      'red-herring',
      'service-down',
      'slow-upstream',
      'stale-refusal-then-stop',
      'unit-unreadable',
      'unknown-app-errors',
    ]);
  });

  for (const fault of faults) {
    for (const ep of fault.episodes) {
      it(`${fault.fault}: ${ep.service} [${ep.alerts.join(', ')}]`, async () => {
        const { engine } = engineFor(fault.answers, fault.estate);
        const result = await engine.investigate({
          episode_id: `ep-${fault.fault}`,
          service: ep.service,
          alerts: ep.alerts,
          labels: { alertname: ep.alerts[0] ?? '', service: ep.service },
        });
        // Every answer the packs ask for is recorded: nothing unreadable but what the fault breaks.
        const unexpected = result.findings.filter(
          (f) => !f.readable && !f.says.includes('connection refused'),
        );
        if (fault.unreadable !== true)
          expect(unexpected.map((f) => `${f.id}@${f.service}: ${f.says}`)).toEqual([]);

        const proven = result.hypotheses.filter((h) => h.confidence === 'proven');
        const linked = result.hypotheses.filter((h) => h.confidence === 'linked');
        expect(pairs(proven)).toEqual(ep.proven.map(([c, s]) => `${c}(${s})`).sort());
        expect(pairs(linked)).toEqual(ep.linked.map(([c, s]) => `${c}(${s})`).sort());
        // The leading hypothesis is the ground truth.
        const truth = [...ep.proven, ...ep.linked][0];
        if (truth !== undefined) {
          expect(result.hypotheses[0]).toMatchObject({ cause: truth[0], service: truth[1] });
        }
        for (const h of [...proven, ...linked]) {
          expect(h.proving.length).toBeGreaterThan(0);
          for (const id of h.proving) {
            const f = result.findings.find((x) => x.id === id && x.service === h.service);
            expect(f?.readable).toBe(true);
            expect(f?.excerpt.length).toBeLessThanOrEqual(1000);
          }
        }
        if (ep.fix !== undefined) {
          const lead = result.hypotheses[0];
          if (lead === undefined) throw new Error('no hypothesis');
          const [fix] = result.fixes.forHypothesis(lead);
          expect(fix).toMatchObject({
            fix: { id: ep.fix.id },
            runnable: true,
            action: { op: ep.fix.op, args: ep.fix.args },
          });
          expect(fix?.connector).toMatch(/^ssh-/);
        }
      });
    }
  }

  it('restarts the unit through the host that runs it, with the gate dry run', async () => {
    const { engine } = engineFor(faults.find((f) => f.fault === 'app-down')?.answers ?? {});
    const r = await engine.investigate({
      episode_id: 'ep-1',
      service: 'app',
      alerts: ['LabAppDown'],
      labels: {},
    });
    const lead = r.hypotheses[0];
    if (lead === undefined) throw new Error('no hypothesis');
    expect(r.fixes.forHypothesis(lead)).toEqual([
      expect.objectContaining({
        pack: 'host',
        service: 'app',
        connector: 'ssh-app',
        action: { op: 'restart', args: { unit: 'app' } },
        dry_run: { op: 'dry_run', args: { action: 'restart', arg: 'app' } },
        take_back: null,
        runnable: true,
        why: null,
      }),
    ]);
    expect(r.fixes.get('host', 'restart_unit')?.risk).toBe('low');
  });

  it('shows the red herring deploy as evidence and refutes it', async () => {
    const herring = faults.find((f) => f.fault === 'red-herring');
    const { engine } = engineFor(herring?.answers ?? {});
    const r = await engine.investigate({
      episode_id: 'ep-2',
      service: 'app',
      alerts: ['LabAppErrors'],
      labels: {},
    });
    const bad = r.hypotheses.find((h) => h.cause === 'bad_deploy' && h.service === 'app');
    // It touched the app (timing), but the app's log names nothing it changed: never proven.
    expect(bad).toMatchObject({
      confidence: 'disputed',
      proving: [],
      supporting: ['change.recent.touches_service'],
      refuting: ['change.health.healthy'],
    });
    expect(r.findings.find((f) => f.id === 'change.recent.touches_service')?.says).toContain(
      'shop: raise the pool size to 6',
    );
  });

  it('offers clearing the cache only when the cache holds the space (a fix must fit)', async () => {
    const planFor = async (name: string) => {
      const { engine } = engineFor(faults.find((f) => f.fault === name)?.answers ?? {});
      const r = await engine.investigate({
        episode_id: 'ep-3',
        service: 'app',
        alerts: ['LabDiskFull'],
        labels: {},
      });
      const planner = createFixPlanner({
        packs: () => packs,
        variables: () => ({ service: 'app' }),
        permission: () => ({ allowed: true, safe: true, why: 'allowed' }),
      });
      return planner.plan('ep-3', 'app', r);
    };
    const full = await planFor('disk-full');
    expect(full?.choice).toMatchObject({
      id: 'clear_cache',
      title: 'Clear the cache app-cache',
      unfit: null,
    });
    expect(full?.plan).not.toBeNull();
    const logs = await planFor('disk-full-logs');
    expect(logs?.choice.unfit).toBe(
      'it needs host.disk.cache_holds_space, which the checks did not find',
    );
    expect(logs?.plan).toBeNull();
  });
});

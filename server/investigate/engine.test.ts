import { describe, expect, it } from 'vitest';
import type { Pack } from '../packs/index.js';
import { createFakeClock } from '../shared/clock.js';
import { createEngine, variablesFor } from './engine.js';
import type { EstateLike } from './plan.js';
import type { CallFn } from './run-checks.js';
import type { Investigator } from './readings.js';

const estate: EstateLike = {
  services: [
    { name: 'web', kind: 'web', hosts: ['10.0.0.1', 'web-1'], origins: [] },
    { name: 'api.v2', hosts: ['10.0.0.2'], origins: [] },
    { name: 'db', hosts: ['10.0.0.3'], origins: [] },
  ],
  links: [
    { from: 'web', to: 'api.v2' },
    { from: 'api.v2', to: 'db' },
  ],
};
const connectors = [
  { name: 'ssh-web', kind: 'ssh', settings: { host: '10.0.0.1' } },
  { name: 'ssh-db', kind: 'ssh', settings: { host: '10.0.0.3' } },
  { name: 'pg', kind: 'postgresql', settings: { service: 'db' } },
];

const pack: Pack = {
  id: 'host',
  version: 1,
  title: 'host',
  matches: [{ alerts: ['*Down*'] }],
  checks: [
    {
      id: 'host.services',
      title: 'units',
      connector: 'ssh',
      call: { op: 'services' },
      values: { state: { path: 'units[name={service}].state' } },
      findings: [
        { id: 'unit_down', when: [{ value: 'state', op: 'eq', than: 'stopped' }], says: 'down' },
        { id: 'unit_running', when: [{ value: 'state', op: 'eq', than: 'running' }], says: 'up' },
      ],
      scope: 'dependency',
    },
    {
      id: 'host.roles',
      title: 'roles',
      connector: 'postgresql',
      call: { op: 'connections' },
      values: { role: { path: 'by_role[0].role' } },
      findings: [],
    },
  ],
  causes: [
    {
      id: 'service_down',
      title: '{service} is down',
      proves: ['host.services.unit_down'],
      supports: [],
      refutes: ['host.services.unit_running'],
      downstream: { alerts: ['*Down*'] },
      fixes: ['restart_unit', 'kill_role'],
    },
  ],
  fixes: [
    {
      id: 'restart_unit',
      title: 'restart',
      risk: 'low',
      connector: 'ssh',
      kind: 'fix',
      dry_run: { op: 'dry_run', args: { action: 'restart', arg: '{service}' } },
      action: { op: 'restart', args: { unit: '{service}' } },
      verify: {
        expect: ['host.services.unit_running'],
        expect_absent: [],
        within_s: 10,
        alert_ends_within_s: 0,
      },
      take_back: null,
    },
    {
      id: 'kill_role',
      title: 'kill',
      risk: 'medium',
      connector: 'ssh',
      kind: 'fix',
      dry_run: null,
      action: { op: 'terminate_idle', args: { role: '{host.roles.role}' } },
      verify: { expect: [], expect_absent: [], within_s: 0, alert_ends_within_s: 0 },
      take_back: null,
    },
  ],
};

describe('variables', () => {
  it('names the service, its host, the alert, labels, times and dependencies', () => {
    const v = variablesFor({
      service: 'web',
      estate,
      alerts: ['WebDown'],
      labels: { env: 'prod', alertname: 'ignored' },
      episodeId: 'ep-1',
      nowMs: Date.parse('2026-03-02T10:00:00.000Z'),
    });
    expect(v).toEqual({
      service: 'web',
      host: '10.0.0.1',
      alertname: 'WebDown',
      episode_id: 'ep-1',
      now: '2026-03-02T10:00:00.000Z',
      hour_ago: '2026-03-02T09:00:00.000Z',
      dependencies: ['api.v2', 'db'],
      'label.env': 'prod',
      'label.alertname': 'ignored',
    });
  });

  it('has no dependencies value for a service that depends on none', () => {
    const v = variablesFor({
      service: 'db',
      estate,
      alerts: [],
      labels: { alertname: 'DbDown' },
      episodeId: '',
      nowMs: 0,
    });
    expect(v['dependencies']).toBeUndefined();
    expect(v['alertname']).toBe('DbDown');
  });
});

describe('the engine', () => {
  function engine(units: Record<string, string>, demoted?: (cause: string) => string | null) {
    const calls: string[] = [];
    const call: CallFn = (c, op) => {
      calls.push(`${c} ${op}`);
      if (op === 'connections') return Promise.resolve({ by_role: [] });
      const name = c === 'ssh-web' ? 'web' : 'db';
      return Promise.resolve({ units: [{ name, state: units[name] ?? 'running', pid: 1 }] });
    };
    const e = createEngine({
      packs: () => [pack],
      estate: () => estate,
      connectors: () => connectors,
      call,
      clock: createFakeClock('2026-03-02T10:00:00.000Z'),
      ...(demoted !== undefined && { demoted }),
    });
    return { e, calls };
  }

  it('investigates: packs, findings, hypotheses, and fixes filled for the cause’s service', async () => {
    const { e } = engine({ db: 'stopped' });
    const r = await e.investigate({
      episode_id: 'ep-1',
      service: 'web',
      alerts: ['WebDown'],
      labels: {},
    });
    expect(r.packs).toEqual(['host']);
    expect(r.findings.map((f) => `${f.id}@${f.service}`)).toEqual([
      'host.services.unit_running@web',
      'host.services.unreadable@api.v2',
      'host.services.unit_down@db',
      'host.roles.unreadable@web',
    ]);
    expect(r.hypotheses.map((h) => `${h.confidence} ${h.cause}(${h.service})`)).toEqual([
      'linked service_down(db)',
      'cleared service_down(web)',
    ]);
    const [restart, kill] = r.fixes.forHypothesis(r.hypotheses[0] ?? ({} as never));
    expect(restart).toMatchObject({
      service: 'db',
      connector: 'ssh-db',
      action: { op: 'restart', args: { unit: 'db' } },
      dry_run: { op: 'dry_run', args: { action: 'restart', arg: 'db' } },
      runnable: true,
    });
    expect(kill).toMatchObject({
      runnable: false,
      missing: ['host.roles.role'],
      why: 'no value for {host.roles.role}',
    });
    expect(r.fixes.prepare('host', 'restart_unit', 'api.v2')).toMatchObject({
      runnable: false,
      connector: null,
      why: 'no ssh connector reaches api.v2',
    });
    expect(r.fixes.get('host', 'nope')).toBeNull();
    expect(r.fixes.prepare('other', 'restart_unit', 'db')).toBeNull();
  });

  it('holds a cause its labels demoted at suspected: the engine passes the demotion on', async () => {
    const { e } = engine({ web: 'stopped' }, (c) => (c === 'service_down' ? 'demoted' : null));
    const r = await e.investigate({
      episode_id: 'ep-1',
      service: 'web',
      alerts: ['WebDown'],
      labels: {},
    });
    expect(r.hypotheses[0]).toMatchObject({
      cause: 'service_down',
      service: 'web',
      confidence: 'suspected',
      held: ['demoted'],
    });
  });

  it('rechecks only the named checks, for the one service', async () => {
    const { e, calls } = engine({});
    const found = await e.recheck(['host.services'], { service: 'db' });
    expect(found.map((f) => `${f.id}@${f.service}`)).toEqual(['host.services.unit_running@db']);
    expect(calls).toEqual(['ssh-db services']);
  });
});

describe('values from alerts in a query', () => {
  const promPack: Pack = {
    id: 'latency',
    version: 1,
    title: 'latency',
    matches: [{ alerts: ['*Latency*'] }],
    checks: [
      {
        id: 'latency.p99',
        title: 'p99',
        connector: 'prometheus',
        call: {
          op: 'query',
          args: {
            query:
              'max(p99{service="{service}",env="{label.env}"}) or up{service=~"{dependencies}"}',
          },
        },
        values: {},
        findings: [],
      },
      {
        id: 'latency.units',
        title: 'units',
        connector: 'ssh',
        call: { op: 'journal', args: { unit: '{label.env}' } },
        values: {},
        findings: [],
      },
    ],
    causes: [],
    fixes: [],
  };

  it("are quoted for the connector's query language, never spliced in", async () => {
    const calls: Record<string, unknown>[] = [];
    const call: CallFn = (_c, _op, args) => {
      calls.push({ ...args });
      return Promise.resolve([]);
    };
    const e = createEngine({
      packs: () => [promPack],
      estate: () => estate,
      connectors: () => [...connectors, { name: 'prom', kind: 'prometheus', settings: {} }],
      call,
      clock: createFakeClock('2026-03-02T10:00:00.000Z'),
    });
    const hostile = 'prod"} or vector(1) or up{a="';
    await e.investigate({
      episode_id: 'ep-2',
      service: 'web',
      alerts: ['WebLatency'],
      labels: { env: hostile },
    });
    expect(calls).toContainEqual({
      query:
        'max(p99{service="web",env="prod\\"} or vector(1) or up{a=\\""}) or up{service=~"api\\\\.v2|db"}',
    });
    // Not a query language: the gate's own checks apply, the value goes as it is.
    expect(calls).toContainEqual({ unit: hostile });
  });
});

describe('the engine with a model investigator', () => {
  const disk: Pack = {
    id: 'disk',
    version: 1,
    title: 'disk',
    matches: [{ alerts: ['*Disk*'] }],
    checks: [
      {
        id: 'disk.usage',
        title: 'disk usage',
        connector: 'ssh',
        call: { op: 'disk' },
        values: { used: { path: 'used' } },
        findings: [{ id: 'full', when: [{ value: 'used', op: 'ge', than: 95 }], says: 'full' }],
      },
      {
        id: 'disk.inodes',
        title: 'inodes',
        connector: 'ssh',
        call: { op: 'inodes' },
        values: { used: { path: 'used' } },
        findings: [
          { id: 'ok', when: [{ value: 'used', op: 'lt', than: 50 }], says: 'few inodes used' },
        ],
      },
    ],
    causes: [
      {
        id: 'disk_full',
        title: 'the disk of {service} is full',
        proves: ['disk.usage.full'],
        supports: [],
        refutes: [],
        fixes: [],
      },
    ],
    fixes: [],
  };

  function engine(units: Record<string, string>, investigator: Investigator) {
    const call: CallFn = (c, op) => {
      if (op === 'disk') return Promise.resolve({ used: 99 });
      if (op === 'inodes') return Promise.resolve({ used: 10 });
      if (op === 'connections') return Promise.resolve({ by_role: [] });
      const name = c === 'ssh-web' ? 'web' : 'db';
      return Promise.resolve({ units: [{ name, state: units[name] ?? 'running', pid: 1 }] });
    };
    return createEngine({
      packs: () => [pack, disk],
      estate: () => estate,
      connectors: () => connectors,
      call,
      clock: createFakeClock('2026-03-02T10:00:00.000Z'),
      investigator: () => investigator,
    });
  }
  const ctx = { episode_id: 'ep-1', service: 'web', alerts: ['WebDown'], labels: {} };

  it('offers the unmatched packs’ checks, and what a proposed read proves joins the diagnosis', async () => {
    const offered: string[] = [];
    const investigator: Investigator = {
      async extend(_ctx, tools) {
        offered.push(...tools.catalogue.map((c) => c.id));
        expect(tools.assess([]).lead).toBe('cleared');
        expect(await tools.read('disk.usage@web')).toEqual(['disk.usage@web', 'disk.inodes@web']);
        expect(await tools.read('disk.usage@web')).toEqual([]);
        expect(await tools.read('disk.inodes@web')).toEqual([]);
        expect(await tools.read('host.services@web')).toEqual([]);
        expect(tools.assess(['disk.usage@web']).lead).toBe('proven');
      },
    };
    const r = await engine({}, investigator).investigate(ctx);
    expect(offered).toEqual(['disk.usage@web', 'disk.inodes@web']);
    expect(r.packs).toEqual(['host', 'disk']);
    expect(r.findings.map((f) => f.id)).toEqual(
      expect.arrayContaining(['disk.usage.full', 'disk.inodes.ok']),
    );
    expect(r.hypotheses[0]).toMatchObject({ cause: 'disk_full', confidence: 'proven' });
  });

  it('is not asked when the packs’ own checks settle the cause', async () => {
    let asked = false;
    const investigator: Investigator = {
      extend() {
        asked = true;
        return Promise.resolve();
      },
    };
    const r = await engine({ db: 'stopped' }, investigator).investigate(ctx);
    expect(asked).toBe(false);
    expect(r.hypotheses[0]?.confidence).toBe('linked');
  });
});

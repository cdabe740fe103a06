import { describe, expect, it } from 'vitest';
import type { PackCheck } from '../packs/index.js';
import type { PlannedCheck } from './plan.js';
import { excerptOf, runChecks, type CallFn } from './run-checks.js';

const services: PackCheck = {
  id: 'host.services',
  title: 'units',
  connector: 'ssh',
  call: { op: 'services' },
  timeout_s: 7,
  values: { state: { path: 'units[name={service}].state' } },
  findings: [
    {
      id: 'unit_down',
      when: [{ value: 'state', op: 'in', than: ['stopped', 'failed'] }],
      says: 'unit {service} is {host.services.state}',
    },
    { id: 'unit_running', when: [{ value: 'state', op: 'eq', than: 'running' }], says: 'ok' },
  ],
};
const role: PackCheck = {
  id: 'pg.connections',
  title: 'who',
  connector: 'postgresql',
  call: { op: 'connections' },
  values: { role: { path: 'by_role[0].role' } },
  findings: [
    { id: 'held', when: [{ value: 'role', op: 'present' }], says: '{pg.connections.role}' },
  ],
};
const journal: PackCheck = {
  id: 'host.journal',
  title: 'log of the role',
  connector: 'ssh',
  call: { op: 'journal', args: { unit: '{pg.connections.role}', lines: 5 } },
  values: { lines: { path: 'lines|count' } },
  findings: [
    {
      id: 'lines',
      when: [{ value: 'lines', op: 'ge', than: 1 }],
      says: '{host.journal.lines} lines',
    },
  ],
};
const planned = (check: PackCheck, service: string, connector: string | null): PlannedCheck => ({
  pack: check.id.split('.')[0] ?? '',
  check,
  service,
  connector,
  problem: connector === null ? `no ${check.connector} connector reaches ${service}` : null,
});
const vars = (service: string) => ({ service, 'label.env': 'lab' });
const now = () => '2026-03-02T10:00:00.000Z';

describe('running checks', () => {
  it('turns answers into findings, with values, the call as sent and an excerpt', async () => {
    const calls: string[] = [];
    const call: CallFn = (c, op, args, ms) => {
      calls.push(`${c} ${op} ${JSON.stringify(args)} ${String(ms)}`);
      return Promise.resolve({ units: [{ name: 'app', state: 'failed', pid: null }] });
    };
    const r = await runChecks([planned(services, 'app', 'ssh-app')], {
      call,
      now,
      variables: vars,
    });
    expect(calls).toEqual(['ssh-app services {} 7000']);
    expect(r.findings).toEqual([
      {
        id: 'host.services.unit_down',
        check: 'host.services',
        connector: 'ssh-app',
        call: 'services {}',
        service: 'app',
        says: 'unit app is failed',
        values: { state: 'failed' },
        excerpt: '{"units":[{"name":"app","state":"failed","pid":null}]}',
        at: now(),
        readable: true,
      },
    ]);
    expect(r.values).toEqual({ app: { 'host.services.state': 'failed' } });
  });

  it('makes a failed call, or no connector, an unreadable finding with the reason', async () => {
    const call: CallFn = () => Promise.reject(new Error('connector ssh-app: timed out after 20 s'));
    const r = await runChecks(
      [planned(services, 'app', 'ssh-app'), planned(services, 'cache', null)],
      { call, now, variables: vars },
    );
    expect(r.findings.map((f) => [f.id, f.service, f.readable, f.says, f.excerpt])).toEqual([
      [
        'host.services.unreadable',
        'app',
        false,
        'could not read: connector ssh-app: timed out after 20 s',
        '',
      ],
      ['host.services.unreadable', 'cache', false, 'no ssh connector reaches cache', ''],
    ]);
  });

  it('runs a check whose arguments need another check’s value after it', async () => {
    const order: string[] = [];
    const call: CallFn = (_c, op, args) => {
      order.push(`${op} ${JSON.stringify(args)}`);
      return Promise.resolve(
        op === 'connections' ? { by_role: [{ role: 'batch', n: 9 }] } : { lines: ['a', 'b'] },
      );
    };
    const r = await runChecks([planned(journal, 'db', 'ssh-db'), planned(role, 'db', 'pg')], {
      call,
      now,
      variables: vars,
    });
    expect(order).toEqual(['connections {}', 'journal {"unit":"batch","lines":5}']);
    expect(r.findings.map((f) => f.id)).toEqual(['host.journal.lines', 'pg.connections.held']);
  });

  it('does not run a check whose arguments name a value nobody reads', async () => {
    const call: CallFn = () => Promise.reject(new Error('no role'));
    const r = await runChecks([planned(journal, 'db', 'ssh-db'), planned(role, 'db', 'pg')], {
      call,
      now,
      variables: vars,
    });
    expect(r.findings.map((f) => [f.id, f.says])).toEqual([
      ['host.journal.unreadable', 'not run: no value for {pg.connections.role}'],
      ['pg.connections.unreadable', 'could not read: no role'],
    ]);
  });

  it('gives no finding for a check with nothing to read (its source read no such value)', async () => {
    const calls: string[] = [];
    const call: CallFn = (_c, op) => {
      calls.push(op);
      return Promise.resolve({ by_role: [] });
    };
    const r = await runChecks([planned(journal, 'db', 'ssh-db'), planned(role, 'db', 'pg')], {
      call,
      now,
      variables: vars,
    });
    // No role holds connections, so there is no role's log to read: not an unreadable check.
    expect(calls).toEqual(['connections']);
    expect(r.findings).toEqual([]);
  });

  it('reads the check a `mentions` condition names first, and compares with its values', async () => {
    const added: PackCheck = {
      id: 'change.diff',
      title: 'diff',
      connector: 'git',
      call: { op: 'show' },
      values: { added: { path: 'added' } },
      findings: [],
    };
    const errors: PackCheck = {
      id: 'change.errors',
      title: 'log',
      connector: 'ssh',
      call: { op: 'journal', args: { unit: '{service}', lines: 5 } },
      values: { lines: { path: 'lines' } },
      findings: [
        {
          id: 'names_change',
          when: [{ value: 'lines', op: 'mentions', than: '{change.diff.added}' }],
          says: 'the log names {change.diff.added}',
        },
      ],
    };
    const order: string[] = [];
    const call: CallFn = (_c, op) => {
      order.push(op);
      return Promise.resolve(
        op === 'show' ? { added: ['shop_v2'] } : { lines: ['database "shop_v2" does not exist'] },
      );
    };
    const r = await runChecks([planned(errors, 'app', 'ssh-app'), planned(added, 'app', 'git')], {
      call,
      now,
      variables: vars,
    });
    expect(order).toEqual(['show', 'journal']);
    expect(r.findings.map((f) => f.id)).toEqual(['change.errors.names_change']);
    // The diff check unreadable: the log check has nothing to compare with, so no finding.
    const none: CallFn = (_c, op) => Promise.resolve(op === 'show' ? {} : { lines: ['x'] });
    const empty = await runChecks(
      [
        planned(errors, 'app', 'ssh-app'),
        planned({ ...added, call: { op: 'show', args: { commit: '{x.y.z}' } } }, 'app', 'git'),
      ],
      { call: none, now, variables: vars },
    );
    expect(empty.findings.map((f) => f.id)).toEqual(['change.diff.unreadable']);
  });

  it('reads nothing of the dependencies of a service known to have none', async () => {
    const upstream: PackCheck = {
      id: 'change.upstream',
      title: 'deps',
      connector: 'prometheus',
      call: { op: 'query', args: { query: 'up{service=~"{dependencies}"}' } },
      values: { v: { path: '[0].value' } },
      findings: [],
    };
    const call: CallFn = () => Promise.reject(new Error('not called'));
    const known = await runChecks([planned(upstream, 'db', 'prom')], {
      call,
      now,
      variables: (s) => ({ service: s, no_dependencies: true }),
    });
    expect(known.findings).toEqual([]);
    // Unknown to the estate: its dependencies are unknown, so the check is unreadable.
    const unknown = await runChecks([planned(upstream, 'db', 'prom')], {
      call,
      now,
      variables: vars,
    });
    expect(unknown.findings.map((f) => f.says)).toEqual(['not run: no value for {dependencies}']);
  });

  it('makes the same call once for several services', async () => {
    let n = 0;
    const call: CallFn = () => {
      n += 1;
      return Promise.resolve({ units: [{ name: 'app', state: 'running', pid: 1 }] });
    };
    const r = await runChecks(
      [planned(services, 'app', 'ssh-x'), planned(services, 'web', 'ssh-x')],
      { call, now, variables: vars },
    );
    expect(n).toBe(1);
    expect(r.findings.map((f) => `${f.id}@${f.service}`)).toEqual([
      'host.services.unit_running@app',
    ]);
  });

  it('clips the excerpt to 1,000 characters', () => {
    const big = excerptOf({ lines: Array.from({ length: 500 }, (_v, i) => `line ${String(i)}`) });
    expect(big.length).toBe(1000);
    expect(big.endsWith('…')).toBe(true);
    expect(excerptOf(undefined)).toBe('null');
  });
});

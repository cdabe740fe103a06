import { describe, expect, it } from 'vitest';
import type { Pack, PackCheck } from '../packs/index.js';
import { connectorsReaching, dependenciesOf, planChecks, type EstateLike } from './plan.js';

const estate: EstateLike = {
  services: [
    { name: 'nginx', hosts: ['127.0.1.1'], origins: [{ connector: 'ssh-web', how: 'ports' }] },
    { name: 'app', hosts: ['127.0.1.2'], origins: [{ connector: 'prometheus', how: 'target' }] },
    { name: 'postgresql', hosts: ['db1'], origins: [{ connector: 'pg', how: 'discover' }] },
    { name: 'cache', hosts: [], origins: [] },
  ],
  links: [
    { from: 'nginx', to: 'app' },
    { from: 'app', to: 'postgresql' },
    { from: 'app', to: 'cache' },
    { from: 'postgresql', to: 'disk-array' },
  ],
};
const connectors = [
  { name: 'ssh-web', kind: 'ssh', settings: { host: '10.0.0.9' } },
  { name: 'ssh-app', kind: 'ssh', settings: { host: '127.0.1.2' } },
  { name: 'pg', kind: 'postgresql', settings: { host: 'db1' } },
  { name: 'pg-replica', kind: 'postgresql', settings: { service: 'postgresql' } },
  { name: 'site', kind: 'http', settings: { url: 'https://x/', service: 'nginx' } },
  { name: 'prometheus', kind: 'prometheus', settings: {} },
  { name: 'thanos', kind: 'prometheus', settings: {} },
  { name: 'deploys', kind: 'git', settings: { path: '/srv/deploy' } },
];

const check = (id: string, connector: PackCheck['connector'], scope?: 'dependency'): PackCheck => ({
  id,
  title: id,
  connector,
  call: { op: 'x' },
  values: {},
  findings: [],
  ...(scope !== undefined && { scope }),
});
const pack = (id: string, checks: PackCheck[]): Pack => ({
  id,
  version: 1,
  title: id,
  matches: [],
  checks,
  causes: [],
  fixes: [],
});

describe('dependencies', () => {
  it('follows links one and two hops, nearest first', () => {
    expect(dependenciesOf('nginx', estate.links)).toEqual(['app', 'cache', 'postgresql']);
    expect(dependenciesOf('nginx', estate.links, 1)).toEqual(['app']);
    expect(dependenciesOf('app', estate.links)).toEqual(['cache', 'postgresql', 'disk-array']);
    expect(dependenciesOf('cache', estate.links)).toEqual([]);
  });

  it('never loops back to the service', () => {
    expect(
      dependenciesOf('a', [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
      ]),
    ).toEqual(['b']);
  });
});

describe('which connectors reach a service', () => {
  it('reaches through estate origins, the service setting or the ssh host setting', () => {
    expect(connectorsReaching('ssh', 'nginx', estate, connectors)).toEqual(['ssh-web']);
    expect(connectorsReaching('ssh', 'app', estate, connectors)).toEqual(['ssh-app']);
    expect(connectorsReaching('postgresql', 'postgresql', estate, connectors)).toEqual([
      'pg',
      'pg-replica',
    ]);
    expect(connectorsReaching('http', 'nginx', estate, connectors)).toEqual(['site']);
    expect(connectorsReaching('http', 'app', estate, connectors)).toEqual([]);
    expect(connectorsReaching('ssh', 'unknown', estate, connectors)).toEqual([]);
  });

  it('sends prometheus and git checks to every connector of the kind', () => {
    expect(connectorsReaching('prometheus', 'cache', estate, connectors)).toEqual([
      'prometheus',
      'thanos',
    ]);
    expect(connectorsReaching('git', 'anything', estate, connectors)).toEqual(['deploys']);
  });
});

describe('planning checks', () => {
  const packs = [
    pack('host', [check('host.services', 'ssh', 'dependency'), check('host.disk', 'ssh')]),
    pack('pg', [check('pg.connections', 'postgresql', 'dependency')]),
    pack('web', [check('web.probe', 'http')]),
  ];

  it('runs the matched packs on the service and dependency checks of every pack on its dependencies', () => {
    const plan = planChecks({
      packs,
      matched: ['host', 'web'],
      service: 'app',
      estate,
      connectors,
      hops: 1,
    });
    expect(
      plan.map((p) => `${p.check.id}@${p.service}→${p.connector ?? `(${p.problem ?? ''})`}`),
    ).toEqual([
      'host.services@app→ssh-app',
      'host.services@cache→(no ssh connector reaches cache)',
      'host.services@postgresql→(no ssh connector reaches postgresql)',
      'host.disk@app→ssh-app',
      'pg.connections@cache→(no postgresql connector reaches cache)',
      'pg.connections@postgresql→pg',
      'pg.connections@postgresql→pg-replica',
      'web.probe@app→(no http connector reaches app)',
    ]);
  });

  it('plans nothing from a pack that does not match and has no dependency checks', () => {
    expect(planChecks({ packs, matched: [], service: 'cache', estate, connectors })).toEqual([]);
  });
});

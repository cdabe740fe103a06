// The pure estate logic: targets → findings, merging with overrides, and resolveService.
import { describe, expect, it } from 'vitest';
import {
  buildEstate,
  findingsFromTargets,
  hostOf,
  NO_OVERRIDES,
  resolveService,
} from './estate.model.js';
import type { LinkRow, ServiceRow } from './estate.store.js';

const target = (job: string, instance: string, labels: Record<string, string> = {}) => ({
  job,
  instance,
  labels: { job, instance, ...labels },
});

describe('hostOf', () => {
  it.each([
    ['10.0.0.1:9100', '10.0.0.1'],
    ['db-1.example.net:5432', 'db-1.example.net'],
    ['[::1]:9090', '::1'],
    ['https://shop.example.com/health', 'shop.example.com'],
    ['bare-host', 'bare-host'],
    ['', ''],
  ])('%s → %s', (instance, host) => {
    expect(hostOf(instance)).toBe(host);
  });
});

describe('findingsFromTargets', () => {
  it('makes one service per job (or service label) with its hosts, and links only from depends_on', () => {
    const found = findingsFromTargets('prom', [
      target('web', '10.0.0.1:80', { depends_on: 'db, cache' }),
      target('web', '10.0.0.2:80'),
      target('node', '10.0.0.3:9100', { service: 'db' }),
      target('', ''),
    ]);
    expect(found.services).toEqual([
      {
        name: 'web',
        kind: null,
        hosts: ['10.0.0.1', '10.0.0.2'],
        origin: { connector: 'prom', how: 'prometheus target job=web' },
      },
      {
        name: 'db',
        kind: null,
        hosts: ['10.0.0.3'],
        origin: { connector: 'prom', how: 'prometheus target job=node' },
      },
    ]);
    expect(found.links).toEqual([
      { from: 'web', to: 'db', origin: { connector: 'prom', how: 'label depends_on' } },
      { from: 'web', to: 'cache', origin: { connector: 'prom', how: 'label depends_on' } },
    ]);
  });

  it('invents nothing from targets without labels', () => {
    expect(findingsFromTargets('prom', [target('a', 'h:1'), target('b', 'h:2')]).links).toEqual([]);
  });
});

const row = (connector: string, name: string, hosts: string[]): ServiceRow => ({
  connector,
  name,
  kind: null,
  hosts,
  origins: [{ connector, how: `prometheus target job=${name}` }],
  last_seen: '2026-11-22T00:00:00.000Z',
});
const link = (connector: string, from: string, to: string): LinkRow => ({
  connector,
  from,
  to,
  origin: { connector, how: 'label depends_on' },
});

describe('buildEstate', () => {
  it('merges connectors, applies overrides, and lists problems and unlinked services', () => {
    const e = buildEstate(
      [
        row('a', 'web', ['h1']),
        row('b', 'web', ['h2']),
        row('a', 'db', ['h3']),
        row('a', 'old', []),
      ],
      [link('a', 'web', 'cache')],
      {
        services: { db: { aliases: ['postgres'], kind: 'postgresql' }, batch: { aliases: [] } },
        links: [{ from: 'web', to: 'db' }],
        ignore: ['old'],
      },
    );
    expect(e.services).toEqual([
      { name: 'batch', kind: null, hosts: [], origins: [{ connector: null, how: 'override' }] },
      {
        name: 'db',
        kind: 'postgresql',
        hosts: ['h3'],
        origins: [{ connector: 'a', how: 'prometheus target job=db' }],
      },
      {
        name: 'web',
        kind: null,
        hosts: ['h1', 'h2'],
        origins: [
          { connector: 'a', how: 'prometheus target job=web' },
          { connector: 'b', how: 'prometheus target job=web' },
        ],
      },
    ]);
    expect(e.links).toEqual([
      { from: 'web', to: 'cache', origin: { connector: 'a', how: 'label depends_on' } },
      { from: 'web', to: 'db', origin: { connector: null, how: 'override' } },
    ]);
    expect(e.problems).toEqual([
      expect.objectContaining({
        what: 'link_unknown_service',
        detail: expect.stringContaining('cache') as unknown,
      }),
    ]);
    expect(e.unlinked).toEqual(['batch']);
  });
});

describe('resolveService', () => {
  const estate = {
    services: [
      { name: 'web', hosts: ['10.0.0.1'] },
      { name: 'db', hosts: ['10.0.0.3'] },
      { name: 'cache', hosts: ['10.0.0.3'] },
    ],
  };
  const overrides = {
    services: { db: { aliases: ['postgres', 'pg-main'] } },
    links: [],
    ignore: ['legacy'],
  };

  it('tries aliases first, whatever label carries them', () => {
    expect(resolveService({ job: 'web', app: 'pg-main' }, estate, overrides)).toEqual({
      service: 'db',
      by: 'alias app',
    });
  });

  it('then service, job, app, namespace and host values naming a known service', () => {
    expect(resolveService({ alertname: 'X', job: 'web' }, estate, overrides)).toEqual({
      service: 'web',
      by: 'label job',
    });
    expect(resolveService({ service: 'cache', job: 'web' }, estate)).toEqual({
      service: 'cache',
      by: 'label service',
    });
    expect(resolveService({ namespace: 'db' }, estate)).toEqual({
      service: 'db',
      by: 'label namespace',
    });
  });

  it('then a host owned by exactly one service', () => {
    expect(resolveService({ instance: '10.0.0.1:9100' }, estate)).toEqual({
      service: 'web',
      by: 'host instance',
    });
    // 10.0.0.3 belongs to db and cache: no guess.
    expect(resolveService({ instance: '10.0.0.3:9100' }, estate)).toBeNull();
  });

  it('answers null for unknown or ignored names', () => {
    expect(resolveService({ job: 'nothing' }, estate)).toBeNull();
    expect(
      resolveService({ job: 'legacy' }, { services: [{ name: 'legacy', hosts: [] }] }, overrides),
    ).toBeNull();
    expect(resolveService({}, estate, NO_OVERRIDES)).toBeNull();
  });
});

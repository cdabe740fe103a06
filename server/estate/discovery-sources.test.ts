// What each kind of connector tells discovery, from fake answers: ssh units and sockets,
// HTTP probes, the generic discover operation, Prometheus probe targets, and the kind guess.
import { describe, expect, it } from 'vitest';
import {
  findingsFromDiscover,
  findingsFromHttp,
  findingsFromPrometheus,
  findingsFromSsh,
  guessKind,
  readerOf,
} from './discovery-sources.js';

const UNITS = {
  units: [
    { name: 'nginx', state: 'running', pid: 10 },
    { name: 'app', state: 'running', pid: 11 },
    { name: 'worker', state: 'running', pid: 12 },
    { name: 'old-job', state: 'stopped', pid: null },
    { name: 'ssh', state: 'running', pid: 2 },
    { name: 'systemd-journald', state: 'running', pid: 3 },
  ],
};
const PORTS = {
  listening: [
    { address: '0.0.0.0', port: 80, process: 'nginx' },
    { address: '::', port: 80, process: 'nginx' },
    { address: '0.0.0.0', port: 443, process: 'nginx' },
    { address: '127.0.0.1', port: 8080, process: 'app' },
    { address: '0.0.0.0', port: 22, process: 'ssh' },
    { address: '0.0.0.0', port: 9999, process: null },
  ],
  established: [
    // nginx → app on this host
    {
      local_address: '127.0.0.1',
      local_port: 40000,
      peer_address: '127.0.0.1',
      peer_port: 8080,
      process: 'nginx',
    },
    // the other end of it: app's server side, not a dependency
    {
      local_address: '127.0.0.1',
      local_port: 8080,
      peer_address: '127.0.0.1',
      peer_port: 40000,
      process: 'app',
    },
    // app → the database on another host, twice (a pool): one observation
    {
      local_address: '10.0.0.1',
      local_port: 40100,
      peer_address: '10.0.0.2',
      peer_port: 5432,
      process: 'app',
    },
    {
      local_address: '10.0.0.1',
      local_port: 40101,
      peer_address: '10.0.0.2',
      peer_port: 5432,
      process: 'app',
    },
    {
      local_address: '10.0.0.1',
      local_port: 40102,
      peer_address: '10.0.0.2',
      peer_port: 6379,
      process: 'worker',
    },
    // nobody's: skipped
    {
      local_address: '10.0.0.1',
      local_port: 40103,
      peer_address: '10.0.0.9',
      peer_port: 1,
      process: null,
    },
  ],
};

describe('guessKind', () => {
  it('names web servers and datastores by unit name, anything else a service', () => {
    for (const n of ['nginx', 'apache2', 'apache', 'httpd', 'haproxy', 'nginx.service'])
      expect(guessKind(n), n).toBe('web');
    for (const n of [
      'postgresql',
      'postgresql@15-main',
      'mysql',
      'mysqld',
      'mariadb',
      'redis',
      'redis-server',
    ])
      expect(guessKind(n), n).toBe('datastore');
    for (const n of ['app', 'nginx-exporter', 'postgres-exporter', 'my-postgres', 'cron'])
      expect(guessKind(n), n).toBe('service');
  });
});

describe('findingsFromSsh', () => {
  const found = findingsFromSsh('ssh-a', '10.0.0.1', UNITS, PORTS);

  it('makes a service of every unit that listens, on the connector host, with how', () => {
    expect(found.services).toEqual([
      {
        name: 'app',
        kind: 'service',
        hosts: ['10.0.0.1'],
        origin: { connector: 'ssh-a', how: 'ssh unit app listening on 8080' },
      },
      {
        name: 'nginx',
        kind: 'web',
        hosts: ['10.0.0.1'],
        origin: { connector: 'ssh-a', how: 'ssh unit nginx listening on 80, 443' },
      },
    ]);
    expect(found.links).toEqual([]);
  });

  it('makes running units without a port candidates; plumbing and stopped units are neither', () => {
    expect(found.observations.candidates).toEqual([
      { name: 'worker', host: '10.0.0.1', how: 'ssh unit worker running, listening on no port' },
    ]);
    expect(found.observations.listen).toEqual([
      { service: 'nginx', host: '10.0.0.1', address: '0.0.0.0', port: 80 },
      { service: 'nginx', host: '10.0.0.1', address: '::', port: 80 },
      { service: 'nginx', host: '10.0.0.1', address: '0.0.0.0', port: 443 },
      { service: 'app', host: '10.0.0.1', address: '127.0.0.1', port: 8080 },
    ]);
  });

  it('keeps outgoing connections once each, not the server side of one', () => {
    expect(found.observations.connect).toEqual([
      { from: 'nginx', host: '10.0.0.1', peer_address: '127.0.0.1', peer_port: 8080 },
      { from: 'app', host: '10.0.0.1', peer_address: '10.0.0.2', peer_port: 5432 },
      { from: 'worker', host: '10.0.0.1', peer_address: '10.0.0.2', peer_port: 6379 },
    ]);
  });

  it('refuses answers without their lists', () => {
    expect(() => findingsFromSsh('s', 'h', {}, PORTS)).toThrow(
      /services: the answer has no units list/,
    );
    expect(() => findingsFromSsh('s', 'h', UNITS, { listening: [] })).toThrow(
      /ports: the answer has no established list/,
    );
  });
});

describe('findingsFromHttp', () => {
  it('is the probed service: the service setting, else the connector name; host from the URL', () => {
    expect(findingsFromHttp('shop-probe', { url: 'https://shop.example:8443/health' })).toEqual({
      services: [
        {
          name: 'shop-probe',
          kind: null,
          hosts: ['shop.example'],
          origin: { connector: 'shop-probe', how: 'http probe https://shop.example:8443/health' },
        },
      ],
      links: [],
      observations: {
        listen: [],
        connect: [],
        candidates: [],
        probes: [
          {
            service: 'shop-probe',
            url: 'https://shop.example:8443/health',
            host: 'shop.example',
            port: 8443,
          },
        ],
      },
    });
    const named = findingsFromHttp('p', { url: 'http://10.0.0.1/', service: 'shop' });
    expect(named.services[0]?.name).toBe('shop');
    expect(named.observations.probes[0]).toMatchObject({ service: 'shop', port: 80 });
    expect(() => findingsFromHttp('p', {})).toThrow(/no url setting/);
  });
});

describe('findingsFromDiscover', () => {
  it('reads {services, links} with a default how naming the kind', () => {
    const found = findingsFromDiscover('pg', 'postgresql', {
      services: [
        { name: 'orders-db', kind: 'datastore', hosts: ['10.0.0.2', '10.0.0.2'] },
        { name: '' },
        { name: 'x', how: 'database x' },
      ],
      links: [
        { from: 'x', to: 'orders-db' },
        { from: 'x', to: 'x' },
      ],
    });
    expect(found.services).toEqual([
      {
        name: 'orders-db',
        kind: 'datastore',
        hosts: ['10.0.0.2'],
        origin: { connector: 'pg', how: 'postgresql discover' },
      },
      { name: 'x', kind: null, hosts: [], origin: { connector: 'pg', how: 'database x' } },
    ]);
    expect(found.links).toEqual([
      { from: 'x', to: 'orders-db', origin: { connector: 'pg', how: 'postgresql discover' } },
    ]);
    expect(() => findingsFromDiscover('pg', 'postgresql', [])).toThrow(/no services list/);
  });
});

describe('findingsFromPrometheus', () => {
  it('adds probes for URL targets that name a service; exporter targets are no probes', () => {
    const found = findingsFromPrometheus('prom', [
      { job: 'node', instance: '10.0.0.1:9100', labels: { service: 'host-a' } },
      { job: 'blackbox', instance: 'http://10.0.0.1/', labels: { service: 'shop' } },
      { job: 'blackbox', instance: 'http://10.0.0.3:8080/', labels: {} },
    ]);
    expect(found.services.map((s) => s.name).sort()).toEqual(['blackbox', 'host-a', 'shop']);
    expect(found.observations.probes).toEqual([
      { service: 'shop', url: 'http://10.0.0.1/', host: '10.0.0.1', port: 80 },
    ]);
  });
});

describe('readerOf', () => {
  it('knows prometheus, ssh, http and postgresql; any kind offering discover through the catalogue', () => {
    expect(readerOf('prometheus')).toBe('prometheus');
    expect(readerOf('ssh')).toBe('ssh');
    expect(readerOf('http')).toBe('http');
    expect(readerOf('postgresql')).toBe('discover');
    expect(readerOf('git')).toBeNull();
    expect(
      readerOf('cmdb', { kind: 'cmdb', capabilities: ['discover'], operations: ['discover'] }),
    ).toBe('discover');
    expect(
      readerOf('cmdb', { kind: 'cmdb', capabilities: ['discover'], operations: [] }),
    ).toBeNull();
  });
});

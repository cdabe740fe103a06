// Links and candidates made when the estate is read: connections seen by one connector
// joined to services another found listening, literal loopback comparison, candidates and
// their promotion by an override, confirmed suggestions as links.
import { describe, expect, it } from 'vitest';
import { findingsFromSsh } from './discovery-sources.js';
import { buildEstate, NO_OVERRIDES } from './estate.model.js';
import type { ObservationRow } from './estate.observed.js';
import type { ServiceRow } from './estate.store.js';

/** Two hosts over ssh: app on A connects to postgresql on B; worker on A has no port. */
function lab() {
  const a = findingsFromSsh(
    'ssh-a',
    '10.0.0.1',
    {
      units: [
        { name: 'app', state: 'running', pid: 1 },
        { name: 'worker', state: 'running', pid: 2 },
      ],
    },
    {
      listening: [{ address: '0.0.0.0', port: 8080, process: 'app' }],
      established: [
        {
          local_address: '10.0.0.1',
          local_port: 50000,
          peer_address: '10.0.0.2',
          peer_port: 5432,
          process: 'app',
        },
        {
          local_address: '10.0.0.1',
          local_port: 50001,
          peer_address: '10.0.0.2',
          peer_port: 5432,
          process: 'worker',
        },
        {
          local_address: '127.0.0.1',
          local_port: 50002,
          peer_address: '127.0.0.1',
          peer_port: 6379,
          process: 'app',
        },
      ],
    },
  );
  const b = findingsFromSsh(
    'ssh-b',
    '10.0.0.2',
    {
      units: [
        { name: 'postgresql', state: 'running', pid: 5 },
        { name: 'redis', state: 'running', pid: 6 },
      ],
    },
    {
      listening: [
        { address: '*', port: 5432, process: 'postgresql' },
        { address: '127.0.0.1', port: 6379, process: 'redis' },
      ],
      established: [],
    },
  );
  const rows: ServiceRow[] = [a, b].flatMap((f) =>
    f.services.map((s) => ({
      connector: s.origin.connector ?? '',
      name: s.name,
      kind: s.kind,
      hosts: [...s.hosts],
      origins: [s.origin],
      last_seen: '2026-11-22T00:00:00.000Z',
    })),
  );
  const observations: ObservationRow[] = [
    { connector: 'ssh-a', observations: a.observations },
    { connector: 'ssh-b', observations: b.observations },
  ];
  return { rows, observations };
}

describe('buildEstate with observations', () => {
  it('links a connection on one host to the service another host listens on', () => {
    const { rows, observations } = lab();
    const e = buildEstate(rows, [], NO_OVERRIDES, { observations });
    expect(e.services.map((s) => [s.name, s.kind, s.hosts])).toEqual([
      ['app', 'service', ['10.0.0.1']],
      ['postgresql', 'datastore', ['10.0.0.2']],
      ['redis', 'datastore', ['10.0.0.2']],
    ]);
    // 127.0.0.1:6379 is compared literally: redis bound to 127.0.0.1 on host B matches.
    expect(e.links).toEqual([
      {
        from: 'app',
        to: 'postgresql',
        origin: { connector: 'ssh-a', how: 'observed tcp connection app → 10.0.0.2:5432' },
      },
      {
        from: 'app',
        to: 'redis',
        origin: { connector: 'ssh-a', how: 'observed tcp connection app → 127.0.0.1:6379' },
      },
    ]);
    expect(e.candidates).toEqual([
      {
        name: 'worker',
        host: '10.0.0.1',
        connector: 'ssh-a',
        how: 'ssh unit worker running, listening on no port',
      },
    ]);
    expect(e.unlinked).toEqual([]);
    expect(e.problems).toEqual([]);
  });

  it('promotes a candidate an override names: its host, how it was seen, and its links', () => {
    const { rows, observations } = lab();
    const e = buildEstate(
      rows,
      [],
      { ...NO_OVERRIDES, services: { worker: { aliases: [], kind: 'batch' } } },
      { observations },
    );
    expect(e.services.find((s) => s.name === 'worker')).toEqual({
      name: 'worker',
      kind: 'batch',
      hosts: ['10.0.0.1'],
      origins: [
        { connector: 'ssh-a', how: 'ssh unit worker running, listening on no port' },
        { connector: null, how: 'override' },
      ],
    });
    expect(e.candidates).toEqual([]);
    expect(e.links.map((l) => `${l.from}→${l.to}`)).toContain('worker→postgresql');
  });

  it('leaves ignored names out of candidates and observed links', () => {
    const { rows, observations } = lab();
    const e = buildEstate(
      rows,
      [],
      { ...NO_OVERRIDES, ignore: ['worker', 'redis'] },
      {
        observations,
      },
    );
    expect(e.candidates).toEqual([]);
    expect(e.links.map((l) => `${l.from}→${l.to}`)).toEqual(['app→postgresql']);
  });

  it('places confirmed suggestions as links that say so', () => {
    const { rows, observations } = lab();
    const e = buildEstate(rows, [], NO_OVERRIDES, {
      observations,
      confirmed: [{ from: 'redis', to: 'postgresql', evidence: 'they fail together' }],
    });
    expect(e.links).toContainEqual({
      from: 'redis',
      to: 'postgresql',
      origin: { connector: null, how: 'confirmed suggestion: they fail together' },
    });
  });
});

// What a study plans to read: the causes packs know for a service, and unreadable checks as
// obstacles with fixes an operator can act on.
import { describe, expect, it } from 'vitest';
import type { Pack } from '../packs/index.js';
import { causesOf, obstacleOf, readingsOf } from './study.plan.js';

const check = (id: string, connector: 'ssh' | 'prometheus') => ({
  id,
  title: id,
  connector,
  call: { op: 'query' },
  values: {},
  findings: [],
});
const cause = (id: string, proves: string[], refutes: string[] = []) => ({
  id,
  title: id,
  proves,
  supports: [],
  refutes,
  fixes: [],
});
const pack = (
  id: string,
  matches: Pack['matches'],
  checks: Pack['checks'],
  causes: Pack['causes'],
): Pack => ({
  id,
  version: 1,
  title: id,
  matches,
  checks,
  causes,
  fixes: [],
});

const HOST = pack(
  'host',
  [{ alerts: ['*Down*'] }],
  [check('host.services', 'ssh'), check('host.health', 'prometheus')],
  [
    cause('service_down', ['host.services.down'], ['host.health.up']),
    cause('oom_killed', ['host.services.oom']),
  ],
);
const PG = pack(
  'postgresql',
  [{ services: ['postgres*'] }],
  [check('postgresql.up', 'prometheus')],
  [cause('service_down', ['postgresql.up.down']), cause('pg_locks', ['postgresql.up.locks'])],
);

describe('causesOf', () => {
  it('a pack for any service (alerts only) applies; one naming other services does not', () => {
    expect(causesOf([HOST, PG], 'app', null)).toEqual([
      { cause: 'oom_killed', packs: ['host'], checks: ['host.services'] },
      { cause: 'service_down', packs: ['host'], checks: ['host.health', 'host.services'] },
    ]);
  });

  it('one cause in two packs is one cause, resting on the checks of both', () => {
    expect(
      causesOf([HOST, PG], 'postgresql', null).find((c) => c.cause === 'service_down'),
    ).toEqual({
      cause: 'service_down',
      packs: ['host', 'postgresql'],
      checks: ['host.health', 'host.services', 'postgresql.up'],
    });
    expect(causesOf([PG], 'db', 'postgresql-cluster').map((c) => c.cause)).toEqual([
      'pg_locks',
      'service_down',
    ]);
  });
});

describe('obstacleOf', () => {
  it('no ssh connector: add one for the service host', () => {
    expect(obstacleOf('host.services', 'no ssh connector reaches app', 'app', ['app-1'])).toEqual({
      what: 'check host.services for app',
      reason: 'no ssh connector reaches app',
      fix: 'no ssh connector reaches app: add an ssh connector whose host is app-1',
    });
  });

  it('a refused permission says to grant it', () => {
    expect(
      obstacleOf('postgresql.locks', 'could not read: permission denied for pg_locks', 'pg', [])
        ?.fix,
    ).toBe(
      "permission refused: grant the connector's account read access to what postgresql.locks reads",
    );
  });

  it('a check that needs an alert is no obstacle', () => {
    expect(obstacleOf('host.log', 'not run: no value for {alertname}', 'app', [])).toBeNull();
    // Nor one waiting on a value another check could not read: that check's obstacle shows.
    expect(
      obstacleOf('config.before', 'not run: no value for {config.changes.offset}', 'app', []),
    ).toBeNull();
    expect(obstacleOf('host.port', 'not run: no value for {host}', 'app', [])?.fix).toBe(
      "the estate does not know app's host: run discovery (POST /v1/discover) or place it in the estate overrides",
    );
  });
});

describe('readingsOf', () => {
  it('quotes the service name for PromQL', () => {
    expect(readingsOf('a"b', 60)[0]?.query).toBe('avg(up{service="a\\"b"} or up{job="a\\"b"})');
  });
});

// The postgresql kind without a server: settings checks, and shaping rows into answers.
import { describe, expect, it } from 'vitest';
import { Secret } from '../../shared/secret.js';
import { postgresqlKind } from './postgresql.js';
import {
  blockedFrom,
  clipQuery,
  connectionsFrom,
  factsFrom,
  replicasFrom,
  roleDetail,
  settingFact,
  shortVersion,
  slowQueriesFrom,
} from './postgresql.parse.js';

const base = { host: 'db1', database: 'app', user: 'svc_ro' };

describe('postgresql settings', () => {
  it('declares the contract: kind, capabilities, operations and a secret password', () => {
    expect(postgresqlKind).toMatchObject({
      kind: 'postgresql',
      capabilities: ['sql', 'discover'],
      operations: ['connections', 'locks', 'replication', 'slow_queries', 'setup', 'discover'],
    });
    const byName = Object.fromEntries(postgresqlKind.settings.map((s) => [s.name, s]));
    expect(byName['host']).toMatchObject({ type: 'string', required: true });
    expect(byName['database']).toMatchObject({ type: 'string', required: true });
    expect(byName['user']).toMatchObject({ type: 'string', required: true });
    expect(byName['password']).toMatchObject({ type: 'secret', required: false });
    expect(byName['port']).toMatchObject({ type: 'integer', default: 5432 });
    expect(byName['sslmode']).toMatchObject({ default: 'disable' });
    expect(byName['service']).toMatchObject({ required: false });
  });

  it('refuses missing or malformed settings when the client is built', () => {
    expect(() => postgresqlKind.create({ database: 'app', user: 'u' })).toThrow(
      'setting host is required',
    );
    expect(() => postgresqlKind.create({ host: 'db1', user: 'u' })).toThrow(
      'setting database is required',
    );
    expect(() => postgresqlKind.create({ host: 'db1', database: 'app' })).toThrow(
      'setting user is required',
    );
    expect(() => postgresqlKind.create({ ...base, port: 70_000 })).toThrow(
      /port must be an integer/,
    );
    expect(() => postgresqlKind.create({ ...base, sslmode: 'prefer' })).toThrow(
      'setting sslmode must be one of disable, require, verify-full',
    );
    expect(() => postgresqlKind.create({ ...base, host: 'db1 evil=1' })).toThrow(/spaces/);
    expect(() => postgresqlKind.create({ ...base, password: 'plain' })).toThrow(
      'setting password must be a resolved secret',
    );
    const client = postgresqlKind.create({ ...base, password: new Secret('pw-123456') });
    expect(typeof client.health).toBe('function');
  });

  it('refuses unknown operations and bad arguments before connecting', async () => {
    const client = postgresqlKind.create({ ...base, port: 1 });
    const signal = AbortSignal.timeout(5000);
    await expect(client.call('query', { sql: 'select 1' }, signal)).rejects.toThrow(
      'postgresql has no operation "query"',
    );
    await expect(client.call('slow_queries', { min_s: 'x' }, signal)).rejects.toThrow(/min_s/);
    await client.close?.();
  });
});

describe('shaping postgresql rows', () => {
  it('tallies connections by state, role and database', () => {
    const rows = [
      { state: 'active', role: 'app', database: 'shop', waiting: false, n: 3 },
      { state: 'idle', role: 'app', database: 'shop', waiting: false, n: 5 },
      { state: 'active', role: 'batch', database: 'shop', waiting: true, n: 2 },
      { state: 'idle in transaction', role: 'batch', database: 'ledger', waiting: false, n: 1 },
      { state: null, role: 'other', database: 'ledger', waiting: false, n: 1 },
    ];
    expect(connectionsFrom(100, rows)).toEqual({
      max_connections: 100,
      total: 12,
      by_state: { active: 5, idle: 5, 'idle in transaction': 1, unknown: 1 },
      by_role: [
        { role: 'app', n: 8 },
        { role: 'batch', n: 3 },
        { role: 'other', n: 1 },
      ],
      by_database: [
        { database: 'shop', n: 10 },
        { database: 'ledger', n: 2 },
      ],
      waiting: 2,
    });
  });

  it('clips queries to 500 characters and flattens whitespace', () => {
    expect(clipQuery('SELECT 1\n   FROM  t')).toBe('SELECT 1 FROM t');
    expect(clipQuery('x'.repeat(501))).toBe(`${'x'.repeat(500)}…`);
    expect(clipQuery(null)).toBe('');
  });

  it('shapes blocked sessions, replicas and slow queries', () => {
    expect(
      blockedFrom([
        { pid: 7, role: 'app', query: 'UPDATE t', waiting_s: 1.23456, blocked_by: [5, 6] },
      ]),
    ).toEqual([{ pid: 7, role: 'app', query: 'UPDATE t', waiting_s: 1.235, blocked_by: [5, 6] }]);
    expect(
      replicasFrom([
        { client: 'r1@10.0.0.2', state: 'streaming', lag_bytes: 0, replay_lag_s: null },
      ]),
    ).toEqual([{ client: 'r1@10.0.0.2', state: 'streaming', lag_bytes: 0, replay_lag_s: null }]);
    expect(
      slowQueriesFrom([
        { pid: 9, role: 'app', database: 'shop', state: 'active', running_s: 12.5, query: 'q' },
      ]),
    ).toEqual([
      { pid: 9, role: 'app', database: 'shop', state: 'active', running_s: 12.5, query: 'q' },
    ]);
  });

  it('masks credentials in settings', () => {
    expect(settingFact('primary_conninfo', 'host=db0 password=s3cret user=r')).toBe(
      'host=db0 password=*** user=r',
    );
    expect(settingFact('primary_conninfo', "host=db0 password = 'a b\\'c' user=r")).toBe(
      'host=db0 password = *** user=r',
    );
    expect(settingFact('ssl_passphrase_command', 'echo s3cret')).toBe('***');
    expect(settingFact('work_mem', '64MB')).toBe('64MB');
    expect(factsFrom('PostgreSQL 15.4', [{ name: 'work_mem', value: '64MB' }])).toEqual({
      work_mem: '64MB',
      version: 'PostgreSQL 15.4',
    });
  });

  it('reads the version and describes the role for the health line', () => {
    expect(
      shortVersion('PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled'),
    ).toBe('PostgreSQL 15.18');
    expect(shortVersion('PostgreSQL 17beta1 on x86_64')).toBe('PostgreSQL 17beta1');
    const ro = {
      role: 'svc_ro',
      superuser: false,
      monitor: true,
      can_write: false,
      standby: false,
    };
    expect(roleDetail(ro)).toBe('role svc_ro (not superuser)');
    expect(roleDetail({ ...ro, superuser: true, can_write: true, standby: true })).toBe(
      'role svc_ro is a SUPERUSER: use a LOGIN role in pg_monitor without write grants, standby',
    );
    expect(roleDetail({ ...ro, monitor: false, can_write: true })).toBe(
      'role svc_ro (not superuser), warning: the role can write tables here (sessions stay read-only), warning: not in pg_monitor, so other roles’ sessions are hidden',
    );
  });
});

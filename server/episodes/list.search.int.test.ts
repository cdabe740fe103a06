// `q` over episodes written through the ledger: the full-text index follows every write of
// the episodes projection in its transaction (opened, joined, closed), keeps nothing of a
// job that failed, is refilled by a rebuild whatever state it was in, and never answers a
// `q` full of FTS5 syntax with anything but the LIKE scan's answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildProjections } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import { seedEpisodes } from '../testing/episodes/episodes.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;
let ids: [string, string][] = [];

beforeAll(async () => {
  server = await buildTestServer({ clock });
  ids = seedEpisodes({ ...server.runtime, clock }, [
    {
      service: 'checkout-web',
      t_open: '2026-11-20T10:00:00.000Z',
      t_close: '2026-11-20T10:30:00.000Z',
      alerts: ['PgConnRefused', 'HighLatency'],
      confirmed: ['bad_deploy'],
    },
    {
      service: 'payments',
      t_open: '2026-11-21T10:00:00.000Z',
      t_close: '2026-11-21T10:10:00.000Z',
      alerts: ['DiskFull'],
    },
  ]);
  clock.set('2026-11-22T12:00:00.000Z');
});
afterAll(async () => {
  await server.cleanup();
});

async function total(q: string): Promise<number> {
  const res = await server.app.inject({
    method: 'GET',
    url: `/v1/episodes?q=${encodeURIComponent(q)}`,
    headers: asAdmin(),
  });
  expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
  return res.json<{ total: number }>().total;
}

const indexCheck = (): unknown[] => {
  const episodes = server.runtime.projections.all().find((p) => p.name === 'episodes');
  return episodes?.indexes?.map((index) => index.check()) ?? [];
};

/** Open and close an episode in one job; `fail` throws after its events are projected. */
function openAndClose(service: string, note: string, fail: boolean): void {
  const { writer, ledger } = server.runtime;
  const id = `ep-20261122T110000Z-${service}`;
  writer.transactNow(() => {
    ledger.append({
      type: 'episode.opened',
      actor: 'system',
      data: {
        episode_id: id,
        service,
        source: 'test',
        fingerprint: id,
        name: 'QuorumLost',
        autonomy: 'shadow',
      },
      trace_id: id,
    });
    ledger.append({
      type: 'episode.closed',
      actor: 'system',
      data: {
        episode_id: id,
        decision: 'settled',
        outcome: 'cleared',
        result: 'resolved',
        action: '',
        handover_s: null,
        note,
        fix: 'raise the etcd heartbeat',
        diagnosis: 'leader election storm',
      },
      trace_id: id,
    });
    if (fail) throw new Error('the job fails after its projection wrote');
  });
}

describe('q through the full-text index', () => {
  it('finds what each event wrote: id and service (opened), a joined alert, the cause (closed)', async () => {
    expect(await total('CHECKOUT-w')).toBe(1);
    expect(await total(ids[1]![0])).toBe(1);
    expect(await total('highlatency')).toBe(1); // the second alert: episode.joined
    expect(await total('bad_deploy')).toBe(1); // confirmed: episode.closed
    expect(await total('ep-2026112')).toBe(2);
    openAndClose('etcd', 'quorum lost twice', false);
    expect(await total('QUORUM LOST')).toBe(1); // note
    expect(await total('heartbeat')).toBe(1); // fix
    expect(await total('election')).toBe(1); // diagnosis
    expect(indexCheck()).toEqual([[{ consistent: true }]]);
  });

  it('keeps nothing of a job that failed after the projection wrote', async () => {
    expect(() => {
      openAndClose('zookeeper', 'never committed', true);
    }).toThrow(/the job fails/);
    expect(await total('zookeeper')).toBe(0);
    expect(await total('never committed')).toBe(0);
    // The index holds exactly the committed rows: no entry of the rolled-back one is left.
    expect(indexCheck()).toEqual([[{ consistent: true }]]);
  });

  it('answers q full of FTS5 syntax as the scan does, never with a 500', async () => {
    for (const [q, n] of [
      ['"', 3], // every alerts column is JSON
      ['"checkout', 0],
      ['checkout" OR "payments', 0],
      ['checkout OR payments', 0],
      ['NEAR(checkout payments)', 0],
      ['check*', 1],
      ['pay?ents', 1],
      ['*', 3],
      ['{episode_id}: ep', 0],
      ['^checkout', 0],
      ['checkout AND', 0],
      ['"bad_deploy"', 1], // confirmed is JSON
      ['ad_dep', 1],
      ['%', 0],
      ['_', 1], // literal, as LIKE's own wildcards are in q
      ['?', 3],
    ] as const)
      expect(await total(q), q).toBe(n);
  });

  it('is refilled by a rebuild, from any state: a corrupt index is found and fixed', async () => {
    const { db, ledgerStore, projections, writer } = server.runtime;
    const rebuild = (dryRun: boolean) =>
      rebuildProjections(db, ledgerStore, projections, dryRun, (fn) => {
        writer.transactNow(fn);
      });
    expect(rebuild(true).differing).toEqual([]);
    // A delete the table never made: the index has lost track of a row.
    db.prepare(`INSERT INTO episodes_fts (episodes_fts, rowid) VALUES ('delete', 1)`).run();
    expect(indexCheck()).toEqual([[{ consistent: false, code: 'SQLITE_CORRUPT_VTAB' }]]);
    expect(rebuild(true).differing).toEqual(['episodes_fts']);
    expect(indexCheck()).toEqual([[{ consistent: false, code: 'SQLITE_CORRUPT_VTAB' }]]);
    expect(rebuild(false).differing).toEqual(['episodes_fts']);
    expect(indexCheck()).toEqual([[{ consistent: true }]]);
    expect(rebuild(true).differing).toEqual([]);
    expect(await total('CHECKOUT-w')).toBe(1);
    expect(await total('heartbeat')).toBe(1);
  });
});

// The estate projection and service against a real SQLite file, with a fake connector call:
// replacement per connector, failures and staleness, timeouts, overrides, replay.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEpisodesStore } from '../episodes/index.js';
import { EPISODE_INPUTS } from '../compose/index.js';
import { dumpProjections, replayLedger } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import { InvalidInputError, NotFoundError } from '../shared/errors.js';
import { openLedgerBench } from '../testing/ledger-bench.js';
import { createEstateService, createEstateStore, type DiscoverySource } from './index.js';

const ADMIN = { name: 'alice' };

let dir: string;
const opened: { close(): void }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-estate-'));
});
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
  rmSync(dir, { recursive: true, force: true });
});

type Answer = unknown[] | Error | 'hang';

function start(sources: DiscoverySource[], answers: Record<string, Answer>, timeoutS = 5) {
  const clock = createFakeClock('2026-11-22T00:00:00.000Z');
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  opened.push(db);
  const store = createEstateStore(db);
  projections.register(store.projection);
  let n = 0;
  const estate = createEstateService({
    store,
    ledger,
    writer,
    clock,
    connectors: () => sources,
    call: async (name, op) => {
      expect(op).toBe('targets');
      const a = answers[name];
      if (a === 'hang') return new Promise(() => undefined);
      if (a instanceof Error) throw a;
      return a ?? [];
    },
    timeoutS,
    episodes: createEpisodesStore(db, EPISODE_INPUTS),
    newId: () => `job-${String(++n)}`,
  });
  return { db, writer, ledgerStore, projections, estate, answers };
}

const t = (job: string, instance: string, labels: Record<string, string> = {}) => ({
  job,
  instance,
  health: 'up',
  labels: { job, instance, ...labels },
  scrape_url: `http://${instance}/metrics`,
  last_error: null,
  last_scrape: null,
});

describe('discovery', () => {
  it('reads every prometheus connector, records what each found, and reports the job', async () => {
    const { estate, ledgerStore } = start(
      [
        { name: 'prom-a', kind: 'prometheus', problem: null },
        { name: 'prom-b', kind: 'prometheus', problem: null },
        { name: 'am', kind: 'alertmanager', problem: null },
      ],
      {
        'prom-a': [t('web', '10.0.0.1:80', { depends_on: 'db' }), t('db', '10.0.0.2:9187')],
        'prom-b': new Error('connection refused'),
      },
    );
    const { job_id, done } = estate.discover(ADMIN);
    expect(estate.job(job_id)).toMatchObject({
      status: 'running',
      progress: { done: 0, total: 2 },
    });
    await done;
    expect(estate.job(job_id)).toEqual({
      id: job_id,
      kind: 'discover',
      status: 'done',
      progress: { done: 2, total: 2, step: 'done' },
      started_at: '2026-11-22T00:00:00.000Z',
      finished_at: '2026-11-22T00:00:00.000Z',
      result: {
        services: 2,
        links: 1,
        per_connector: {
          'prom-a': { status: 'ok', detail: null },
          'prom-b': { status: 'failed', detail: 'connection refused' },
        },
      },
    });
    const view = estate.view();
    expect(view.services).toEqual([
      {
        name: 'db',
        kind: null,
        hosts: ['10.0.0.2'],
        origins: [{ connector: 'prom-a', how: 'prometheus target job=db' }],
      },
      {
        name: 'web',
        kind: null,
        hosts: ['10.0.0.1'],
        origins: [{ connector: 'prom-a', how: 'prometheus target job=web' }],
      },
    ]);
    expect(view.links).toEqual([
      { from: 'web', to: 'db', origin: { connector: 'prom-a', how: 'label depends_on' } },
    ]);
    expect(view.connectors).toEqual({
      'prom-a': { status: 'ok', at: '2026-11-22T00:00:00.000Z', detail: null },
      'prom-b': { status: 'failed', at: '2026-11-22T00:00:00.000Z', detail: 'connection refused' },
    });
    expect(view.problems).toEqual([
      { what: 'connector_failed', detail: 'prom-b: connection refused' },
    ]);
    expect(view.unlinked).toEqual([]);
    const types = ledgerStore.range(0, 10, 10).map((e) => [e.type, e.actor]);
    expect(types).toEqual(
      expect.arrayContaining([
        ['estate.discovered', 'alice'],
        ['estate.discover_failed', 'alice'],
      ]),
    );
    expect(() => estate.job('job-x')).toThrow(NotFoundError);
  });

  it('replaces what a connector found, and keeps it (stale) when the connector fails later', async () => {
    const { estate, answers } = start([{ name: 'p', kind: 'prometheus' }], {
      p: [t('web', 'h1:80'), t('old', 'h9:80')],
    });
    await estate.discover(ADMIN).done;
    answers['p'] = [t('web', 'h2:80')];
    await estate.discover(ADMIN).done;
    expect(estate.view().services.map((s) => [s.name, s.hosts])).toEqual([['web', ['h2']]]);
    answers['p'] = new Error('HTTP 503');
    await estate.discover(ADMIN).done;
    const view = estate.view();
    expect(view.services.map((s) => s.name)).toEqual(['web']);
    expect(view.connectors['p']).toMatchObject({
      status: 'stale',
      detail: expect.stringMatching(/^HTTP 503; showing what was found at /) as unknown,
    });
  });

  it('gives up on a connector after the timeout', async () => {
    const { estate } = start([{ name: 'slow', kind: 'prometheus' }], { slow: 'hang' }, 0.05);
    const { job_id, done } = estate.discover(ADMIN);
    await done;
    expect(estate.job(job_id).result?.per_connector).toEqual({
      slow: { status: 'failed', detail: 'connector slow did not answer within 0.05 s' },
    });
  });

  it('answers the running job while one runs', async () => {
    const { estate } = start([{ name: 'slow', kind: 'prometheus' }], { slow: 'hang' }, 0.05);
    const first = estate.discover(ADMIN);
    expect(estate.discover(ADMIN).job_id).toBe(first.job_id);
    await first.done;
    expect(estate.discover(ADMIN).job_id).not.toBe(first.job_id);
  });

  it('marks a connector that could not be built as failed without calling it', async () => {
    const { estate } = start([{ name: 'p', kind: 'prometheus', problem: 'url is missing' }], {});
    const { job_id, done } = estate.discover(ADMIN);
    await done;
    expect(estate.job(job_id).result?.per_connector).toEqual({
      p: { status: 'failed', detail: 'url is missing' },
    });
  });
});

describe('overrides', () => {
  it('are replaced whole, shape the view and resolution, and survive a replay', async () => {
    const { estate, db, writer, ledgerStore, projections } = start(
      [{ name: 'p', kind: 'prometheus' }],
      { p: [t('web', '10.0.0.1:80'), t('db', '10.0.0.2:5432'), t('legacy', '10.0.0.9:80')] },
    );
    await estate.discover(ADMIN).done;
    const view = await estate.putOverrides(
      {
        services: { db: { aliases: ['pg-main'], kind: 'postgresql' } },
        links: [{ from: 'web', to: 'db' }],
        ignore: ['legacy'],
      },
      { name: 'alice', via: 'admin-token' },
    );
    expect(view).toEqual({
      overrides: {
        services: { db: { aliases: ['pg-main'], kind: 'postgresql' } },
        links: [{ from: 'web', to: 'db' }],
        ignore: ['legacy'],
      },
      set_by: 'alice',
      set_at: '2026-11-22T00:00:00.000Z',
    });
    const e = estate.view();
    expect(e.services.map((s) => [s.name, s.kind])).toEqual([
      ['db', 'postgresql'],
      ['web', null],
    ]);
    expect(e.links).toEqual([
      { from: 'web', to: 'db', origin: { connector: null, how: 'override' } },
    ]);
    expect(estate.resolve({ app: 'pg-main' })).toEqual({ service: 'db', by: 'alias app' });
    expect(estate.resolve({ instance: '10.0.0.1:9100' })).toEqual({
      service: 'web',
      by: 'host instance',
    });
    expect(estate.resolve({ job: 'legacy' })).toBeNull();

    const before = dumpProjections(db, projections);
    writer.transactNow(() => replayLedger(db, ledgerStore, projections));
    expect(dumpProjections(db, projections)).toEqual(before);
  });

  it('refuse a service that depends on itself', async () => {
    const { estate } = start([], {});
    await expect(estate.putOverrides({ links: [{ from: 'a', to: 'a' }] }, ADMIN)).rejects.toThrow(
      InvalidInputError,
    );
  });
});

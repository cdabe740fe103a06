// Learning over HTTP against a real server and SQLite file: team verdicts and outside labels
// become labels (each a ledger event) carrying what the service said; precision, calibration
// and demotions follow from them; a pattern is found once, from claims labelled right; its
// actions obey their states; bad input changes nothing; the tables rebuild from the ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpProjections, rebuildProjections } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import { seedEpisodes } from '../testing/episodes/episodes.js';
import {
  asAdmin,
  buildTestServer,
  episodeOf,
  personOn,
  postAlert,
  type TestServer,
} from '../testing/test-server.js';

const NOW = '2026-11-28T08:00:00.000Z';
const clock = createFakeClock(NOW);
let server: TestServer;
let tokens: { viewer: string; responder: string };

const call = async (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) => {
  const res = await server.app.inject({
    method,
    url,
    headers: token === undefined ? asAdmin() : { authorization: `Bearer ${token}` },
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
};

const NGINX = {
  cause: 'nginx_down',
  pack: 'nginx',
  confidence: 'proven',
  fixes: ['restart_nginx'],
};

// Sessions are checked against the clock: seeds lie in the past, and the clock comes back.
function seed(n: number, lead: typeof NGINX | null = NGINX, alerts = ['NginxDown']): string[] {
  return seedAt(
    { ...server.runtime, clock },
    Array.from({ length: n }, (_, i) => ({
      service: 'web',
      alerts,
      t_open: `2026-11-2${String(1 + (i % 5))}T10:00:00.000Z`,
      t_close: `2026-11-2${String(1 + (i % 5))}T10:20:00.000Z`,
      ...(lead !== null && { lead }),
    })),
  );
}

function seedAt(...args: Parameters<typeof seedEpisodes>): string[] {
  const ids = seedEpisodes(...args).map(([id]) => id);
  clock.set(NOW);
  return ids;
}

const team = (id: string, verdict: string, detail?: string) =>
  call('POST', `/v1/episodes/${id}/team`, tokens.responder, {
    verdict,
    ...(detail !== undefined && { detail }),
  });

interface Learning {
  counts: { labels: number; correct: number; wrong: number; by_source: Record<string, number> };
  precision: { causes: { name: string; labels: number; precision: number }[]; packs: unknown[] };
  demotions: { cause: string; labels: number; precision: number }[];
  calibration: { confidence: string; labels: number; correct: number; share: number | null }[];
}
const learning = async (): Promise<Learning> => {
  const res = await call('GET', '/v1/learning', tokens.viewer);
  expect(res.status).toBe(200);
  return res.body as unknown as Learning;
};
const accuracy = async () => {
  const res = await call('GET', '/v1/doctor?fresh=1');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const checks = res.body['checks'] as {
    area: string;
    check: string;
    status: string;
    detail: string;
  }[];
  return checks.find((c) => c.area === 'Diagnosis' && c.check === 'accuracy');
};
const eventsOf = (type: string) => {
  const store = server.runtime.ledgerStore;
  return store
    .range(0, store.head().seq, 100_000)
    .filter((e) => e.type === type)
    .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }));
};

beforeAll(async () => {
  server = await buildTestServer({ clock });
  tokens = {
    viewer: (await personOn(server, 'vera@example.com', 'viewer')).token,
    responder: (await personOn(server, 'rory@example.com', 'responder')).token,
  };
});
afterAll(async () => {
  await server.cleanup();
});

describe('learning', () => {
  let right: string[];
  let wrong: string[];

  it('starts empty: nothing labelled, every confidence level uncalibrated, doctor says so', async () => {
    const l = await learning();
    expect(l.counts).toMatchObject({ labels: 0, correct: 0, wrong: 0 });
    expect(l.calibration.map((c) => [c.confidence, c.share])).toEqual([
      ['proven', null],
      ['linked', null],
      ['suspected', null],
      ['disputed', null],
      ['cleared', null],
      ['unproven', null],
    ]);
    expect(await accuracy()).toMatchObject({ status: 'ok' });
    expect((await accuracy())?.detail).toContain('no proven or linked diagnosis labelled yet');
  });

  it('labels team verdicts (same and advice right, other wrong, none nothing) with what the service said', async () => {
    right = seed(3);
    wrong = seed(4);
    expect((await team(right[0] ?? '', 'same')).status).toBe(200);
    expect((await team(right[1] ?? '', 'advice')).status).toBe(200);
    expect((await team(wrong[0] ?? '', 'other', 'it was the disk')).status).toBe(200);
    expect((await team(wrong[1] ?? '', 'none')).status).toBe(200);
    const l = await learning();
    expect(l.counts).toMatchObject({ labels: 3, correct: 2, wrong: 1, by_source: { team: 3 } });
    expect(l.precision.causes).toEqual([
      { name: 'nginx_down', labels: 3, correct: 2, precision: 0.667 },
    ]);
    expect(l.calibration[0]).toEqual({ confidence: 'proven', labels: 3, correct: 2, share: 0.667 });
    const labels = eventsOf('learning.label');
    expect(labels).toHaveLength(3);
    expect(labels[0]?.data).toMatchObject({
      episode_id: right[0],
      correct: true,
      source: 'team',
      cause: 'nginx_down',
      pack: 'nginx',
      confidence: 'proven',
      service: 'web',
      alerts: ['NginxDown'],
      fix: 'restart_nginx',
    });
    expect(await accuracy()).toMatchObject({ status: 'warn' });
  });

  it('takes labels from outside for responders, and refuses bad ones naming the field, changing nothing', async () => {
    const head = server.runtime.ledgerStore.head().seq;
    const refused = [
      await call('POST', '/v1/learning/label', tokens.viewer, {
        episode: right[2],
        correct: true,
        source: 'jira',
      }),
      await call('POST', '/v1/learning/label', tokens.responder, {
        episode: right[2],
        correct: true,
        source: 'team',
      }),
      await call('POST', '/v1/learning/label', tokens.responder, {
        episode: right[2],
        source: 'jira',
      }),
      await call('POST', '/v1/learning/label', tokens.responder, {
        episode: 'ep-20261121T100000Z-0000000000000000',
        correct: true,
        source: 'jira',
      }),
    ];
    expect(
      refused.map((r) => [r.status, r.body['role'] ?? r.body['field'] ?? r.body['error']]),
    ).toEqual([
      [403, 'responder'],
      [400, 'source'],
      [400, 'correct'],
      [404, 'not_found'],
    ]);
    expect(server.runtime.ledgerStore.head().seq).toBe(head);

    const ok = await call('POST', '/v1/learning/label', tokens.responder, {
      episode: right[2],
      correct: true,
      source: 'jira',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      episode_id: right[2],
      correct: true,
      source: 'jira',
      cause: 'nginx_down',
      confidence: 'proven',
      by: 'rory',
    });
    expect((await learning()).counts.by_source).toEqual({ team: 3, jira: 1 });
  });

  it('finds a pattern once, from three claims labelled right and none wrong of the same kind', async () => {
    // Three right so far (right[0..2]) and one wrong of the same key: no pattern.
    expect((await call('GET', '/v1/learned', tokens.viewer)).body['patterns']).toEqual([]);
    // Another service's episodes, all right: a pattern.
    const db = seedAt(
      { ...server.runtime, clock },
      [1, 2, 3].map((d) => ({
        service: 'db',
        alerts: ['PgConnectionsHigh', 'PgConnectionsExhausted'],
        t_open: `2026-11-2${String(d)}T11:00:00.000Z`,
        t_close: `2026-11-2${String(d)}T11:30:00.000Z`,
        lead: {
          cause: 'pg_connections_exhausted',
          pack: 'postgresql',
          confidence: 'proven',
          fixes: ['terminate_idle'],
        },
      })),
    );
    for (const id of db) expect((await team(id, 'same')).status).toBe(200);
    // Labelled again: still one pattern, found once.
    expect((await team(db[0] ?? '', 'advice')).status).toBe(200);
    const patterns = (await call('GET', '/v1/learned', tokens.viewer)).body['patterns'] as {
      pattern_id: string;
      state: string;
      support: number;
      wrong: number;
      alerts: string[];
    }[];
    expect(patterns).toHaveLength(1);
    expect(patterns[0]).toMatchObject({
      service: 'db',
      cause: 'pg_connections_exhausted',
      fix: 'terminate_idle',
      alerts: ['PgConnectionsExhausted', 'PgConnectionsHigh'],
      state: 'proposed',
      support: 3,
      wrong: 0,
    });
    expect(eventsOf('learning.pattern_found')).toHaveLength(1);
  });

  it('lets admins decide on a pattern only in the states each action applies to', async () => {
    const [p] = (await call('GET', '/v1/learned')).body['patterns'] as { pattern_id: string }[];
    const id = p?.pattern_id ?? '';
    const url = `/v1/learned/${id}`;
    expect((await call('POST', url, tokens.responder, { action: 'promote' })).body).toMatchObject({
      role: 'admin',
    });
    expect((await call('POST', url, undefined, { action: 'bless' })).body).toMatchObject({
      field: 'action',
    });
    expect(
      (await call('POST', '/v1/learned/lp-000000000000', undefined, { action: 'promote' })).status,
    ).toBe(404);
    const steps: [string, number, string | undefined][] = [];
    for (const action of [
      'enable',
      'promote',
      'promote',
      'disable',
      'enable',
      'reject',
      'promote',
    ]) {
      const res = await call('POST', url, undefined, { action });
      steps.push([action, res.status, (res.body['state'] ?? res.body['error']) as string]);
    }
    expect(steps).toEqual([
      ['enable', 409, 'pattern_state'],
      ['promote', 200, 'promoted'],
      ['promote', 409, 'pattern_state'],
      ['disable', 200, 'disabled'],
      ['enable', 200, 'promoted'],
      ['reject', 200, 'rejected'],
      ['promote', 200, 'promoted'],
    ]);
    const alerts = ['PgConnectionsHigh', 'PgConnectionsExhausted', 'Other'];
    const promoted = (...args: Parameters<typeof server.acting.learning.promoted>) =>
      server.acting.learning.promoted(...args);
    expect(promoted('db', 'pg_connections_exhausted', 'terminate_idle', alerts)).toMatchObject({
      pattern_id: id,
    });
    // Another fix, or one of its alerts missing: not the pattern.
    expect(promoted('db', 'pg_connections_exhausted', 'restart_unit', alerts)).toBeNull();
    expect(promoted('db', 'pg_connections_exhausted', 'terminate_idle', ['Other'])).toBeNull();
    const gone = await call('POST', url, undefined, { action: 'delete' });
    expect(gone.body).toEqual({ pattern_id: id, deleted: true });
    expect((await call('GET', '/v1/learned')).body['patterns']).toEqual([]);
  });

  it('demotes a cause whose labels fall below the bar, holds it from proven, and restores it when they recover', async () => {
    // nginx_down: 3 right, 1 wrong so far (75%, but fewer than 5 labels: not demoted).
    expect((await learning()).demotions).toEqual([]);
    expect((await team(wrong[2] ?? '', 'other', 'a certificate expired')).status).toBe(200);
    expect((await learning()).demotions).toMatchObject([
      { cause: 'nginx_down', labels: 5, precision: 0.6 },
    ]);
    expect((await team(wrong[3] ?? '', 'other', 'the upstream was down')).status).toBe(200);
    // Shown as it stands now; the event says when it crossed the bar.
    expect((await learning()).demotions).toMatchObject([
      { cause: 'nginx_down', labels: 6, precision: 0.5 },
    ]);
    expect(eventsOf('learning.demoted').map((e) => e.data)).toEqual([
      { cause: 'nginx_down', precision: 0.6, labels: 5, bar: 0.8 },
    ]);
    expect(server.acting.learning.demotedWhy('nginx_down')).toBe(
      'nginx_down is demoted: 3 of its last 6 labelled diagnoses were right, below 80%',
    );
    expect(server.acting.learning.demotedWhy('pg_connections_exhausted')).toBeNull();
    const doctor = await accuracy();
    expect(doctor).toMatchObject({ status: 'warn' });
    expect(doctor?.detail).toContain('demoted by their labels: nginx_down');

    // An outside label never replaces the team's verdict: one person cannot lift a demotion.
    const head = server.runtime.ledgerStore.head().seq;
    const over = await call('POST', '/v1/learning/label', tokens.responder, {
      episode: wrong[0],
      correct: true,
      source: 'review',
    });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ error: 'team_verdict' });
    expect(String(over.body['why'])).toContain("change the verdict on the episode's page");
    expect(server.runtime.ledgerStore.head().seq).toBe(head);

    // The team finds its verdicts were mistaken and changes them: the cause recovers.
    for (const id of [wrong[0], wrong[2], wrong[3]]) {
      expect((await team(id ?? '', 'same')).status).toBe(200);
    }
    expect((await learning()).demotions).toEqual([]);
    expect(eventsOf('learning.restored').map((e) => e.data)).toEqual([
      { cause: 'nginx_down', precision: 0.833, labels: 6 },
    ]);
    expect(server.acting.learning.demotedWhy('nginx_down')).toBeNull();

    // A verdict changed to none withdraws the team's label; it is counted no more.
    const before = (await learning()).counts.labels;
    expect((await team(right[0] ?? '', 'none')).status).toBe(200);
    expect((await learning()).counts.labels).toBe(before - 1);
    expect(eventsOf('learning.unlabelled').map((e) => e.data)).toEqual([
      { episode_id: right[0], why: 'the team changed its verdict to none' },
    ]);
  });

  it('labels no episode before it closes', async () => {
    const res = await postAlert(server, { name: 'NginxDown', service: 'web' });
    expect(res.statusCode).toBe(202);
    const open = episodeOf(res) ?? '';
    const head = server.runtime.ledgerStore.head().seq;
    const refused = await call('POST', '/v1/learning/label', tokens.responder, {
      episode: open,
      correct: false,
      source: 'jira',
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'episode_open' });
    expect((await team(open, 'same')).status).toBe(200);
    expect(server.acting.learning.summary().counts.labels).toBe((await learning()).counts.labels);
    expect(eventsOf('learning.label').some((e) => e.data['episode_id'] === open)).toBe(false);
    expect(server.runtime.ledgerStore.head().seq).toBe(head + 1); // the verdict alone
  });

  it('rebuilds every learning table from the ledger to the same rows', () => {
    const rt = server.runtime;
    const before = dumpProjections(rt.db, rt.projections);
    const result = rebuildProjections(rt.db, rt.ledgerStore, rt.projections, false, (fn) => {
      rt.writer.transactNow(fn);
    });
    expect(result.differing).toEqual([]);
    expect(dumpProjections(rt.db, rt.projections)).toEqual(before);
  });
});

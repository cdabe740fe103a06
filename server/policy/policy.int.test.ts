// The policy document against a real SQLite file: defaults, PUT through the ledger, the
// SVC_POLICY file (loaded once per change, 409 for PUT, refused when invalid), and the
// HTTP routes with the real auth plugin and error handler.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auth } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import { dumpProjections, replayLedger } from '../ledger/index.js';
import { createLogger } from '../logger.js';
import { createFakeClock } from '../shared/clock.js';
import { ConflictError, InvalidInputError } from '../shared/errors.js';
import { Secret } from '../shared/secret.js';
import {
  createPolicyService,
  createPolicyStore,
  DEFAULT_POLICY,
  PolicyFileError,
  policyRoutes,
  sha256Of,
  type PolicyInput,
} from './index.js';
import { openLedgerBench } from '../testing/ledger-bench.js';

const ADMIN_TOKEN = 'admin-token-for-policy-tests-0123456789';
const VIEWER_TOKEN = 'viewer-session-for-policy-tests';

const POLICY = {
  grouping: { window_s: 120, by: ['alertname', 'env'] },
  maintenance: [
    {
      name: 'db-upgrade',
      services: ['payments', 'pay-*'],
      starts: '2026-11-22T01:00:00Z',
      ends: '2026-11-22T03:00:00Z',
      reason: 'planned upgrade',
      match: { env: 'prod', severity: '*' },
    },
  ],
  inhibit: [
    {
      name: 'node-down-hides-its-alerts',
      source: { alertname: 'NodeDown' },
      target: { severity: 'warning' },
      equal: ['host'],
    },
  ],
  escalation: {
    steps: [
      { after_s: 0, who: { role: 'responder' as const }, channel: 'ops-mail' },
      { after_s: 900, who: { users: ['u-alice'], teams: ['t-dba'] }, channel: 'ops-chat' },
    ],
  },
  change_windows: [
    {
      name: 'release-freeze',
      services: ['pay-*'],
      mode: 'freeze' as const,
      weekly: { days: ['fri' as const], from: '16:00', to: '08:00' },
    },
  ],
  actions: {
    rules: [{ services: ['*'], fixes: ['restart_unit'], max_risk: 'low' as const, safe: true }],
  },
};

let dir: string;
const opened: { close(): void }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-policy-'));
});
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The store, ledger and service as the runtime builds them; a second call is a restart. */
function start(file = join(dir, 'policy.json')) {
  const clock = createFakeClock('2026-11-22T00:00:00.000Z');
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  opened.push(db);
  const store = createPolicyStore(db);
  projections.register(store.projection);
  const policy = createPolicyService({ store, ledger, writer, clock, file });
  const events = (after = 0) =>
    ledgerStore
      .range(after, ledgerStore.head().seq, 1000)
      .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }));
  return { db, writer, ledgerStore, projections, policy, clock, events, file };
}

const writeFile = (file: string, doc: unknown) => {
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
};

describe('the policy service, managed through the API', () => {
  it('answers the defaults on a new install', () => {
    const { policy, events } = start();
    expect(policy.get()).toEqual({
      policy: {
        grouping: { window_s: 300, by: ['alertname'] },
        maintenance: [],
        inhibit: [],
        escalation: { steps: [] },
        change_windows: [],
        actions: { rules: [] },
      },
      source: 'default',
      file: null,
      sha256: sha256Of(DEFAULT_POLICY),
      set_by: null,
      set_at: null,
    });
    expect(policy.current()).toEqual(DEFAULT_POLICY);
    expect(policy.managedBy()).toBeNull();
    expect(policy.load()).toBe(false);
    expect(events()).toEqual([]);
  });

  it('replaces the document on PUT, records policy.set with the actor, and serves it', async () => {
    const { policy, events, clock } = start();
    clock.set('2026-11-22T00:05:00.000Z');
    const view = await policy.put(POLICY, { name: 'alice', via: 'admin-token' });
    expect(view).toEqual({
      policy: POLICY,
      source: 'api',
      file: null,
      sha256: sha256Of(POLICY),
      set_by: 'alice',
      set_at: '2026-11-22T00:05:00.000Z',
    });
    expect(policy.get()).toEqual(view);
    expect(policy.current()).toEqual(POLICY);
    const [event, ...rest] = events();
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ type: 'policy.set', actor: 'alice' });
    expect(event?.data).toEqual({ policy: POLICY, sha256: sha256Of(POLICY), via: 'admin-token' });
  });

  it('fills in missing sections with their defaults', async () => {
    const { policy } = start();
    const view = await policy.put({ inhibit: POLICY.inhibit }, { name: 'alice' });
    expect(view.policy).toEqual({ ...DEFAULT_POLICY, inhibit: POLICY.inhibit });
  });

  it('keeps the document across a restart and hands out a frozen copy', async () => {
    await start().policy.put(POLICY, { name: 'alice' });
    const { policy } = start();
    expect(policy.get()).toMatchObject({ policy: POLICY, source: 'api', set_by: 'alice' });
    const current = policy.current();
    expect(Object.isFrozen(current.grouping.by)).toBe(true);
    expect(() => current.grouping.by.push('x')).toThrow(TypeError);
  });

  it.each([
    ['an unknown section', { ...POLICY, colour: 'red' }, 'colour'],
    [
      'an unknown field in an item',
      { maintenance: [{ ...POLICY.maintenance[0], colour: 'red' }] },
      'maintenance.0.colour',
    ],
    [
      'a missing end',
      { maintenance: [{ ...POLICY.maintenance[0], ends: undefined }] },
      'maintenance.0.ends',
    ],
    [
      'an end before the start',
      { maintenance: [{ ...POLICY.maintenance[0], ends: '2026-11-22T00:00:00Z' }] },
      'maintenance.0.ends',
    ],
    [
      'an end equal to the start',
      { maintenance: [{ ...POLICY.maintenance[0], ends: '2026-11-22T01:00:00Z' }] },
      'maintenance.0.ends',
    ],
    [
      'a time without a zone',
      { maintenance: [{ ...POLICY.maintenance[0], starts: '2026-11-22T01:00:00' }] },
      'maintenance.0.starts',
    ],
    [
      'two windows of one name',
      { maintenance: [POLICY.maintenance[0], { ...POLICY.maintenance[0] }] },
      'maintenance.1.name',
    ],
    [
      'two rules of one name',
      { inhibit: [POLICY.inhibit[0], { ...POLICY.inhibit[0] }] },
      'inhibit.1.name',
    ],
    [
      'a window of no services',
      { maintenance: [{ ...POLICY.maintenance[0], services: [] }] },
      'maintenance.0.services',
    ],
    ['empty matchers', { inhibit: [{ ...POLICY.inhibit[0], target: {} }] }, 'inhibit.0.target'],
    [
      'a matcher key that is not a name',
      { inhibit: [{ ...POLICY.inhibit[0], source: { '9lives': 'x' } }] },
      'inhibit.0.source.9lives',
    ],
    ['a window longer than a day', { grouping: { window_s: 86_401, by: [] } }, 'grouping.window_s'],
    ['a grouping without by', { grouping: { window_s: 60 } }, 'grouping.by'],
  ])('refuses %s, naming the field, and records nothing', async (_what, doc, field) => {
    const { policy, events } = start();
    const put = policy.put(JSON.parse(JSON.stringify(doc)) as PolicyInput, { name: 'alice' });
    await expect(put).rejects.toBeInstanceOf(InvalidInputError);
    await expect(put).rejects.toMatchObject({ code: 'invalid_input', details: { field } });
    expect(events()).toEqual([]);
    expect(policy.get().source).toBe('default');
  });
});

describe('the policy service, managed in the SVC_POLICY file', () => {
  it('serves the file, records policy.loaded once, and again only when the file changes', () => {
    const file = join(dir, 'policy.json');
    writeFile(file, POLICY);
    const first = start(file);
    expect(first.policy.get()).toMatchObject({ policy: POLICY, source: 'file', file });
    expect(first.policy.managedBy()).toBe(file);
    expect(first.writer.transactNow(() => first.policy.load())).toBe(true);
    const loaded = first.events();
    expect(loaded).toHaveLength(1);
    expect(loaded[0]).toMatchObject({ type: 'policy.loaded', actor: 'system' });
    expect(loaded[0]?.data).toEqual({ policy: POLICY, file, sha256: sha256Of(POLICY) });
    expect(first.policy.get()).toMatchObject({ set_by: 'system', set_at: loaded[0]?.ts });

    // The same document again (written differently): nothing new.
    writeFileSync(file, JSON.stringify(POLICY));
    const again = start(file);
    expect(again.writer.transactNow(() => again.policy.load())).toBe(false);
    expect(again.events()).toHaveLength(1);
    expect(again.policy.get()).toMatchObject({ source: 'file', set_by: 'system' });

    // A changed file: one more event.
    const changed = { ...POLICY, grouping: { window_s: 30, by: [] } };
    writeFile(file, changed);
    const third = start(file);
    expect(third.writer.transactNow(() => third.policy.load())).toBe(true);
    expect(third.events().map((e) => e.type)).toEqual(['policy.loaded', 'policy.loaded']);
    expect(third.policy.current()).toEqual(changed);
  });

  it('answers PUT with 409 and why, and records nothing', async () => {
    const file = join(dir, 'policy.json');
    writeFile(file, {});
    const { policy, events } = start(file);
    const put = policy.put(POLICY, { name: 'alice' });
    await expect(put).rejects.toBeInstanceOf(ConflictError);
    await expect(put).rejects.toMatchObject({
      details: { why: `the policy is managed in ${file}; edit that file and restart` },
    });
    expect(events()).toEqual([]);
    expect(policy.current()).toEqual(DEFAULT_POLICY);
  });

  it.each([
    ['is not JSON', '{"grouping": ', null],
    ['has an unknown section', { colour: 'red' }, 'colour'],
    [
      'has a window that ends before it starts',
      { maintenance: [{ ...POLICY.maintenance[0], ends: '2026-11-21T00:00:00Z' }] },
      'maintenance.0.ends',
    ],
    ['is not an object', '[]', 'document'],
  ])('refuses to start when the file %s, naming the file and the field', (_what, doc, field) => {
    const file = join(dir, 'policy.json');
    writeFile(file, doc);
    let thrown: unknown;
    try {
      start(file);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PolicyFileError);
    const err = thrown as PolicyFileError;
    expect(err.file).toBe(file);
    expect(err.field).toBe(field);
    expect(err.message).toContain(file);
    if (field !== null) expect(err.message).toContain(field);
  });

  it('records the file again after a PUT made while it was away, and hands back on removal', async () => {
    const file = join(dir, 'policy.json');
    const fromFile = { ...POLICY, maintenance: [] };
    writeFile(file, fromFile);
    const one = start(file);
    one.writer.transactNow(() => one.policy.load());

    // The file is removed: the last document set through the API (none yet) applies.
    unlinkSync(file);
    const two = start(file);
    expect(two.writer.transactNow(() => two.policy.load())).toBe(false);
    expect(two.policy.get()).toMatchObject({ source: 'default', policy: DEFAULT_POLICY });
    await two.policy.put(POLICY, { name: 'alice' });

    // The same file comes back: the ledger last recorded the PUT, so it is loaded again.
    writeFile(file, fromFile);
    const three = start(file);
    expect(three.writer.transactNow(() => three.policy.load())).toBe(true);
    expect(three.events().map((e) => e.type)).toEqual([
      'policy.loaded',
      'policy.set',
      'policy.loaded',
    ]);
    expect(three.policy.current()).toEqual(fromFile);

    // And removed again: the PUT document applies, not the file's.
    unlinkSync(file);
    expect(start(file).policy.get()).toMatchObject({
      source: 'api',
      policy: POLICY,
      set_by: 'alice',
    });
  });

  it('is a projection that the ledger alone rebuilds', async () => {
    await start().policy.put(POLICY, { name: 'alice' });
    const file = join(dir, 'policy.json');
    writeFile(file, { grouping: { window_s: 0, by: [] } });
    const { db, writer, ledgerStore, projections, policy } = start(file);
    writer.transactNow(() => policy.load());
    const before = dumpProjections(db, projections);
    writer.transactNow(() => replayLedger(db, ledgerStore, projections));
    expect(dumpProjections(db, projections)).toEqual(before);
    expect((before['policy_state'] ?? []).length).toBe(2);
  });
});

describe('GET and PUT /v1/policy', () => {
  async function serve(file = join(dir, 'policy.json')) {
    const rt = start(file);
    const app = createHttpServer({ log: createLogger('silent') });
    await app.register(auth, {
      adminToken: new Secret(ADMIN_TOKEN),
      ingestToken: null,
      delayMs: 0,
      sessions: {
        lookup: (token) =>
          token === VIEWER_TOKEN
            ? { kind: 'session', name: 'vera', role: 'viewer', userId: 'u-vera' }
            : null,
      },
    });
    await app.register(policyRoutes, { prefix: '/v1', policy: rt.policy, mode: () => 'operating' });
    await app.ready();
    opened.push({ close: () => void app.close() });
    const as = (token: string | null) =>
      token === null ? {} : { authorization: `Bearer ${token}` };
    const get = (token: string | null) =>
      app.inject({ method: 'GET', url: '/v1/policy', headers: as(token) });
    const put = (token: string | null, payload: unknown) =>
      app.inject({
        method: 'PUT',
        url: '/v1/policy',
        headers: { ...as(token), 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
    return { ...rt, app, get, put };
  }

  it('lets a viewer read and only an admin replace', async () => {
    const { get, put, ledgerStore } = await serve();
    expect((await get(null)).statusCode).toBe(401);
    const read = await get(VIEWER_TOKEN);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ policy: DEFAULT_POLICY, source: 'default' });

    const refused = await put(VIEWER_TOKEN, POLICY);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: 'role_required', role: 'admin' });
    expect(ledgerStore.head().seq).toBe(0);

    const res = await put(ADMIN_TOKEN, POLICY);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      policy: POLICY,
      source: 'api',
      file: null,
      sha256: sha256Of(POLICY),
      set_by: 'admin-token',
      set_at: '2026-11-22T00:00:00.000Z',
    });
    expect((await get(VIEWER_TOKEN)).json()).toEqual(res.json());
  });

  it.each([
    ['an unknown section', { ...POLICY, colour: 'red' }, 'colour'],
    [
      'an unknown field in an item',
      { inhibit: [{ ...POLICY.inhibit[0], colour: 'red' }] },
      'inhibit.0.colour',
    ],
    [
      'a missing end',
      { maintenance: [{ ...POLICY.maintenance[0], ends: undefined }] },
      'maintenance.0.ends',
    ],
    [
      'an end before the start',
      { maintenance: [{ ...POLICY.maintenance[0], ends: '2026-11-22T00:00:00Z' }] },
      'maintenance.0.ends',
    ],
    [
      'a time without a zone',
      { maintenance: [{ ...POLICY.maintenance[0], ends: '2026-11-22T04:00:00' }] },
      'maintenance.0.ends',
    ],
    [
      'two rules of one name',
      { inhibit: [POLICY.inhibit[0], POLICY.inhibit[0]] },
      'inhibit.1.name',
    ],
    [
      'a matcher key that is not a name',
      { inhibit: [{ ...POLICY.inhibit[0], target: { 'bad key': 'x' } }] },
      'inhibit.0.target.bad key',
    ],
    ['a fractional window', { grouping: { window_s: 1.5, by: [] } }, 'grouping.window_s'],
    [
      'escalation steps going back in time',
      { escalation: { steps: [...POLICY.escalation.steps].reverse() } },
      'escalation.steps.1.after_s',
    ],
    [
      'an escalation step without a channel',
      { escalation: { steps: [{ ...POLICY.escalation.steps[0], channel: '' }] } },
      'escalation.steps.0.channel',
    ],
  ])('answers %s with 400 naming the field', async (_what, doc, field) => {
    const { put, ledgerStore } = await serve();
    const res = await put(ADMIN_TOKEN, doc);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field });
    expect(ledgerStore.head().seq).toBe(0);
  });

  it('answers PUT with 409 and why when the file manages the policy', async () => {
    const file = join(dir, 'policy.json');
    writeFile(file, POLICY);
    const { get, put, ledgerStore } = await serve(file);
    const res = await put(ADMIN_TOKEN, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      error: 'policy_in_file',
      why: `the policy is managed in ${file}; edit that file and restart`,
    });
    expect(ledgerStore.head().seq).toBe(0);
    expect((await get(VIEWER_TOKEN)).json()).toMatchObject({ source: 'file', file });
  });
});

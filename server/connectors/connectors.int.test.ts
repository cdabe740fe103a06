// Connectors against a real SQLite file and the real auth plugin: PUT/DELETE through the
// ledger with a rebuild each time, typed-in secrets to 0600 files (and nowhere else),
// validation naming the field, and the SVC_CONNECTORS file mode.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auth } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import { dumpProjections, replayLedger } from '../ledger/index.js';
import type { Mode } from '../shared/mode.js';
import { Secret } from '../shared/secret.js';
import { ConnectorsFileError, connectorsRoutes } from './index.js';
import { echoKind } from '../testing/connectors/echo-kind.js';
import { connectorsStack } from '../testing/connectors/service-stack.js';

const ADMIN_TOKEN = 'admin-token-for-connector-tests-0123456789';
const VIEWER_TOKEN = 'viewer-session-for-connector-tests';
const SECRET = 'hunter2-typed-into-the-console-7f3a9c';

let dir: string;
const opened: { close(): Promise<void> | void }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-connectors-'));
});
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything the app builds for connectors; a second call is a restart. */
async function serve(options: { file?: string; mode?: Mode; env?: Record<string, string> } = {}) {
  const kind = echoKind();
  const { db, writer, projections, ledgerStore, connectors, log, lines } = connectorsStack({
    dir,
    kinds: [kind],
    env: options.env,
    file: options.file,
    defaultConcurrency: 4,
  });
  connectors.start();
  const app = createHttpServer({ log });
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
  await app.register(connectorsRoutes, {
    prefix: '/v1',
    connectors,
    mode: () => options.mode ?? 'configuring',
  });
  await app.ready();
  opened.push({
    close: async () => {
      await app.close();
      await connectors.close();
      await writer.close();
      db.close();
    },
  });
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const req = (
    method: 'GET' | 'PUT' | 'DELETE' | 'POST',
    url: string,
    token: string,
    body?: unknown,
  ) =>
    app.inject({
      method,
      url,
      headers: {
        ...as(token),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
  const events = () =>
    ledgerStore
      .range(0, ledgerStore.head().seq, 1000)
      .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }));
  return { app, db, connectors, kind, lines, req, events, ledgerStore, projections, writer };
}

const ECHO = (token: unknown = { value: SECRET }) => ({
  kind: 'echo',
  settings: { url: 'http://127.0.0.1:9', token },
  timeout_s: 2,
});

describe('PUT, GET and DELETE /v1/connectors', () => {
  it('saves a connector, writes a typed-in secret to a 0600 file, and rebuilds at once', async () => {
    const s = await serve();
    expect(s.connectors.hasWorkingConnection()).toBe(false);
    const res = await s.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, ECHO());
    expect(res.statusCode, res.body).toBe(200);
    const secretFile = join(dir, 'secrets', 'connector-prom-token');
    expect(res.json()).toMatchObject({
      name: 'prom',
      kind: 'echo',
      settings: { url: 'http://127.0.0.1:9', token: { file: secretFile } },
      timeout_s: 2,
      max_in_flight: null,
      problem: null,
      set_by: 'admin-token',
    });
    expect(readFileSync(secretFile, 'utf8')).toBe(SECRET);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'secrets')).mode & 0o777).toBe(0o700);

    // Built without a restart, with the secret read from its file; health in the background.
    await s.connectors.runtime.settled();
    expect(s.kind.probe.tokens).toEqual([SECRET]);
    expect(s.connectors.hasWorkingConnection()).toBe(true);

    const [event] = s.events();
    expect(event).toMatchObject({ type: 'config.connector_set', actor: 'admin-token' });
    expect(event?.data).toEqual({
      name: 'prom',
      connector: {
        kind: 'echo',
        settings: { url: 'http://127.0.0.1:9', token: { file: secretFile } },
        timeout_s: 2,
      },
    });

    const list = await s.req('GET', '/v1/connectors', VIEWER_TOKEN);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({
      file: null,
      connectors: [
        {
          name: 'prom',
          settings: { token: { file: secretFile } },
          last_health: { ok: true, detail: 'echo ok' },
        },
      ],
    });

    // The value is nowhere but its file: not the database (WAL included), the ledger, the
    // logs (trace level) or any answer.
    await s.req('POST', '/v1/connectors/test', ADMIN_TOKEN, ECHO());
    const answers = [
      res.body,
      list.body,
      (await s.req('GET', '/v1/connectors/catalogue', VIEWER_TOKEN)).body,
    ];
    for (const body of answers) expect(body).not.toContain(SECRET);
    expect(JSON.stringify(s.events())).not.toContain(SECRET);
    expect(s.lines.join('')).not.toContain(SECRET);
    expect(s.lines.length).toBeGreaterThan(0);
    for (const f of ['svc.db', 'svc.db-wal', 'svc.db-shm']) {
      const path = join(dir, f);
      if (existsSync(path)) expect(readFileSync(path).includes(Buffer.from(SECRET))).toBe(false);
    }
    expect(existsSync(join(dir, 'svc.db-wal'))).toBe(true);
  });

  it('keeps the connector across a restart, and is a projection the ledger alone rebuilds', async () => {
    const first = await serve();
    await first.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, ECHO({ env: 'PROM_TOKEN' }));
    await first.req('PUT', '/v1/connectors/other', ADMIN_TOKEN, ECHO());
    await first.req('DELETE', '/v1/connectors/other', ADMIN_TOKEN);
    const again = await serve({ env: { PROM_TOKEN: 'from-env' } });
    await again.connectors.runtime.settled();
    expect(again.connectors.list().connectors.map((c) => c.name)).toEqual(['prom']);
    expect(again.kind.probe.tokens).toEqual(['from-env']);
    const before = dumpProjections(again.db, again.projections);
    again.writer.transactNow(() => replayLedger(again.db, again.ledgerStore, again.projections));
    expect(dumpProjections(again.db, again.projections)).toEqual(before);
  });

  it('removes a connector (404 when none), its typed-in secret file, and rebuilds', async () => {
    const s = await serve();
    await s.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, ECHO());
    await s.connectors.runtime.settled();
    const secretFile = join(dir, 'secrets', 'connector-prom-token');
    expect(existsSync(secretFile)).toBe(true);
    const res = await s.req('DELETE', '/v1/connectors/prom', ADMIN_TOKEN);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ name: 'prom', removed: true });
    expect(existsSync(secretFile)).toBe(false);
    expect(s.connectors.list().connectors).toEqual([]);
    expect(s.connectors.hasWorkingConnection()).toBe(false);
    expect(s.kind.probe.closed).toBe(1);
    expect(s.events().map((e) => [e.type, e.data])).toEqual([
      ['config.connector_set', expect.anything()],
      ['config.connector_removed', { name: 'prom' }],
    ]);
    const again = await s.req('DELETE', '/v1/connectors/prom', ADMIN_TOKEN);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ error: 'connector_not_found' });
  });

  it('replacing a typed-in secret by a reference removes the file it no longer needs', async () => {
    const s = await serve();
    await s.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, ECHO());
    const secretFile = join(dir, 'secrets', 'connector-prom-token');
    // The console sends back what GET showed: the file reference stays, and so does the file.
    await s.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, ECHO({ file: secretFile }));
    expect(existsSync(secretFile)).toBe(true);
    await s.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, ECHO({ env: 'X' }));
    expect(existsSync(secretFile)).toBe(false);
    await s.connectors.runtime.settled();
    expect(s.connectors.list().connectors[0]?.problem).toBe('environment variable X is not set');
  });

  it('shows the problem of a connector whose secret file is missing', async () => {
    const s = await serve();
    const res = await s.req(
      'PUT',
      '/v1/connectors/prom',
      ADMIN_TOKEN,
      ECHO({ file: join(dir, 'missing-token') }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      problem: `secret file ${join(dir, 'missing-token')} is missing`,
    });
    await s.connectors.runtime.settled();
    expect(s.connectors.hasWorkingConnection()).toBe(false);
  });

  it.each([
    [
      'an unknown setting',
      { ...ECHO(), settings: { ...ECHO().settings, colour: 'red' } },
      'settings.colour',
    ],
    [
      'a missing required setting',
      { kind: 'echo', settings: { token: { env: 'X' } } },
      'settings.url',
    ],
    [
      'a URL that is not one',
      { kind: 'echo', settings: { url: 'nope', token: { env: 'X' } } },
      'settings.url',
    ],
    [
      'a URL with a password',
      { kind: 'echo', settings: { url: 'http://u:p@h', token: { env: 'X' } } },
      'settings.url',
    ],
    [
      'an integer out of range',
      { ...ECHO(), settings: { ...ECHO().settings, retries: 9 } },
      'settings.retries',
    ],
    [
      'a boolean that is text',
      { ...ECHO(), settings: { ...ECHO().settings, verbose: 'yes' } },
      'settings.verbose',
    ],
    [
      'a list that is text',
      { ...ECHO(), settings: { ...ECHO().settings, tags: 'a' } },
      'settings.tags',
    ],
    [
      'a secret given as text',
      { kind: 'echo', settings: { url: 'http://h', token: 'plain' } },
      'settings.token',
    ],
    [
      'a secret with two references',
      { kind: 'echo', settings: { url: 'http://h', token: { env: 'X', file: '/x' } } },
      'settings.token',
    ],
    [
      'a relative secret file',
      { kind: 'echo', settings: { url: 'http://h', token: { file: 'x' } } },
      'settings.token',
    ],
    ['an unknown kind', { kind: 'nope', settings: {} }, 'kind'],
    ['a timeout too long', { ...ECHO(), timeout_s: 301 }, 'timeout_s'],
    ['max_in_flight of 0', { ...ECHO(), max_in_flight: 0 }, 'max_in_flight'],
    ['an unknown field', { ...ECHO(), colour: 'red' }, 'colour'],
    ['no settings', { kind: 'echo' }, 'settings'],
  ])('refuses %s with a 400 naming the field, and records nothing', async (_what, body, field) => {
    const s = await serve();
    const res = await s.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field });
    expect(res.body).not.toContain(SECRET);
    expect(s.events()).toEqual([]);
    expect(existsSync(join(dir, 'secrets', 'connector-prom-token'))).toBe(false);
  });

  it('refuses a bad name, needs admin to change and viewer to read, and is closed in setup', async () => {
    const s = await serve();
    expect((await s.req('PUT', '/v1/connectors/Prom_1', ADMIN_TOKEN, ECHO())).json()).toMatchObject(
      {
        error: 'invalid_input',
        field: 'name',
      },
    );
    const refused = await s.req('PUT', '/v1/connectors/prom', VIEWER_TOKEN, ECHO());
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ role: 'admin' });
    expect((await s.req('POST', '/v1/connectors/test', VIEWER_TOKEN, ECHO())).statusCode).toBe(403);
    expect((await s.req('GET', '/v1/connectors', VIEWER_TOKEN)).statusCode).toBe(200);
    expect(s.events()).toEqual([]);
    const setup = await serve({ mode: 'setup' });
    const closed = await setup.req('GET', '/v1/connectors', ADMIN_TOKEN);
    expect(closed.statusCode).toBe(503);
    expect(closed.json()).toEqual({ error: 'not operating yet', mode: 'setup' });
  });

  it('owns its event types, so POST /v1/events cannot forge them', async () => {
    const s = await serve();
    expect(s.projections.owns('config.connector_set')).toBe(true);
    expect(s.projections.owns('config.connector_removed')).toBe(true);
  });
});

describe('GET /v1/connectors/catalogue and POST /v1/connectors/test', () => {
  it('lists every kind with its settings, which are secret, and the framework settings', async () => {
    const s = await serve();
    const res = await s.req('GET', '/v1/connectors/catalogue', VIEWER_TOKEN);
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      kinds: { kind: string; settings: { name: string; secret: boolean }[] }[];
      framework: unknown[];
    }>();
    expect(body.kinds.map((k) => k.kind)).toEqual(['echo']);
    expect(body.kinds[0]).toMatchObject({
      capabilities: ['query'],
      operations: ['echo', 'wait', 'hang'],
    });
    expect(body.kinds[0]?.settings.filter((x) => x.secret).map((x) => x.name)).toEqual(['token']);
    expect(body.kinds[0]?.settings.find((x) => x.name === 'behaviour')).toMatchObject({
      default: 'ok',
    });
    expect(body.framework).toEqual([
      expect.objectContaining({ name: 'max_in_flight', minimum: 1, maximum: 256, required: false }),
      expect.objectContaining({ name: 'timeout_s', default: 10, minimum: 1, maximum: 300 }),
    ]);
  });

  it('tests a document without storing anything; a failed check is 200 with ok false', async () => {
    const s = await serve();
    const ok = await s.req('POST', '/v1/connectors/test', ADMIN_TOKEN, { ...ECHO(), name: 'prom' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ ok: true, detail: 'echo ok' });
    expect(s.kind.probe.tokens).toEqual([SECRET]);
    expect(existsSync(join(dir, 'secrets'))).toBe(false);
    const hung = await s.req('POST', '/v1/connectors/test', ADMIN_TOKEN, {
      ...ECHO(),
      settings: { ...ECHO().settings, behaviour: 'hang' },
      timeout_s: 1,
    });
    expect(hung.statusCode).toBe(200);
    expect(hung.json()).toMatchObject({ ok: false, detail: 'connector test: timed out after 1 s' });
    const missing = await s.req(
      'POST',
      '/v1/connectors/test',
      ADMIN_TOKEN,
      ECHO({ file: join(dir, 'nope') }),
    );
    expect(Object.keys(missing.json<object>()).sort()).toEqual(['detail', 'duration_ms', 'ok']);
    expect(missing.json()).toMatchObject({
      ok: false,
      detail: `secret file ${join(dir, 'nope')} is missing`,
    });
    const bad = await s.req('POST', '/v1/connectors/test', ADMIN_TOKEN, {
      kind: 'echo',
      settings: {},
    });
    expect(bad.statusCode).toBe(400);
    expect(s.events()).toEqual([]);
    expect(s.connectors.list().connectors).toEqual([]);
    expect(s.lines.join('')).not.toContain(SECRET);
  });
});

describe('the SVC_CONNECTORS file', () => {
  it('manages the connectors: they come from it, and PUT/DELETE answer 409 with why', async () => {
    const file = join(dir, 'connectors.json');
    writeFileSync(join(dir, 'token'), 'from-file\n');
    writeFileSync(
      file,
      JSON.stringify({
        connectors: {
          prom: {
            kind: 'echo',
            settings: { url: 'http://h', token: { file: join(dir, 'token') } },
            max_in_flight: 2,
          },
        },
      }),
    );
    const s = await serve({ file });
    await s.connectors.runtime.settled();
    expect(s.connectors.managedBy()).toBe(file);
    expect(s.kind.probe.tokens).toEqual(['from-file']);
    expect(s.connectors.hasWorkingConnection()).toBe(true);
    const list = await s.req('GET', '/v1/connectors', VIEWER_TOKEN);
    expect(list.json()).toMatchObject({
      file,
      connectors: [{ name: 'prom', max_in_flight: 2, set_by: null }],
    });
    for (const res of [
      await s.req('PUT', '/v1/connectors/prom', ADMIN_TOKEN, ECHO()),
      await s.req('DELETE', '/v1/connectors/prom', ADMIN_TOKEN),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        error: 'connectors_in_file',
        why: `connectors are managed in ${file}; edit that file and restart`,
      });
    }
    expect(existsSync(join(dir, 'secrets'))).toBe(false);
    expect(s.events()).toEqual([]);
  });

  it.each([
    ['is not JSON', '{"connectors": ', null],
    ['has an unknown field', { connectors: {}, colour: 1 }, 'colour'],
    ['has a bad name', { connectors: { Prom: { kind: 'echo', settings: {} } } }, 'connectors.Prom'],
    [
      'has an unknown kind',
      { connectors: { p: { kind: 'nope', settings: {} } } },
      'connectors.p.kind',
    ],
    [
      'holds a secret value',
      { connectors: { p: { kind: 'echo', settings: { url: 'http://h', token: { value: 'x' } } } } },
      'connectors.p.settings.token',
    ],
    [
      'misses a required setting',
      { connectors: { p: { kind: 'echo', settings: { token: { env: 'X' } } } } },
      'connectors.p.settings.url',
    ],
  ])(
    'refuses to start when the file %s, naming the file and the field',
    async (_what, doc, field) => {
      const file = join(dir, 'connectors.json');
      writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
      const thrown = await serve({ file }).catch((err: unknown) => err);
      expect(thrown).toBeInstanceOf(ConnectorsFileError);
      const err = thrown as ConnectorsFileError;
      expect(err.file).toBe(file);
      expect(err.field).toBe(field);
      expect(err.message).toContain(file);
      if (field !== null) expect(err.message).toContain(field);
    },
  );
});

// Branding against a real SQLite file: defaults, PUT through the ledger (config.branding_set
// with the actor), the projection, and the HTTP routes on the real auth plugin and error
// handler: field-named 400s, 413 past 2.5 MiB, 401/403, ETag and 304, the mode gate.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auth } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import { createLedgerService, dumpProjections, replayLedger } from '../ledger/index.js';
import { createLogger } from '../logger.js';
import { createFakeClock } from '../shared/clock.js';
import type { Mode } from '../shared/mode.js';
import { Secret } from '../shared/secret.js';
import {
  BRANDING_SET,
  brandingRoutes,
  createBrandingService,
  createBrandingStore,
  DEFAULT_BRANDING,
  LOGO_MAX_BYTES,
  sha256Of,
  type Branding,
} from './index.js';
import { eventCatalogue } from '../compose/index.js';
import { openLedgerBench } from '../testing/ledger-bench.js';

const ADMIN_TOKEN = 'admin-token-for-branding-tests-0123456789';
const VIEWER_TOKEN = 'viewer-session-for-branding-tests';
const ADMIN_SESSION = 'admin-session-for-branding-tests';

// ── fixtures, built here: a 1×1 PNG and a small SVG ──

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
const PNG = Buffer.concat([
  Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
  chunk('IHDR', Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])),
  chunk('IDAT', deflateSync(Buffer.from([0, 0x3b, 0x6a, 0xc0, 0xff]))),
  chunk('IEND', Buffer.alloc(0)),
]);
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect fill="#fff"/></svg>';
const png = (bytes: Buffer = PNG) => `data:image/png;base64,${bytes.toString('base64')}`;
/** A "PNG" of exactly `size` bytes: the real one, padded. */
const pngOf = (size: number) => {
  const b = Buffer.alloc(size);
  PNG.copy(b);
  return png(b);
};
const svg = (text = SVG) => `data:image/svg+xml,${encodeURIComponent(text)}`;

const BRANDING: Branding = {
  name: 'Acme SRE',
  logos: { light: png(), dark: svg(), mark: png() },
  theme: 'dark',
  accent: '#1d5fd1',
  support: [
    { label: 'Runbooks', url: 'https://wiki.acme.example/sre' },
    { label: 'On-call desk', url: 'mailto:oncall@acme.example' },
  ],
};

let dir: string;
const opened: { close(): void }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-branding-'));
});
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The store, ledger and service as the runtime builds them; a second call is a restart. */
function start() {
  const clock = createFakeClock('2026-11-22T00:00:00.000Z');
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  opened.push(db);
  const store = createBrandingStore(db);
  projections.register(store.projection);
  const branding = createBrandingService({ store, ledger, writer });
  const events = (after = 0) =>
    ledgerStore
      .range(after, ledgerStore.head().seq, 1000)
      .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }));
  return { db, writer, ledgerStore, projections, branding, clock, events };
}

const DEFAULT_VIEW = {
  name: 'Incident response',
  logos: { light: null, dark: null, mark: null },
  theme: 'system',
  accent: '#3b6ac0',
  support: [],
  set_by: null,
  set_at: null,
};

describe('the branding service', () => {
  it('answers the defaults on a new install', () => {
    const { branding, events } = start();
    expect(branding.get()).toEqual({ branding: DEFAULT_VIEW, sha256: sha256Of(DEFAULT_VIEW) });
    expect(events()).toEqual([]);
  });

  it('records config.branding_set with the document, its sha256 and the actor', async () => {
    const { branding, events, clock } = start();
    clock.set('2026-11-22T00:05:00.000Z');
    const answer = await branding.put(BRANDING, { name: 'alice', via: 'admin-token' });
    const view = { ...BRANDING, set_by: 'alice', set_at: '2026-11-22T00:05:00.000Z' };
    expect(answer).toEqual({ branding: view, sha256: sha256Of(view) });
    expect(branding.get()).toEqual(answer);
    const [event, ...rest] = events();
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ type: BRANDING_SET, actor: 'alice' });
    expect(event?.data).toEqual({
      branding: BRANDING,
      sha256: sha256Of(BRANDING),
      via: 'admin-token',
    });
  });

  it('keeps the document across a restart, and is a projection the ledger alone rebuilds', async () => {
    await start().branding.put({ name: 'Acme', logos: { mark: png() } }, { name: 'alice' });
    const { db, writer, ledgerStore, projections, branding } = start();
    expect(branding.get().branding).toMatchObject({
      ...DEFAULT_VIEW,
      name: 'Acme',
      logos: { light: null, dark: null, mark: png() },
      set_by: 'alice',
      set_at: '2026-11-22T00:00:00.000Z',
    });
    const before = dumpProjections(db, projections);
    expect(before['branding_state']).toHaveLength(1);
    writer.transactNow(() => replayLedger(db, ledgerStore, projections));
    expect(dumpProjections(db, projections)).toEqual(before);
  });

  it('sees a change recorded by the ledger outside put (a rebuild, a carried keychain)', () => {
    const { branding, writer, ledgerStore, db, projections } = start();
    const first = branding.get();
    const ledger = createLedgerService({
      inTransaction: () => db.inTransaction,
      store: ledgerStore,
      writer,
      clock: createFakeClock('2026-11-23T00:00:00.000Z'),
      projections,
      events: eventCatalogue(),
    });
    writer.transactNow(() =>
      ledger.append({
        type: BRANDING_SET,
        actor: 'system',
        data: { branding: { ...DEFAULT_BRANDING, name: 'Carried' }, sha256: 'x' },
      }),
    );
    expect(branding.get().branding.name).toBe('Carried');
    expect(branding.get().sha256).not.toBe(first.sha256);
  });

  it('replaces the whole document: fields left out return to their defaults', async () => {
    const { branding } = start();
    await branding.put(BRANDING, { name: 'alice' });
    const { branding: view } = await branding.put({ accent: '#ABCDEF' }, { name: 'bob' });
    expect(view).toEqual({
      ...DEFAULT_VIEW,
      accent: '#abcdef',
      set_by: 'bob',
      set_at: view.set_at,
    });
  });
});

describe('GET and PUT /v1/branding', () => {
  async function serve(mode: Mode = 'operating') {
    const rt = start();
    const app = createHttpServer({ log: createLogger('silent') });
    await app.register(auth, {
      adminToken: new Secret(ADMIN_TOKEN),
      ingestToken: null,
      delayMs: 0,
      sessions: {
        lookup: (token) =>
          token === VIEWER_TOKEN
            ? { kind: 'session', name: 'vera', role: 'viewer', userId: 'u-vera' }
            : token === ADMIN_SESSION
              ? { kind: 'session', name: 'ada', role: 'admin', userId: 'u-ada' }
              : null,
      },
    });
    await app.register(brandingRoutes, { prefix: '/v1', branding: rt.branding, mode: () => mode });
    await app.ready();
    opened.push({ close: () => void app.close() });
    const as = (token: string | null) =>
      token === null ? {} : { authorization: `Bearer ${token}` };
    const get = (headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url: '/v1/branding', headers });
    const put = (token: string | null, payload: unknown) =>
      app.inject({
        method: 'PUT',
        url: '/v1/branding',
        headers: { ...as(token), 'content-type': 'application/json' },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    return { ...rt, app, get, put };
  }

  it('answers the defaults to anyone, with no-cache and an ETag', async () => {
    const { get } = await serve();
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(DEFAULT_VIEW);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['etag']).toBe(`"${sha256Of(DEFAULT_VIEW)}"`);
  });

  it('answers GET in every mode, PUT only from configuring on', async () => {
    const { get, put, ledgerStore } = await serve('setup');
    expect((await get()).statusCode).toBe(200);
    const res = await put(ADMIN_TOKEN, BRANDING);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: 'not operating yet', mode: 'setup' });
    expect(ledgerStore.head().seq).toBe(0);
    const configuring = await serve('configuring');
    expect((await configuring.put(ADMIN_TOKEN, BRANDING)).statusCode).toBe(200);
  });

  it('replaces the branding on PUT by an admin and serves it', async () => {
    const { get, put, events } = await serve();
    const res = await put(ADMIN_TOKEN, BRANDING);
    expect(res.statusCode, res.body).toBe(200);
    const view = { ...BRANDING, set_by: 'admin-token', set_at: '2026-11-22T00:00:00.000Z' };
    expect(res.json()).toEqual(view);
    expect(res.headers['etag']).toBe(`"${sha256Of(view)}"`);
    const read = await get();
    expect(read.json()).toEqual(view);
    expect(read.headers['etag']).toBe(res.headers['etag']);
    expect(events()).toMatchObject([{ type: 'config.branding_set', actor: 'admin-token' }]);
  });

  it('takes three logos of 500 KB each in one body (bodyLimit above the server default)', async () => {
    const { put } = await serve();
    const big = pngOf(LOGO_MAX_BYTES);
    const body = JSON.stringify({ logos: { light: big, dark: big, mark: big } });
    expect(body.length).toBeGreaterThan(2_000_000);
    const res = await put(ADMIN_TOKEN, body);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.json<{ logos: { mark: string } }>().logos.mark).toBe(big);
  });

  it('attributes the change to `by` only with the admin token', async () => {
    const { put, events } = await serve();
    await put(ADMIN_TOKEN, { name: 'One', by: 'alice' });
    await put(ADMIN_SESSION, { name: 'Two', by: 'mallory' });
    const [first, second] = events();
    expect(first).toMatchObject({ actor: 'alice', data: { via: 'admin-token' } });
    expect(first?.data['branding']).toMatchObject({ name: 'One' });
    expect(second).toMatchObject({ actor: 'ada' });
    expect(second?.data).not.toHaveProperty('via');
    expect(second?.data['branding']).not.toHaveProperty('by');
  });

  it('answers 304 to a matching If-None-Match, and 200 again once the branding changed', async () => {
    const { get, put } = await serve();
    const etag = (await get()).headers['etag'] as string;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await get({ 'if-none-match': header });
      expect(res.statusCode, header).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers['etag']).toBe(etag);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    expect((await get({ 'if-none-match': '"other"' })).statusCode).toBe(200);
    await put(ADMIN_TOKEN, {});
    const after = await get({ 'if-none-match': etag });
    expect(after.statusCode).toBe(200);
    expect(after.headers['etag']).not.toBe(etag);
  });

  it('asks for a credential on PUT (401), and for the admin role (403)', async () => {
    const { put, ledgerStore } = await serve();
    const anonymous = await put(null, BRANDING);
    expect(anonymous.statusCode).toBe(401);
    const viewer = await put(VIEWER_TOKEN, BRANDING);
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toMatchObject({ error: 'role_required', role: 'admin' });
    expect(ledgerStore.head().seq).toBe(0);
  });

  it('answers 413 to a body over 2.5 MiB and records nothing', async () => {
    const { put, ledgerStore } = await serve();
    const res = await put(ADMIN_TOKEN, {
      logos: { light: `data:image/png;base64,${'A'.repeat(3_000_000)}` },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'fst_err_ctp_body_too_large' });
    expect(ledgerStore.head().seq).toBe(0);
  });

  it.each([
    ['a bad accent', { accent: 'teal' }, 'accent'],
    ['a bad theme', { theme: 'sepia' }, 'theme'],
    ['a name too long', { name: 'n'.repeat(81) }, 'name'],
    ['an unknown field', { ...BRANDING, colour: 'red' }, 'colour'],
    [
      'an unknown field in a link',
      { support: [{ label: 'a', url: 'https://a.b', x: 1 }] },
      'support.0.x',
    ],
    [
      'a support link that is not http or mailto',
      { support: [{ label: 'a', url: 'file:///etc/passwd' }] },
      'support.0.url',
    ],
    [
      'a logo of a wrong type',
      { logos: { light: 'data:image/gif;base64,R0lGODlh' } },
      'logos.light',
    ],
    [
      'a PNG whose bytes are not PNG',
      { logos: { dark: png(Buffer.from('GIF89a....')) } },
      'logos.dark',
    ],
    [
      'an SVG with a script',
      { logos: { mark: svg('<svg><script>alert(1)</script></svg>') } },
      'logos.mark',
    ],
  ])('answers %s with 400 naming the field, and records nothing', async (_what, doc, field) => {
    const { put, ledgerStore } = await serve();
    const res = await put(ADMIN_TOKEN, doc);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field });
    expect(res.json<{ message: string }>().message).toContain(field);
    expect(ledgerStore.head().seq).toBe(0);
  });

  it('answers a 600 KB logo with 400 naming logos.light and the size found', async () => {
    const { put, ledgerStore } = await serve();
    const res = await put(ADMIN_TOKEN, { logos: { light: pngOf(614_400) } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'invalid_input',
      field: 'logos.light',
      bytes: 614_400,
      limit: 512_000,
      message: 'logos.light is 614,400 bytes decoded; a logo may be at most 512,000 bytes (500 KB)',
    });
    expect(ledgerStore.head().seq).toBe(0);
  });
});

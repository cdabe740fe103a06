// The console's files at `/`: pages answer index.html with a strict CSP, hashed assets are
// kept for a year, and the API keeps its JSON 404 for unknown paths.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestServer, type TestServer } from '../testing/test-server.js';
import { consoleDir } from './console.routes.js';

const dir = consoleDir();
/** What a browser sends when it follows a link. */
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

describe.skipIf(dir === null)('the console at /', () => {
  it.each([
    '/',
    '/live',
    '/episodes?service=payments',
    '/episodes/ep-20261122T100000Z-abcdef',
    '/audit',
  ])('%s answers the app with a strict CSP', async (url) => {
    const res = await server.app.inject({ method: 'GET', url, headers: { accept: HTML } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<div id="root">');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets with a long cache', async () => {
    const js = readdirSync(join(dir ?? '', 'assets')).find((f) => f.endsWith('.js'));
    const res = await server.app.inject({ method: 'GET', url: `/assets/${js ?? ''}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('a page asked for by a script (no text/html) is the JSON 404', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/live',
      headers: { accept: '*/*' },
    });
    expect(res.statusCode).toBe(404);
  });

  it.each(['/v1/nothing', '/assets/missing.js', '/metrics/x'])(
    '%s stays a JSON 404',
    async (url) => {
      const res = await server.app.inject({ method: 'GET', url, headers: { accept: HTML } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    },
  );
});

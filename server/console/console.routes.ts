// The console's static files at `/` (built by Vite into dist/console), with the pages of the
// single-page app answered by its index.html. The API stays under /v1 and keeps its JSON 404.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../shared/errors.js';

/** Built files sit in dist/console: beside the bundle (dist/), above it (dist/main/), or two up from the source. */
export function consoleDir(): string | null {
  for (const rel of ['./console/', '../console/', '../../dist/console/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

/** Scripts, styles and connections only from this origin; logos arrive as data: images. */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Paths that are never pages of the console. */
const NOT_PAGES = /^\/(v1|metrics|health)(\/|$)/;

export async function consoleRoutes(app: FastifyInstance, { dir }: { dir: string | null }) {
  if (dir === null) {
    app.get('/', { schema: { hide: true } }, async (_req, reply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send(
          'The console is not built: run `node build/bundle.mjs` (npm start does). The API is at /v1.',
        ),
    );
    return;
  }
  const index = readFileSync(join(dir, 'index.html'));
  await app.register(fastifyStatic, {
    root: dir,
    wildcard: false,
    index: false,
    cacheControl: false,
    // Hashed file names: an asset never changes, so it may be kept for a year.
    setHeaders: (res, path) => {
      res.setHeader(
        'cache-control',
        path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  app.get('/*', { schema: { hide: true } }, async (req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    // Browsers ask for HTML; a script that asks for anything else gets the API's JSON 404.
    const wantsPage = (req.headers.accept ?? '').includes('text/html');
    if (!wantsPage || NOT_PAGES.test(path) || path.startsWith('/assets/')) {
      throw new NotFoundError('not_found', `no route ${req.method} ${path}`);
    }
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(index);
  });
}

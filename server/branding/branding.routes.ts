import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import { BRANDING_BODY_LIMIT, BrandingInput, BrandingView } from './branding.schemas.js';
import type { BrandingService } from './branding.service.js';

/** Whether an If-None-Match header names this entity tag (weak comparison, RFC 9110 13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .includes(etag);
}

export const brandingRoutes: FastifyPluginAsyncTypebox<{
  branding: BrandingService;
  mode: () => Mode;
}> = async (app, { branding, mode }) => {
  // Open to anyone in every mode: the sign-in page and the setup screens show it.
  app.get(
    '/branding',
    {
      schema: {
        summary: 'Name, logos, theme, accent colour and support links (no credential needed)',
        tags: ['branding'],
        response: {
          200: BrandingView,
          304: Type.Null({ description: 'not modified: If-None-Match names the ETag' }),
        },
      },
    },
    async (req, reply) => {
      const { branding: view, sha256 } = branding.get();
      const etag = `"${sha256}"`;
      void reply.header('cache-control', 'no-cache').header('etag', etag);
      if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return view;
    },
  );
  app.put(
    '/branding',
    {
      // Three logos of 500 KB in base64 plus the JSON around them; 413 beyond.
      bodyLimit: BRANDING_BODY_LIMIT,
      schema: {
        summary: 'Replace the branding; missing fields take their defaults',
        tags: ['branding'],
        body: BrandingInput,
        response: { 200: BrandingView, ...errorResponses, 413: ErrorBody },
      },
      onRequest: [app.requireRole('admin'), requireMode(mode, 'configuring')],
    },
    async (req, reply) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const { by, ...input } = req.body;
      const { branding: view, sha256 } = await branding.put(input, actorOf(req.principal, by));
      void reply.header('cache-control', 'no-cache').header('etag', `"${sha256}"`);
      return view;
    },
  );
};

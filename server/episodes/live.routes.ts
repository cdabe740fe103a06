// GET /v1/live/stream: server-sent events carrying the ledger's seq when it moves, so that a
// console fetches GET /v1/live only then. Same credential and role as GET /v1/live; the
// answer is written by hand (hijacked), so no hook compresses or buffers it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { bearerOf } from '../http/auth.js';
import { errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import { roleAtLeast } from '../shared/roles.js';
import type { Principal } from '../shared/types.js';
import type { LiveHub } from './live-stream.js';

/** Streams are counted per person (all their sessions), or per token. */
const callerKey = (p: Principal): string => (p.kind === 'session' ? `user:${p.userId}` : p.kind);

/** The Last-Event-ID a reconnecting client sends: the seq it last saw, or null. */
function lastEventId(header: string | string[] | undefined): number | null {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || !/^\d{1,15}$/.test(text.trim())) return null;
  return Number(text.trim());
}

export const liveStreamRoutes: FastifyPluginAsyncTypebox<{
  hub: LiveHub;
  mode: () => Mode;
}> = async (app, { hub, mode }) => {
  // A stream never ends by itself: end them all before the server waits for its connections.
  app.addHook('preClose', async () => {
    hub.close();
  });
  app.get(
    '/live/stream',
    {
      schema: {
        summary:
          'Server-sent events: `event: seq` with `id` and data {seq} when the ledger seq moves (at most a few a second), a comment heartbeat every 15 s, `retry:`; Last-Event-ID honoured. Ends on sign-out, session expiry or loss of access (`event: end`), and when the service stops',
        tags: ['incidents'],
        response: {
          200: {
            description: 'text/event-stream',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          ...errorResponses,
        },
      },
      onRequest: [app.requireRole('viewer'), requireMode(mode, 'configuring')],
    },
    async (req, reply) => {
      const principal = req.principal;
      const token = bearerOf(req);
      if (principal === null || token === null) {
        throw new Error('requireRole let an anonymous call through');
      }
      const stream = hub.open(
        {
          key: callerKey(principal),
          allowed: () => {
            const now = app.principalOf(token);
            return now !== null && now.role !== null && roleAtLeast(now.role, 'viewer');
          },
        },
        {
          start: () => {
            reply.hijack();
            reply.raw.writeHead(200, {
              'content-type': 'text/event-stream; charset=utf-8',
              'cache-control': 'no-cache, no-transform',
              // nginx and the like would otherwise hold events back in their buffers.
              'x-accel-buffering': 'no',
            });
            reply.raw.flushHeaders();
          },
          write: (chunk) => {
            reply.raw.write(chunk);
          },
          end: () => {
            reply.raw.end();
          },
        },
        lastEventId(req.headers['last-event-id']),
      );
      reply.raw.on('close', () => {
        stream.close();
      });
    },
  );
};

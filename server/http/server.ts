import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import addFormats from 'ajv-formats';
import type { Logger } from 'pino';
import { useCompression } from './compression.js';
import { installErrorHandler } from './errors.js';
import { useStrictJson } from './json-body.js';

/** Paths pino must never print: credentials in headers, and secret-looking fields anywhere. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  // Top level too: '*.token' does not match a `token` key of the logged object itself.
  'token',
  'password',
  'secret',
  'passphrase',
  'authorization',
  '*.token',
  '*.password',
  '*.secret',
  '*.passphrase',
  '*.authorization',
  '*.*.token',
  '*.*.password',
  '*.*.secret',
  '*.*.passphrase',
];

export interface HttpOptions {
  readonly log: Logger;
  readonly bodyLimit?: number;
  /**
   * Proxies whose X-Forwarded-For names the client (SVC_TRUST_PROXY). Empty: req.ip is the
   * socket's address, so nobody can choose the address the sign-in throttle counts.
   */
  readonly trustProxy?: readonly string[];
}

export function createHttpServer(options: HttpOptions) {
  const app = Fastify({
    loggerInstance: options.log,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy:
      options.trustProxy !== undefined && options.trustProxy.length > 0
        ? [...options.trustProxy]
        : false,
    // Alert sources and scripts send slow bodies rarely; a stuck client must not hold a socket.
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    keepAliveTimeout: 10_000,
    return503OnClosing: true,
    ajv: {
      customOptions: {
        // Query strings arrive as text: coerce to the declared types. Unknown body fields
        // are a 400 (additionalProperties: false), never silently dropped.
        coerceTypes: 'array',
        removeAdditional: false,
        useDefaults: true,
        allErrors: false,
      },
      plugins: [addFormats.default as never],
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandler(app as unknown as FastifyInstance);
  // Duplicate keys and overflowing numbers are a 400 on every JSON body (json-body.ts).
  useStrictJson(app as unknown as FastifyInstance);
  // Registered before any route, so that every route gets its compressing hook.
  useCompression(app as unknown as FastifyInstance);
  return app;
}
export type HttpServer = ReturnType<typeof createHttpServer>;

import pino, { type Logger } from 'pino';
import { REDACT_PATHS } from './http/server.js';
import { pathOnly } from './shared/url.js';

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * Fastify's request serializer, but with the path only: a session token, an approval
 * link's token or a single sign-on code in a query string never reaches a log line.
 */
function request(req: LoggedRequest) {
  return {
    method: req.method,
    url: pathOnly(req.url ?? ''),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** Structured JSON logs on stdout, secrets redacted, URLs without query strings. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '***' },
    base: { svc: 'svc' },
    serializers: { req: request },
  };
  return destination ? pino(options, destination) : pino(options);
}

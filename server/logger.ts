import pino, { type Logger } from 'pino';
import { REDACT_PATHS } from './http/server.js';

/** Structured JSON logs on stdout, secrets redacted. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '***' }, base: { svc: 'svc' } };
  return destination ? pino(options, destination) : pino(options);
}

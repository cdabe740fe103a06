// A trace logger whose lines a test can read (what the service logged, secrets masked).
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../logger.js';

export function capturedLogger(): { readonly log: Logger; readonly lines: string[] } {
  const lines: string[] = [];
  const log = createLogger(
    'trace',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  return { log, lines };
}

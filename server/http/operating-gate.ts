import type { onRequestAsyncHookHandler } from 'fastify';
import { NotOperatingError } from '../shared/errors.js';
import { modeAtLeast, type Mode } from '../shared/mode.js';

/** Throws 503 `{error: 'not_operating', mode}` while the service is below `needed`. */
export function assertMode(mode: Mode, needed: Mode): void {
  if (!modeAtLeast(mode, needed)) {
    throw new NotOperatingError(
      'not_operating',
      `this call needs mode ${needed}; the service is in ${mode}`,
      { mode },
    );
  }
}

/** A hook that answers 503 while the service is below `needed`. */
export function requireMode(currentMode: () => Mode, needed: Mode): onRequestAsyncHookHandler {
  return async () => {
    assertMode(currentMode(), needed);
  };
}

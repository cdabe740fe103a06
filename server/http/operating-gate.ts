import type { onRequestAsyncHookHandler } from 'fastify';
import { NotOperatingError } from '../shared/errors.js';
import { modeAtLeast, type Mode } from '../shared/mode.js';

/** 503 `{error: 'not operating yet', mode}` while the service is below `needed`. */
export function requireMode(currentMode: () => Mode, needed: Mode): onRequestAsyncHookHandler {
  return async () => {
    const mode = currentMode();
    if (!modeAtLeast(mode, needed)) {
      throw new NotOperatingError(
        'not_operating',
        `this call needs mode ${needed}; the service is in ${mode}`,
        { mode },
      );
    }
  };
}

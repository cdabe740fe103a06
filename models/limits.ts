// Timeout and concurrency around a transport (the endpoint client's HTTP calls, the local
// runtime): one deadline covers the wait for a slot and the call, so a busy model never
// stalls an episode.
import { createLimiter } from './limiter.js';
import { ModelError } from './types.js';
import type { ModelClient } from './types.js';

export function withLimits(
  inner: ModelClient,
  options: { timeoutS: number; concurrency: number },
): ModelClient {
  const limiter = createLimiter(options.concurrency);
  return {
    async call(request, signal) {
      const deadline = AbortSignal.timeout(options.timeoutS * 1000);
      const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
      try {
        return await limiter.run(() => inner.call(request, combined), combined);
      } catch (err) {
        if (err instanceof ModelError) throw err;
        if (deadline.aborted && !signal?.aborted) {
          throw new ModelError(
            'timeout',
            `model call "${request.purpose}" abandoned after ${String(options.timeoutS)} s`,
            { purpose: request.purpose },
          );
        }
        throw err;
      }
    },
  };
}

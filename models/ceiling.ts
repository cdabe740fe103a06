// Daily token ceiling (SVC_MODEL_DAILY_TOKENS, SVC_S1_DAILY_TOKENS): prompt + completion tokens
// per UTC day. Once spent, calls fail fast with ceiling_spent until 00:00 UTC, so callers skip
// model steps instead of paying. Replayed (cached) answers cost nothing and are not counted.
// Calls already in flight when the ceiling is reached may overshoot it by their own size.
import { ModelError, systemClock } from './types.js';
import type { ModelClient, ModelClock } from './types.js';

export interface CeilingState {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  used: number;
  /** 0: no ceiling. */
  limit: number;
}

export interface CeilingClient extends ModelClient {
  state(): CeilingState;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function nextUtcMidnight(ms: number): string {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

export function withCeiling(
  inner: ModelClient,
  options: { dailyTokens: number; clock?: ModelClock },
): CeilingClient {
  const clock = options.clock ?? systemClock;
  const limit = options.dailyTokens;
  let day = utcDay(clock.now());
  let used = 0;

  // Counting restarts at the first call of a new UTC day.
  function roll(): void {
    const today = utcDay(clock.now());
    if (today !== day) {
      day = today;
      used = 0;
    }
  }

  return {
    async call(request, signal) {
      roll();
      if (limit > 0 && used >= limit) {
        const until = nextUtcMidnight(clock.now());
        throw new ModelError(
          'ceiling_spent',
          `daily model token ceiling of ${limit} spent; "${request.purpose}" skipped until ${until}`,
          { purpose: request.purpose, until },
        );
      }
      const answer = await inner.call(request, signal);
      if (!answer.cached) {
        roll();
        used += answer.usage.prompt_tokens + answer.usage.completion_tokens;
      }
      return answer;
    },
    state() {
      roll();
      return { day, used, limit };
    },
  };
}

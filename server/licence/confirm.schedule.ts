// Confirmation off the request path (licence.md §3.6): once at start, then hourly (or when
// the authority's answer says) with ±10% jitter so that a fleet does not ask in step; a failed
// check is retried sooner, after 5–15 minutes. Nothing here ever disables the service: strict
// mode's 72 hours are judged by the licence view, not by this loop.
import type { Logger } from 'pino';
import type { Confirmation } from './confirm.js';

export const CONFIRM_EVERY_MS = 3_600_000;
const RETRY_MIN_MS = 5 * 60_000;
const MAX_WAIT_MS = 24 * 3_600_000;

/** The wait before the next check, from what the last one found. */
export function nextCheckInMs(
  outcome: { confirmed: boolean; asked: boolean; next_check_after_s: number | null } | null,
  random: () => number,
): number {
  if (outcome?.asked === true && !outcome.confirmed) return RETRY_MIN_MS * (1 + 2 * random());
  const base = Math.min(
    MAX_WAIT_MS,
    Math.max(60_000, (outcome?.next_check_after_s ?? CONFIRM_EVERY_MS / 1000) * 1000),
  );
  return Math.round(base * (0.9 + 0.2 * random()));
}

export function startConfirmSchedule(
  confirm: Pick<Confirmation, 'check'>,
  log: Pick<Logger, 'error'>,
  random: () => number = Math.random,
): () => Promise<void> {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let inflight: Promise<void> | null = null;
  const closing = new AbortController();
  const plan = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      inflight = tick('schedule');
    }, ms);
    timer.unref();
  };
  const tick = async (trigger: 'schedule' | 'start'): Promise<void> => {
    let next = CONFIRM_EVERY_MS;
    try {
      next = nextCheckInMs(await confirm.check(trigger, closing.signal), random);
    } catch (err) {
      log.error({ err }, 'licence: the confirmation check failed');
      next = nextCheckInMs({ confirmed: false, asked: true, next_check_after_s: null }, random);
    }
    plan(next);
  };
  // At start, but after start-up has finished: never on anyone's request path.
  const first = setImmediate(() => {
    inflight = tick('start');
  });
  // Stopping cuts a check in flight (its exchange aborts) and waits for it to be recorded.
  return async () => {
    stopped = true;
    clearImmediate(first);
    if (timer !== null) clearTimeout(timer);
    closing.abort();
    await inflight;
  };
}

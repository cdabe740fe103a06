// The licence's own clock: once a minute (and on SIGHUP, as Consul reloads on `consul
// reload`) the high-water mark moves, the mounted file and revocation list are re-read and
// the stages are recorded. A failed tick is logged and the next one tries again.
import type { Logger } from 'pino';
import type { LicenceService } from './licence.service.js';

export const LICENCE_TICK_MS = 60_000;

export function startLicenceSchedule(
  licence: Pick<LicenceService, 'tick'>,
  log: Pick<Logger, 'error'>,
  everyMs = LICENCE_TICK_MS,
): () => void {
  let running: Promise<void> | null = null;
  const tick = (): void => {
    running ??= licence
      .tick()
      .catch((err: unknown) => {
        log.error({ err }, 'licence: the periodic check failed');
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  process.on('SIGHUP', tick);
  return () => {
    clearInterval(timer);
    process.off('SIGHUP', tick);
  };
}

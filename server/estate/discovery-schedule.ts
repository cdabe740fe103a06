// Discovery runs by itself: soon after the first connection works (so a new install learns
// its estate without anyone pressing a button, and checks that need the estate can read),
// then every DISCOVERY_EVERY_MS. A run under way is joined, never doubled; the timer never
// keeps the process alive and stop() waits for a run it started.
import type { Logger } from 'pino';

/** How often the estate is rebuilt (docs/decisions.md: no variable in the specification). */
export const DISCOVERY_EVERY_MS = 60 * 60 * 1000;
/** How often the schedule looks whether a run is due. */
const DISCOVERY_TICK_MS = 15_000;

export interface DiscoveryScheduleDeps {
  /** starts discovery (or joins the run under way) as `system` */
  readonly discover: () => { readonly done: Promise<void> };
  /** a connection works now (the service is operating) */
  readonly working: () => boolean;
  /** when discovery last read a connector (ISO-8601), or null: never */
  readonly lastRun: () => string | null;
  readonly now: () => number;
  readonly everyMs?: number;
  readonly tickMs?: number;
  readonly log: Pick<Logger, 'info' | 'warn'>;
}

export function createDiscoverySchedule(deps: DiscoveryScheduleDeps) {
  const everyMs = deps.everyMs ?? DISCOVERY_EVERY_MS;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> | null = null;

  /** Whether a run is due now: a connection works, and none ran yet or the last is old. */
  function due(): boolean {
    if (!deps.working()) return false;
    const last = deps.lastRun();
    return last === null || deps.now() - Date.parse(last) >= everyMs;
  }

  function tick(): Promise<void> | null {
    if (inFlight !== null || !due()) return null;
    deps.log.info({ first: deps.lastRun() === null }, 'discovery: scheduled run');
    inFlight = deps
      .discover()
      .done.catch((err: unknown) => deps.log.warn({ err }, 'discovery: scheduled run failed'))
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  return {
    /** Looks now and then every tick. */
    start(): void {
      if (timer !== null) return;
      void tick();
      timer = setInterval(() => void tick(), deps.tickMs ?? DISCOVERY_TICK_MS);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer !== null) clearInterval(timer);
      timer = null;
      await inFlight;
    },
    /** One look, for tests: the run it started, or null when none was due. */
    tick,
  };
}

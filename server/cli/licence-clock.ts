// svc-core licence clock-reset (licence.md §3.8): after the clock jumped forward and back, the
// licence's high-water mark stays ahead and may end a licence early. With no authority to sign
// the time, an owner on the host moves the mark back to the wall clock: with the service
// stopped (the data folder's lock), at most once in 30 days, and only when the wall clock is
// not before the newest ledger event. It is recorded (licence.clock_reset, source cli) and
// reported by the next usage statement.
import { userInfo } from 'node:os';
import type { Clock } from '../shared/clock.js';

type Out = { log(line: string): void; error(line: string): void };

export const CLOCK_RESET_USAGE = `  licence clock-reset [--json]    move the licence clock mark back to this host's clock
                                  (service stopped; once in 30 days)`;

const DAY_MS = 86_400_000;
export const CLOCK_RESET_EVERY_DAYS = 30;

interface Runtime {
  readonly reader: {
    list(q: { type?: string; limit?: number }): {
      events: readonly { ts: string; data: Record<string, unknown> }[];
    };
  };
  readonly licence: {
    hwm(): number;
    resetClock(toMs: number, actor: string): Promise<{ from: string; to: string } | null>;
  };
}

export async function clockResetCommand(
  rt: Runtime,
  out: Out,
  opts: { json: boolean; clock: Clock },
): Promise<number> {
  const now = opts.clock.now();
  const newest = rt.reader.list({ limit: 1 }).events[0]?.ts ?? null;
  if (newest !== null && now < Date.parse(newest)) {
    out.error(
      `the clock here (${new Date(now).toISOString()}) is before the newest ledger event (${newest}): set the clock right first`,
    );
    return 1;
  }
  const last = rt.reader
    .list({ type: 'licence.clock_reset', limit: 100 })
    .events.find((e) => e.data['source'] === 'cli');
  if (last !== undefined && now - Date.parse(last.ts) < CLOCK_RESET_EVERY_DAYS * DAY_MS) {
    out.error(
      `the clock mark was reset on ${last.ts}: at most once in ${String(CLOCK_RESET_EVERY_DAYS)} days (next from ${new Date(Date.parse(last.ts) + CLOCK_RESET_EVERY_DAYS * DAY_MS).toISOString()})`,
    );
    return 1;
  }
  const moved = await rt.licence.resetClock(now, `host:${userInfo().username}`);
  if (opts.json) {
    out.log(
      JSON.stringify({
        reset: moved !== null,
        ...(moved ?? { hwm: new Date(rt.licence.hwm()).toISOString() }),
      }),
    );
    return 0;
  }
  out.log(
    moved === null
      ? `nothing to reset: the mark (${new Date(rt.licence.hwm()).toISOString()}) is not ahead of this host's clock`
      : `the licence clock mark moved back from ${moved.from} to ${moved.to}; recorded as licence.clock_reset and reported in the next usage statement`,
  );
  return 0;
}

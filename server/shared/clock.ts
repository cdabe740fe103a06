export interface Clock {
  now(): number;
  nowIso(): string;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  nowIso: () => new Date().toISOString(),
};

/** A clock tests can move by hand. */
export function createFakeClock(startIso = '2026-01-01T00:00:00.000Z'): Clock & {
  advance(ms: number): void;
  set(iso: string): void;
} {
  let t = Date.parse(startIso);
  return {
    now: () => t,
    nowIso: () => new Date(t).toISOString(),
    advance: (ms) => {
      t += ms;
    },
    set: (iso) => {
      t = Date.parse(iso);
    },
  };
}

// Whether the service answers (console brief C.1, D.1 "stale"). Every call through api.ts
// reports here: a call the network refuses, or a gateway's 502/504, marks the link lost;
// any answer the service gives itself (a 4xx or its own 503 included) marks it back. While
// lost, a light probe (GET /health, no credential) asks every few seconds, so the console
// mends itself even where nothing else is polling (the live stream backs off for a minute).

/** How often the probe asks while the service cannot be reached. */
const PROBE_MS = 2000;

export interface Reach {
  /** false while the service cannot be reached */
  readonly reachable: boolean;
  /** when the data shown was last known current (ms since the epoch); null: never */
  readonly asOf: number | null;
}

let state: Reach = { reachable: true, asOf: null };
/** The last answer's time: not in `state`, so that an answer re-renders nothing. */
let lastAnswer: number | null = null;
let probe: ReturnType<typeof setInterval> | null = null;
const listeners = new Set<() => void>();
const backListeners = new Set<() => void>();

function set(next: Reach): void {
  state = next;
  for (const l of listeners) l();
}

function stopProbe(): void {
  if (probe !== null) clearInterval(probe);
  probe = null;
}

/** A gateway's answer for a service behind it that does not answer. */
const gatewayDown = (status: number): boolean => status === 502 || status === 504;

export const connection = {
  get: (): Reach => state,
  subscribe: (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** Called once each time the service answers again after it could not be reached. */
  onBack: (listener: () => void): (() => void) => {
    backListeners.add(listener);
    return () => backListeners.delete(listener);
  },
  /** The service answered (whatever it said). */
  answered(): void {
    lastAnswer = Date.now();
    if (state.reachable) return;
    stopProbe();
    set({ reachable: true, asOf: lastAnswer });
    for (const l of backListeners) l();
  },
  /** Data was current now without a call (the live stream is up). */
  current(): void {
    lastAnswer = Date.now();
  },
  /**
   * A call begun at `startedAt` got no answer. Ignored when an answer came after it began
   * (a call cut off by a restart already mended).
   */
  failed(startedAt: number): void {
    if (lastAnswer !== null && lastAnswer > startedAt) return;
    if (!state.reachable) return;
    set({ reachable: false, asOf: lastAnswer });
    probe ??= setInterval(() => {
      const began = Date.now();
      fetch('/health', { cache: 'no-store' }).then(
        (res) => {
          if (gatewayDown(res.status)) connection.failed(began);
          else connection.answered();
        },
        () => undefined,
      );
    }, PROBE_MS);
  },
};

/** fetch, reporting to `connection` whether the service answered. */
export async function reaching(input: string, init?: RequestInit): Promise<Response> {
  const started = Date.now();
  let res: Response;
  try {
    res = await fetch(input, init);
  } catch (err) {
    // An abort is the page's own doing, not the network's.
    if (!(err instanceof DOMException && err.name === 'AbortError')) connection.failed(started);
    throw err;
  }
  if (gatewayDown(res.status)) connection.failed(started);
  else connection.answered();
  return res;
}

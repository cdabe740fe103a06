// GET /v1/live/stream's hub: every open stream hears the ledger's seq when it moves, from
// one commit listener (no polling, no listener per stream). Bursts coalesce: the first commit
// after a quiet spell goes out on the next turn, later ones at most every `coalesceMs`. A
// comment line every `heartbeatMs` keeps proxies from closing an idle stream, and is also
// when each caller's credential is checked again (a session that expired ends its stream);
// a commit that can change who may read (sign-out, a person disabled) checks at once.
import { ServiceError } from '../shared/errors.js';

/** Too many streams open, for this caller or in all: 503, retry later (or poll). */
export class StreamLimitError extends ServiceError {
  override readonly kind = 'unavailable';
}

/** Where a stream's text goes: the HTTP answer, once admitted. */
export interface LiveSink {
  /** Called once, after admission and before the first write (send the headers). */
  start(): void;
  write(chunk: string): void;
  end(): void;
}

/** Who holds a stream: a key to count by, and whether they may still read. */
export interface LiveCaller {
  readonly key: string;
  /** Checked on heartbeats and access changes; false ends the stream. */
  readonly allowed: () => boolean;
}

export interface LiveHubOptions {
  /** The ledger's last committed seq. */
  readonly seq: () => number;
  /** Whether a committed event type can change who may read (sign-out, a person changed). */
  readonly touchesAccess: (type: string) => boolean;
  readonly coalesceMs?: number;
  readonly heartbeatMs?: number;
  /** What the client waits before reconnecting (`retry:`). */
  readonly retryMs?: number;
  readonly maxPerCaller?: number;
  readonly maxTotal?: number;
}

export const LIVE_STREAM_DEFAULTS = {
  coalesceMs: 250,
  heartbeatMs: 15_000,
  retryMs: 3000,
  // A browser holds at most 6 HTTP/1.1 connections per host for all its tabs: a person's
  // fifth tab polls instead, so that streams never take every connection the pages need.
  maxPerCaller: 4,
  maxTotal: 500,
} as const;

export interface LiveStream {
  /** The client went away: forget the stream (idempotent). */
  close(): void;
}

interface Open {
  readonly caller: LiveCaller;
  readonly sink: LiveSink;
  sent: number;
}

const event = (seq: number): string =>
  `id: ${String(seq)}\nevent: seq\ndata: {"seq":${String(seq)}}\n\n`;

export function createLiveHub(options: LiveHubOptions) {
  const o = { ...LIVE_STREAM_DEFAULTS, ...options };
  const streams = new Set<Open>();
  const perCaller = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  let lastFlush = 0;
  let recheck = false;
  let closed = false;

  function drop(s: Open, why: string | null): void {
    if (!streams.delete(s)) return;
    const left = (perCaller.get(s.caller.key) ?? 1) - 1;
    if (left <= 0) perCaller.delete(s.caller.key);
    else perCaller.set(s.caller.key, left);
    if (why !== null) {
      // Say why, so that a client stops instead of reconnecting into a 401.
      s.sink.write(`event: end\ndata: ${JSON.stringify({ reason: why })}\n\n`);
    }
    s.sink.end();
    if (streams.size === 0) stopTimers();
  }

  function stopTimers(): void {
    if (timer !== null) clearTimeout(timer);
    if (heartbeat !== null) clearInterval(heartbeat);
    timer = null;
    heartbeat = null;
  }

  function checkAccess(): void {
    for (const s of [...streams]) {
      let ok = false;
      try {
        ok = s.caller.allowed();
      } catch {
        // A store that cannot answer now: keep the stream; the next check decides.
        ok = true;
      }
      if (!ok) drop(s, 'signed_out');
    }
  }

  function flush(): void {
    timer = null;
    lastFlush = performance.now();
    if (recheck) {
      recheck = false;
      checkAccess();
    }
    const seq = o.seq();
    const text = event(seq);
    for (const s of streams) {
      if (s.sent === seq) continue;
      s.sent = seq;
      s.sink.write(text);
    }
  }

  function schedule(): void {
    if (timer !== null || closed || streams.size === 0) return;
    const wait = Math.max(0, lastFlush + o.coalesceMs - performance.now());
    timer = setTimeout(flush, wait);
    timer.unref();
  }

  function beat(): void {
    checkAccess();
    for (const s of streams) s.sink.write(': hb\n\n');
  }

  return {
    /**
     * Open a stream for `caller`: throws StreamLimitError (nothing written) past the caps.
     * Sends `retry:` and, unless `lastEventId` is the seq now, the current seq at once.
     */
    open(caller: LiveCaller, sink: LiveSink, lastEventId: number | null): LiveStream {
      if (closed) throw new StreamLimitError('shutting_down', 'the service is stopping');
      const mine = perCaller.get(caller.key) ?? 0;
      if (mine >= o.maxPerCaller) {
        throw new StreamLimitError(
          'too_many_streams',
          `at most ${String(o.maxPerCaller)} live streams per caller are open at once; close one, or poll GET /v1/live`,
        );
      }
      if (streams.size >= o.maxTotal) {
        throw new StreamLimitError(
          'too_many_streams',
          `the service holds its limit of ${String(o.maxTotal)} live streams; poll GET /v1/live meanwhile`,
        );
      }
      const s: Open = { caller, sink, sent: -1 };
      streams.add(s);
      perCaller.set(caller.key, mine + 1);
      sink.start();
      sink.write(`retry: ${String(o.retryMs)}\n: live seq stream\n\n`);
      const seq = o.seq();
      if (lastEventId !== seq) {
        s.sent = seq;
        sink.write(event(seq));
      } else {
        s.sent = seq;
      }
      if (heartbeat === null) {
        heartbeat = setInterval(beat, o.heartbeatMs);
        heartbeat.unref();
      }
      return { close: () => drop(s, null) };
    },
    /** A ledger commit listener: the seq moved. */
    committed(event: { readonly type: string }): void {
      if (o.touchesAccess(event.type)) recheck = true;
      schedule();
    },
    /** End every stream (server close) and refuse new ones; never waits on a client. */
    close(): void {
      closed = true;
      for (const s of [...streams]) drop(s, 'closing');
      stopTimers();
    },
    /** Open streams, in all or of one caller (tests count them for leaks). */
    size: (key?: string): number => (key === undefined ? streams.size : (perCaller.get(key) ?? 0)),
    /** Whether a heartbeat or a pending flush holds a timer (none when no stream is open). */
    timers: (): number => (timer === null ? 0 : 1) + (heartbeat === null ? 0 : 1),
  };
}
export type LiveHub = ReturnType<typeof createLiveHub>;

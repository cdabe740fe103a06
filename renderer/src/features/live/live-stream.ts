// How the console learns that the ledger moved: one GET /v1/live/stream per tab (server-sent
// events), shared by every part of the page that follows the live view. It is read with fetch
// because EventSource cannot send the Authorization header. While the stream is down (503 at
// the cap, a proxy that refuses it, the network) `streaming` is false and the live query
// polls GET /v1/live with If-None-Match instead; the stream is tried again after `retry:`,
// backing off while it keeps failing.
import { session } from '../../shared/api.js';

/** Longest wait between tries of a stream that keeps failing. */
const MAX_RETRY_MS = 60_000;
/** Shortest wait between tries in a hidden tab (it polls every 30 s meanwhile). */
const HIDDEN_RETRY_MS = 30_000;

interface SseEvent {
  event: string;
  data: string;
  id: string | null;
  retry: number | null;
}

/** One block of the stream (lines up to a blank line); comments (`:`) are skipped. */
export function parseEvent(block: string): SseEvent {
  const e: SseEvent = { event: 'message', data: '', id: null, retry: null };
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') e.event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') e.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) e.retry = Number(value);
  }
  e.data = data.join('\n');
  return e;
}

/**
 * Whether the tab is hidden (another tab in front, a minimised window): the stream stays open
 * then, since it costs nothing while nothing moves, but polling slows right down.
 */
export const pageVisibility = {
  hidden: (): boolean => document.visibilityState === 'hidden',
  subscribe: (listener: () => void): (() => void) => {
    document.addEventListener('visibilitychange', listener);
    return () => {
      document.removeEventListener('visibilitychange', listener);
    };
  },
};

const seqListeners = new Set<(seq: number) => void>();
const stateListeners = new Set<() => void>();
let streaming = false;
let stopFollowing: (() => void) | null = null;

function setStreaming(on: boolean): void {
  if (streaming === on) return;
  streaming = on;
  for (const l of stateListeners) l();
}

/** Read the stream until it ends; reconnect after `retry`; stop on `stop()`. */
function follow(): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastId: string | null = null;
  let retryMs = 3000;
  let failures = 0;
  // Each try's number: a try that a newer one replaced leaves state and scheduling alone.
  let tries = 0;

  const later = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        timer = null;
        void connect();
      },
      pageVisibility.hidden() ? Math.max(ms, HIDDEN_RETRY_MS) : ms,
    );
  };

  async function connect(): Promise<void> {
    const token = session.get();
    // Signed out: nothing to follow until a session is back (the subscription below).
    if (stopped || token === null) return;
    const mine = ++tries;
    controller = new AbortController();
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    };
    if (lastId !== null) headers['last-event-id'] = lastId;
    let ended = false;
    try {
      const res = await fetch('/v1/live/stream', {
        headers,
        signal: controller.signal,
        cache: 'no-store',
      });
      if (res.status === 401) {
        // The session ended: the sign-in page follows; the subscription restarts us.
        if (mine === tries) setStreaming(false);
        session.clear();
        return;
      }
      if (!res.ok || res.body === null) throw new Error(`HTTP ${String(res.status)}`);
      failures = 0;
      setStreaming(true);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let cut = buffer.search(/\r?\n\r?\n/); cut >= 0; cut = buffer.search(/\r?\n\r?\n/)) {
          const e = parseEvent(buffer.slice(0, cut));
          buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
          if (e.retry !== null) retryMs = e.retry;
          if (e.id !== null) lastId = e.id;
          if (e.event === 'end') ended = true;
          if (e.event === 'seq') {
            const seq = (JSON.parse(e.data) as { seq?: unknown }).seq;
            if (typeof seq === 'number') for (const l of seqListeners) l(seq);
          }
        }
      }
    } catch {
      // Aborted, refused or cut off: poll meanwhile, and try again below.
      failures++;
    }
    if (mine !== tries) return;
    controller = null;
    setStreaming(false);
    // The server said why it ended (sign-out, stopping): the next try tells which.
    later(ended ? retryMs : Math.min(MAX_RETRY_MS, retryMs * 2 ** Math.min(failures, 5)));
  }

  const unsubscribe = session.subscribe(() => {
    // Another session (or none): start over with its credential.
    tries++;
    controller?.abort();
    controller = null;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    lastId = null;
    failures = 0;
    setStreaming(false);
    void connect();
  });
  // Back in front with a try waiting (hidden tabs wait long): try now.
  const unwatch = pageVisibility.subscribe(() => {
    if (pageVisibility.hidden() || timer === null) return;
    clearTimeout(timer);
    timer = null;
    void connect();
  });
  void connect();
  return () => {
    stopped = true;
    unsubscribe();
    unwatch();
    if (timer !== null) clearTimeout(timer);
    controller?.abort();
  };
}

export const liveStream = {
  /**
   * Hear each seq the stream brings while subscribed; the first listener opens the stream,
   * the last one to leave closes it. Returns the unsubscribe.
   */
  onSeq: (listener: (seq: number) => void): (() => void) => {
    seqListeners.add(listener);
    stopFollowing ??= follow();
    return () => {
      seqListeners.delete(listener);
      if (seqListeners.size > 0) return;
      stopFollowing?.();
      stopFollowing = null;
      setStreaming(false);
    };
  },
  /** Whether the stream is up now (else the live query polls). */
  streaming: (): boolean => streaming,
  subscribe: (listener: () => void): (() => void) => {
    stateListeners.add(listener);
    return () => stateListeners.delete(listener);
  },
};

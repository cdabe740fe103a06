// Transports that carry formatted messages to a syslog collector. None of them throws into
// the caller or blocks the event loop: a message is sent, queued or counted as dropped, and
// problems reach the operator through a rate-limited warning.
//
// Stream transports (tcp, tls, a unix stream socket) share one queue: messages stay in it
// until the socket has taken them, so a connection that breaks loses at most what the
// kernel had already accepted, and the rest is sent again after the reconnect (a collector
// may then see a message twice; `seq` tells them apart). A unix datagram socket (/dev/log
// as journald and rsyslog's imuxsock create it) cannot be written from Node (dgram has no
// unix sockets), so those messages go through util-linux's `logger`, one process per batch.

import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import { MAX_MESSAGE_BYTES, octetFrame, type Formatted } from './format.js';

export interface Stats {
  sent: number;
  dropped: number;
  queued: number;
}

export interface Transport {
  send(message: Formatted): void;
  /** Flushes what it can before `deadlineMs` elapse, then releases everything. */
  close(deadlineMs: number): Promise<void>;
  stats(): Stats;
}

export type Warn = (obj: object, msg: string) => void;

export const WARN_INTERVAL_MS = 30_000;
export const MAX_QUEUE = 1000;
export const BACKOFF_MIN_MS = 250;
export const BACKOFF_MAX_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;
const KEEPALIVE_MS = 60_000;
const LOGGER_BATCH = 100;
const LOGGER_TIMEOUT_MS = 10_000;

/** At most one warning per interval; the next one says how many were held back. */
export function rateLimited(warn: Warn, intervalMs = WARN_INTERVAL_MS, now = Date.now): Warn {
  let last = -Infinity;
  let suppressed = 0;
  return (obj, msg) => {
    const t = now();
    if (t - last < intervalMs) {
      suppressed++;
      return;
    }
    last = t;
    const extra = suppressed > 0 ? { suppressed } : {};
    suppressed = 0;
    try {
      warn({ ...obj, ...extra }, msg);
    } catch {
      // A failing logger must not break forwarding.
    }
  };
}

/** What a warning may say about an error: its code and message, never request data. */
export function describeError(err: unknown): { code?: string; error: string } {
  const e = err as { code?: unknown; message?: unknown };
  const error =
    typeof e?.message === 'string' ? e.message.slice(0, 300) : String(err).slice(0, 300);
  return typeof e?.code === 'string' ? { code: e.code, error } : { error };
}

// ---- stdout -------------------------------------------------------------------------

export function stdoutTransport(out: NodeJS.WritableStream, warn: Warn): Transport {
  let sent = 0;
  let dropped = 0;
  return {
    send(message) {
      try {
        out.write(`${message.line}\n`, (err) => {
          if (err) {
            dropped++;
            warn(
              { destination: 'stdout', ...describeError(err) },
              'syslog: writing to stdout failed',
            );
          } else sent++;
        });
      } catch (err) {
        dropped++;
        warn({ destination: 'stdout', ...describeError(err) }, 'syslog: writing to stdout failed');
      }
    },
    close: async () => {},
    stats: () => ({ sent, dropped, queued: 0 }),
  };
}

// ---- udp ----------------------------------------------------------------------------

/** One datagram per message (the caller keeps them to 2,048 bytes); no queue, no retry. */
export function udpTransport(host: string, port: number, label: string, warn: Warn): Transport {
  const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  socket.on('error', (err) =>
    warn({ destination: label, ...describeError(err) }, 'syslog: UDP socket error'),
  );
  socket.unref();
  let sent = 0;
  let dropped = 0;
  let inFlight = 0;
  let closed = false;

  return {
    send(message) {
      if (closed) {
        dropped++;
        return;
      }
      inFlight++;
      try {
        socket.send(Buffer.from(message.line, 'utf8'), port, host, (err) => {
          inFlight--;
          if (!err) sent++;
          else {
            dropped++;
            warn(
              { destination: label, ...describeError(err) },
              'syslog: sending a UDP datagram failed',
            );
          }
        });
      } catch (err) {
        inFlight--;
        dropped++;
        warn(
          { destination: label, ...describeError(err) },
          'syslog: sending a UDP datagram failed',
        );
      }
    },
    async close(deadlineMs) {
      closed = true;
      await waitUntil(() => inFlight === 0, deadlineMs);
      dropped += inFlight;
      inFlight = 0;
      try {
        socket.close();
      } catch {
        // Already closed.
      }
    },
    stats: () => ({ sent, dropped, queued: inFlight }),
  };
}

// ---- streams ------------------------------------------------------------------------

/** Where a stream transport connects to. */
export interface StreamTarget {
  /** For warnings and `destination`: scheme, host and port, never credentials. */
  readonly label: string;
  /** Starts a connection; ready on `readyEvent`. */
  connect(): net.Socket;
  readonly readyEvent: 'connect' | 'secureConnect';
  /** A unix path: connect errors that mean "a datagram socket", and how to write to one. */
  readonly datagram?: {
    readonly codes: readonly string[];
    deliver(batch: readonly Formatted[], signal: AbortSignal): Promise<void>;
  };
}

export function tcpTarget(host: string, port: number): StreamTarget {
  return {
    label: `tcp://${hostPort(host, port)}`,
    readyEvent: 'connect',
    connect: () => net.connect({ host, port }),
  };
}

/** TLS that verifies the collector: the system CAs, or `ca` when given (tests, private CAs). */
export function tlsTarget(
  host: string,
  port: number,
  ca: string | Buffer | undefined,
): StreamTarget {
  return {
    label: `tls://${hostPort(host, port)}`,
    readyEvent: 'secureConnect',
    connect: () =>
      tls.connect({
        host,
        port,
        // SNI takes names only; an IP address is checked against the certificate's IP SANs.
        ...(net.isIP(host) === 0 ? { servername: host } : {}),
        ...(ca !== undefined ? { ca } : {}),
      }),
  };
}

/**
 * A unix socket path. A stream socket (rsyslog's imptcp `path=`) takes octet-counted frames
 * like TCP; connecting to a datagram socket fails with EPROTOTYPE (ECONNREFUSED when its
 * owner is gone), and then `logger` writes the batch instead.
 */
export function unixTarget(path: string, appName: string): StreamTarget {
  return {
    label: path,
    readyEvent: 'connect',
    connect: () => net.connect({ path }),
    datagram: { codes: ['EPROTOTYPE', 'ECONNREFUSED'], deliver: loggerDelivery(path, appName) },
  };
}

function hostPort(host: string, port: number): string {
  return `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/**
 * `logger` reads one message per line; --prio-prefix takes each line's `<PRI>`, and the
 * local daemon adds time, host and `APP[PID]:` itself, so a line is `<PRI>[SD] MSG`. A zero
 * exit status means logger reached the socket.
 */
export function loggerDelivery(
  path: string,
  appName: string,
): (batch: readonly Formatted[], signal: AbortSignal) => Promise<void> {
  const args = [
    '--socket-errors=on',
    '-u',
    path,
    '--prio-prefix',
    '-t',
    appName,
    `--id=${process.pid}`,
    '--size',
    String(MAX_MESSAGE_BYTES),
  ];
  return (batch, signal) =>
    new Promise((resolve, reject) => {
      const child = spawn('logger', args, {
        stdio: ['pipe', 'ignore', 'pipe'],
        signal,
        timeout: LOGGER_TIMEOUT_MS,
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-300);
      });
      child.on('error', reject); // no logger on this system, or aborted
      child.on('close', (code, sig) => {
        if (code === 0) resolve();
        else
          reject(
            new Error(`logger exited with ${code ?? sig}${stderr ? `: ${stderr.trim()}` : ''}`),
          );
      });
      child.stdin.on('error', () => {}); // EPIPE when logger stops early; its exit status tells
      child.stdin.end(batch.map((m) => `<${m.pri}>${m.local}\n`).join(''));
    });
}

type Link =
  | { readonly kind: 'socket'; readonly socket: net.Socket }
  | { readonly kind: 'datagram'; readonly abort: AbortController };

/**
 * The queue and connection state machine for tcp, tls and unix sockets: connects when
 * there is something to send, reconnects with backoff (250 ms doubling to 30 s), keeps at
 * most 1,000 messages (dropping the oldest waiting one).
 */
export function streamTransport(target: StreamTarget, warn: Warn): Transport {
  const queue: Formatted[] = []; // the first `inFlight` are written, not yet confirmed
  let inFlight = 0;
  let sent = 0;
  let dropped = 0;
  let link: Link | null = null;
  let pending: net.Socket | null = null; // connecting
  let generation = 0; // bumped per link; confirmations from an older link are ignored
  let backoff = BACKOFF_MIN_MS;
  let retryTimer: NodeJS.Timeout | null = null;
  let closing = false; // close() began: send() refuses
  let stopped = false; // close() is done: no more connections

  const problem = (err: unknown, msg: string) =>
    warn({ destination: target.label, ...describeError(err) }, msg);

  function send(message: Formatted): void {
    if (closing) {
      dropped++;
      return;
    }
    if (queue.length >= MAX_QUEUE) {
      dropped++;
      warn(
        { destination: target.label, queued: queue.length, dropped },
        'syslog: queue full, dropping the oldest messages',
      );
      if (queue.length === inFlight) return; // all of them are on the wire: drop the new one
      queue.splice(inFlight, 1);
    }
    queue.push(message);
    pump();
  }

  /** Moves the queue forward: connect, or write, or start a logger batch. */
  function pump(): void {
    if (stopped || queue.length === inFlight) return;
    if (link === null) {
      if (pending === null && retryTimer === null) connect();
    } else if (link.kind === 'socket') {
      writeMore(link.socket);
    } else if (inFlight === 0) {
      deliverBatch(link.abort.signal);
    }
  }

  function connect(): void {
    let socket: net.Socket;
    try {
      socket = target.connect();
    } catch (err) {
      problem(err, 'syslog: cannot connect');
      retryLater();
      return;
    }
    pending = socket;
    let lastError: unknown = null;
    let ready = false;
    socket.setTimeout(CONNECT_TIMEOUT_MS, () =>
      socket.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
    );
    socket.on('error', (err) => {
      lastError = err;
    });
    socket.once(target.readyEvent, () => {
      ready = true;
      pending = null;
      socket.setTimeout(0);
      socket.setKeepAlive(true, KEEPALIVE_MS);
      socket.resume(); // collectors send nothing; reading lets us see their end
      socket.on('drain', pump);
      generation++;
      link = { kind: 'socket', socket };
      pump();
    });
    socket.once('close', () => (ready ? lost(socket, lastError) : failed(socket, lastError)));
    socket.unref(); // an idle forwarder must not keep the process alive
  }

  /** The connection attempt failed: maybe a datagram socket, else retry later. */
  function failed(socket: net.Socket, err: unknown): void {
    if (pending === socket) pending = null;
    if (stopped) return;
    const code = (err as { code?: unknown } | null)?.code;
    if (
      target.datagram !== undefined &&
      typeof code === 'string' &&
      target.datagram.codes.includes(code)
    ) {
      generation++;
      link = { kind: 'datagram', abort: new AbortController() };
      pump();
      return;
    }
    problem(err ?? new Error('connection closed'), 'syslog: cannot connect');
    retryLater();
  }

  /** An established connection ended: send the unconfirmed messages again on the next one. */
  function lost(socket: net.Socket, err: unknown): void {
    if (link?.kind !== 'socket' || link.socket !== socket) return;
    link = null;
    generation++;
    inFlight = 0;
    if (stopped) return;
    problem(err ?? new Error('the collector closed the connection'), 'syslog: connection lost');
    retryLater(); // a collector that accepts and hangs up at once must not make us spin
  }

  function retryLater(): void {
    if (stopped || retryTimer !== null) return;
    const delay = closing ? Math.min(backoff, BACKOFF_MIN_MS) : backoff; // closing: no long waits
    backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      pump();
    }, delay);
    retryTimer.unref();
  }

  function writeMore(socket: net.Socket): void {
    const gen = generation;
    while (inFlight < queue.length && !socket.writableNeedDrain) {
      const message = queue[inFlight];
      if (message === undefined) break;
      inFlight++;
      socket.write(octetFrame(message.line), (err) => {
        if (gen !== generation || err) return; // `lost` requeues what was not confirmed
        queue.shift();
        inFlight--;
        sent++;
        backoff = BACKOFF_MIN_MS; // only a connection that carries messages resets the backoff
      });
    }
  }

  function deliverBatch(signal: AbortSignal): void {
    const batch = queue.slice(0, LOGGER_BATCH);
    const gen = generation;
    inFlight = batch.length;
    datagramDeliver(batch, signal).then(
      () => {
        if (gen !== generation) return;
        queue.splice(0, batch.length);
        inFlight = 0;
        sent += batch.length;
        backoff = BACKOFF_MIN_MS;
        pump();
      },
      (err: unknown) => {
        if (gen !== generation) return;
        inFlight = 0;
        link = null; // probe the path again next time: the daemon may have changed
        generation++;
        if (stopped) return;
        problem(err, 'syslog: logger could not deliver');
        retryLater();
      },
    );
  }

  /** Async, so that a deliver() that throws becomes a rejection like any other failure. */
  async function datagramDeliver(batch: readonly Formatted[], signal: AbortSignal): Promise<void> {
    if (target.datagram === undefined) throw new Error('not a datagram socket');
    await target.datagram.deliver(batch, signal);
  }

  async function close(deadlineMs: number): Promise<void> {
    if (closing) return;
    closing = true;
    const deadline = Date.now() + deadlineMs;
    if (retryTimer !== null) {
      clearTimeout(retryTimer); // try now rather than after a long backoff
      retryTimer = null;
      backoff = BACKOFF_MIN_MS;
    }
    pump();
    await waitUntil(() => queue.length === 0, deadline - Date.now());
    stopped = true;
    if (retryTimer !== null) clearTimeout(retryTimer);
    retryTimer = null;
    pending?.destroy();
    pending = null;
    const current = link;
    link = null;
    generation++;
    if (current?.kind === 'socket')
      await endSocket(current.socket, Math.max(0, deadline - Date.now()));
    if (current?.kind === 'datagram') current.abort.abort();
    dropped += queue.length;
    queue.length = 0;
    inFlight = 0;
  }

  return { send, close, stats: () => ({ sent, dropped, queued: queue.length }) };
}

/** Ends a socket politely (its buffered frames go out), destroys it at the deadline. */
async function endSocket(socket: net.Socket, ms: number): Promise<void> {
  if (socket.destroyed) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve();
    }, ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.end();
  });
}

/** Polls `done` until it holds or `ms` have passed (only used while closing). */
async function waitUntil(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

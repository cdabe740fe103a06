// The console's live view, idle and on a change, against the real bundled service in a child
// process. A simulated tab does what the console does, over its own keep-alive sockets whose
// bytes (read and written, headers included) are counted from the sockets themselves:
//   old:    GET /v1/live every 500 ms, no validator, no compression (before issue 18): the
//           baseline;
//   stream: GET /v1/live/stream open, and GET /v1/live (If-None-Match, Accept-Encoding br,
//           gzip) only when an event says the seq moved;
//   poll:   the console's fallback while the stream is refused: GET /v1/live every 500 ms
//           with If-None-Match (304 while idle).
// The service first gets RUNNING open episodes, so the live view is the size a busy estate
// shows (about 10 KB). Idle bytes are counted over an idle window and given per 10 s. Then,
// with the stream tab and an old tab both open, WRITES events are posted one at a time
// (POST /v1/events, spaced so each is a fresh change); for each, the time from sending the
// POST until the tab has fetched a live view whose seq includes it.
// Exactness: every POST answered 201, every tab's last view has the head seq, verify ok.
import { request, Agent, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ADMIN_TOKEN, INGEST_TOKEN, makeDataDir } from '../server/testing/test-server.js';
import { percentile, startService, verified, webhookBody, type Child } from './harness.js';
import type { BenchContext, Benchmark, Figure } from './run.js';

const RUNNING = 60;
const WRITES = 20;
const POLL_MS = 500;
const AIM_BYTES_PER_10S = 5 * 1024;
const AIM_CHANGE_MS = 1000;
/** What a browser sends besides the console's own headers (Chromium 14x, abridged). */
const BROWSER_HEADERS = {
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  'accept-language': 'en-GB,en;q=0.9',
  referer: 'http://127.0.0.1/live',
};

interface Answer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** One browser tab: its own sockets, its bytes counted on them. */
class Tab {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });
  private readonly sockets = new Set<Socket>();
  private readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  bytes(): number {
    let n = 0;
    for (const s of this.sockets) n += s.bytesRead + s.bytesWritten;
    return n;
  }

  get(path: string, headers: Record<string, string>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(`${this.base}${path}`, {
        agent: this.agent,
        headers: { ...BROWSER_HEADERS, authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
      });
      req.on('socket', (s) => this.sockets.add(s));
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          // Decoded as a browser does; the sockets counted the bytes as they came.
          const raw = Buffer.concat(chunks);
          const coding = res.headers['content-encoding'];
          const body =
            coding === 'gzip' ? gunzipSync(raw) : coding === 'br' ? brotliDecompressSync(raw) : raw;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: body.toString('utf8'),
          });
        });
      });
      req.end();
    });
  }

  /** Open the event stream; `onSeq` hears each seq. Resolves once the answer's head came. */
  stream(onSeq: (seq: number) => void): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const req = request(`${this.base}/v1/live/stream`, {
        agent: this.agent,
        headers: {
          ...BROWSER_HEADERS,
          authorization: `Bearer ${ADMIN_TOKEN}`,
          accept: 'text/event-stream',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      req.on('socket', (s) => this.sockets.add(s));
      req.on('error', reject);
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`GET /v1/live/stream answered ${String(res.statusCode)}`));
          return;
        }
        if (res.headers['content-encoding'] !== undefined) {
          reject(new Error('the stream came compressed'));
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const m = /^data: \{"seq":(\d+)\}$/m.exec(block);
            if (m?.[1] !== undefined) onSeq(Number(m[1]));
          }
        });
        resolve(() => {
          req.destroy();
        });
      });
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

const seqOf = (a: Answer): number => (JSON.parse(a.body) as { seq: number }).seq;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The old console: the whole view every 500 ms, whatever moved. */
function oldTab(base: string) {
  const tab = new Tab(base);
  let seq = -1;
  let stopped = false;
  const waiters: { seq: number; done: () => void }[] = [];
  const loop = (async () => {
    while (!stopped) {
      const a = await tab.get('/v1/live', {
        accept: 'application/json',
        'accept-encoding': 'identity',
      });
      if (a.status !== 200) throw new Error(`old tab: GET /v1/live answered ${String(a.status)}`);
      seq = seqOf(a);
      for (const w of waiters.filter((x) => x.seq <= seq)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done();
      }
      await sleep(POLL_MS);
    }
  })();
  return {
    tab,
    seq: () => seq,
    knows: (target: number) =>
      seq >= target
        ? Promise.resolve()
        : new Promise<void>((done) => waiters.push({ seq: target, done })),
    stop: async () => {
      stopped = true;
      await loop;
      tab.close();
    },
  };
}

/** The console now: the stream says the seq moved; only then one revalidated GET. */
async function streamTab(base: string) {
  const tab = new Tab(base);
  let etag: string | null = null;
  let seq = -1;
  let fetching: Promise<void> | null = null;
  let again = false;
  const waiters: { seq: number; done: () => void }[] = [];
  let gets = 0;
  const refetch = async (): Promise<void> => {
    const a = await tab.get('/v1/live', {
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      ...(etag !== null && { 'if-none-match': etag }),
    });
    gets++;
    if (a.status === 200) {
      etag = typeof a.headers.etag === 'string' ? a.headers.etag : null;
      seq = seqOf(a);
    } else if (a.status !== 304) {
      throw new Error(`stream tab: GET /v1/live answered ${String(a.status)}`);
    }
    for (const w of waiters.filter((x) => x.seq <= seq)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.done();
    }
  };
  // One fetch at a time, and one more if the seq moved meanwhile (as TanStack Query does).
  const moved = (): void => {
    if (fetching !== null) {
      again = true;
      return;
    }
    fetching = (async () => {
      do {
        again = false;
        await refetch();
      } while (again);
      fetching = null;
    })();
  };
  const stop = await tab.stream((s) => {
    if (s !== seq) moved();
  });
  return {
    tab,
    seq: () => seq,
    gets: () => gets,
    knows: (target: number) =>
      seq >= target
        ? Promise.resolve()
        : new Promise<void>((done) => waiters.push({ seq: target, done })),
    stop: () => {
      stop();
      tab.close();
    },
  };
}

/** The fallback: polling with If-None-Match (304 while idle). */
function pollTab(base: string) {
  const tab = new Tab(base);
  let etag: string | null = null;
  let stopped = false;
  let notModified = 0;
  const loop = (async () => {
    while (!stopped) {
      const a = await tab.get('/v1/live', {
        accept: 'application/json',
        'accept-encoding': 'gzip, deflate, br',
        ...(etag !== null && { 'if-none-match': etag }),
      });
      if (a.status === 200) etag = typeof a.headers.etag === 'string' ? a.headers.etag : null;
      else if (a.status === 304) notModified++;
      else throw new Error(`poll tab: GET /v1/live answered ${String(a.status)}`);
      await sleep(POLL_MS);
    }
  })();
  return {
    tab,
    notModified: () => notModified,
    stop: async () => {
      stopped = true;
      await loop;
      tab.close();
    },
  };
}

/** Bytes a tab moves over `seconds` of idle, per 10 s. */
async function idleBytes(tab: Tab, seconds: number): Promise<number> {
  const before = tab.bytes();
  await sleep(seconds * 1000);
  return ((tab.bytes() - before) / seconds) * 10;
}

async function postEvent(url: string, i: number): Promise<number> {
  const res = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'human.action', actor: 'ci:bench', data: { n: i } }),
  });
  if (res.status !== 201) throw new Error(`POST /v1/events answered ${String(res.status)}`);
  return ((await res.json()) as { seq: number }).seq;
}

async function run(ctx: BenchContext): Promise<readonly Figure[]> {
  const { dir, machineIdFile } = makeDataDir();
  let service: Child | null = null;
  try {
    service = await startService(ctx, dir, machineIdFile);
    const url = service.url;
    // Open episodes: one per service, a few alerts each, so the view has RUNNING rows.
    const now = new Date().toISOString();
    for (let i = 0; i < RUNNING; i++) {
      const service = `svc-${String(i).padStart(3, '0')}`;
      const res = await fetch(`${url}/v1/alerts/alertmanager`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/json' },
        body: webhookBody(
          { groupKey: service, groupLabels: { service } },
          [0, 1, 2].map((k) => ({
            labels: {
              alertname: `Alert${String(k)}`,
              service,
              instance: `${service}-${String(k)}`,
            },
            annotations: { summary: `alert ${String(k)} of ${service}` },
            startsAt: now,
            generatorURL: 'http://prometheus.bench:9090/graph',
            fingerprint: `${service}-${String(k)}`,
          })),
        ),
      });
      if (res.status !== 202) throw new Error(`alert intake answered ${String(res.status)}`);
    }
    const view = await fetch(`${url}/v1/live`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'accept-encoding': 'identity' },
    });
    const viewBytes = (await view.text()).length;
    ctx.log(
      `the live view: ${String(RUNNING)} running episodes, ${(viewBytes / 1024).toFixed(1)} KiB of JSON`,
    );

    // Idle: each pattern alone, after a second to settle.
    const window = Math.max(10, ctx.durationS);
    const old = oldTab(url);
    await sleep(1000);
    const oldBytes = await idleBytes(old.tab, window);
    await old.stop();
    const streaming = await streamTab(url);
    await sleep(1000);
    // Three windows: the heartbeat (15 s) falls in some 10 s windows and not others.
    const streamBytes = await idleBytes(streaming.tab, window * 3);
    const idleGets = streaming.gets();
    const poll = pollTab(url);
    await sleep(1000);
    const pollBytes = await idleBytes(poll.tab, window);
    await poll.stop();
    ctx.log(
      `idle bytes per 10 s: old ${oldBytes.toFixed(0)}, stream ${streamBytes.toFixed(0)} (${String(idleGets)} GET /v1/live in all, the first one included), ` +
        `polling with If-None-Match ${pollBytes.toFixed(0)} (${String(poll.notModified())} answers 304)`,
    );

    // A change: time from sending a write until each tab has a view that includes it.
    const again = oldTab(url);
    await sleep(POLL_MS * 2);
    const toStream: number[] = [];
    const toOld: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      // Spread the writes over the old tab's poll period, as real changes fall.
      await sleep(700 + ((i * 137) % POLL_MS));
      const t0 = performance.now();
      const seq = await postEvent(url, i);
      await Promise.all([
        streaming.knows(seq).then(() => toStream.push(performance.now() - t0)),
        again.knows(seq).then(() => toOld.push(performance.now() - t0)),
      ]);
    }
    await again.stop();
    const head = (await (
      await fetch(`${url}/v1/live`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json()) as { seq: number };
    if (streaming.seq() !== head.seq) {
      throw new Error(
        `the stream tab ended on seq ${String(streaming.seq())}, the head is ${String(head.seq)}`,
      );
    }
    streaming.stop();
    await verified(url, 'after the run');
    const p = (xs: number[], q: number) => percentile(xs, q);
    ctx.log(
      `write → tab knows, ${String(WRITES)} writes: stream p50 ${p(toStream, 50).toFixed(0)} ms, p95 ${p(toStream, 95).toFixed(0)} ms, max ${Math.max(...toStream).toFixed(0)} ms; ` +
        `old polling p50 ${p(toOld, 50).toFixed(0)} ms, p95 ${p(toOld, 95).toFixed(0)} ms`,
    );
    return [
      {
        name: 'live_idle.bytes_per_10s',
        value: streamBytes,
        unit: 'B',
        baseline: oldBytes,
        aim: { on: 'value', atMost: AIM_BYTES_PER_10S },
      },
      { name: 'live_idle.poll_304_bytes_per_10s', value: pollBytes, unit: 'B', baseline: oldBytes },
      {
        name: 'live_idle.change_ms_p95',
        value: p(toStream, 95),
        unit: 'ms',
        baseline: p(toOld, 95),
        aim: { on: 'value', atMost: AIM_CHANGE_MS },
      },
      {
        name: 'live_idle.change_ms_max',
        value: Math.max(...toStream),
        unit: 'ms',
        baseline: Math.max(...toOld),
        aim: { on: 'value', atMost: AIM_CHANGE_MS },
      },
    ];
  } finally {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: 'live-idle',
  title:
    "the console's live view: bytes per 10 s idle (stream vs polling every 500 ms) and write → tab knows",
  run,
};
export default bench;

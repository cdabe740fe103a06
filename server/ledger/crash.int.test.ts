// Durability of the real server process (dist/server.mjs, built by node build/bundle.mjs):
// every acknowledged event survives kill -9, a clean stop is recorded as such, and a second
// server on the same data folder refuses to start.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asAdmin, asIngest, makeDataDir, testEnv } from '../testing/test-server.js';
import { ROOT, SERVER, freePort, requireBundle } from '../testing/processes.js';

requireBundle();

interface Ev {
  seq: number;
  type: string;
  actor: string;
  data: Record<string, unknown>;
}
interface ListBody {
  events: Ev[];
  more: boolean;
}

interface Proc {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startProcess(env: Record<string, string>, port: number): Proc {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('SVC_') && v !== undefined) full[k] = v;
  Object.assign(full, env, {
    SVC_PORT: String(port),
    SVC_BIND: '127.0.0.1',
    SVC_LOG_LEVEL: 'silent',
  });
  const child = spawn(process.execPath, [SERVER], {
    env: full,
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
  // Node's own warnings (deprecations of dependencies) are not the service's output.
  const own = () =>
    err
      .split('\n')
      .filter((l) => !/^\(node:\d+\) |^\(Use `node --trace-warnings/.test(l))
      .join('\n');
  return { child, url: `http://127.0.0.1:${String(port)}`, stderr: own, exited };
}

async function startServer(env: Record<string, string>): Promise<Proc> {
  const p = startProcess(env, await freePort());
  let done = false;
  void p.exited.then(() => {
    done = true;
  });
  const until = Date.now() + 20_000;
  for (;;) {
    if (done) throw new Error(`the server exited at start: ${p.stderr()}`);
    try {
      const res = await fetch(`${p.url}/health`);
      if (res.ok) return p;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stop(
  p: Proc,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(signal);
  return p.exited;
}

async function get<T>(p: Proc, path: string): Promise<T> {
  const res = await fetch(`${p.url}${path}`, { headers: asAdmin() });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function allEvents(p: Proc): Promise<Ev[]> {
  const out: Ev[] = [];
  let after = 0;
  for (;;) {
    const page = await get<ListBody>(
      p,
      `/v1/ledger?order=asc&limit=2000&after_seq=${String(after)}`,
    );
    out.push(...page.events);
    after = page.events[page.events.length - 1]?.seq ?? after;
    if (!page.more) return out;
  }
}

const post = (p: Proc, body: unknown) =>
  fetch(`${p.url}/v1/events`, {
    method: 'POST',
    headers: { ...asIngest(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface Started {
  seq: number;
  data: { previous_stop_clean: boolean; pid: number };
}
const lastStart = async (p: Proc): Promise<Started> => {
  const page = await get<{ events: Started[] }>(p, '/v1/ledger?type=system.started&limit=1');
  const e = page.events[0];
  if (e === undefined) throw new Error('no system.started');
  return e;
};

describe('the server process', () => {
  const made = makeDataDir();
  const env = testEnv(made.dir, made.machineIdFile);
  const procs: Proc[] = [];
  const started = async () => {
    const p = await startServer(env);
    procs.push(p);
    return p;
  };

  afterAll(async () => {
    for (const p of procs) await stop(p, 'SIGKILL');
    rmSync(made.dir, { recursive: true, force: true });
  });

  it('every acknowledged event survives kill -9 mid-stream', async () => {
    const a = await started();
    const acked = new Map<number, { seq: number; n: number }>();
    let next = 0;
    let killed = false;
    let failures = 0;
    const target = 1100; // past 1,000: a seal happens during the stream

    async function worker(): Promise<void> {
      while (!killed) {
        const n = next++;
        try {
          const res = await post(a, {
            type: 'human.note',
            actor: 'crash-test',
            data: { n, pad: 'p'.repeat(n % 50) },
          });
          if (res.status === 201) {
            const body = (await res.json()) as { seq: number };
            acked.set(n, { seq: body.seq, n });
            if (acked.size >= target && !killed) {
              killed = true;
              a.child.kill('SIGKILL');
            }
          } else {
            failures++;
          }
        } catch {
          if (!killed) failures++;
          return;
        }
      }
    }
    await Promise.all(Array.from({ length: 8 }, () => worker()));
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(failures).toBe(0);
    expect(acked.size).toBeGreaterThanOrEqual(target);
    // The pid file of the killed process is still there: a stale lock, not a live one.
    expect(readFileSync(join(env['SVC_DATA'] ?? '', 'svc.pid'), 'utf8').trim()).toBe(
      String(a.child.pid),
    );

    const b = await started();
    const events = await allEvents(b);
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    for (const { seq, n } of acked.values()) {
      const e = bySeq.get(seq);
      expect(e, `acknowledged seq ${String(seq)}`).toBeDefined();
      expect(e).toMatchObject({
        seq,
        type: 'human.note',
        actor: 'crash-test',
        data: { n, pad: 'p'.repeat(n % 50) },
      });
    }
    // Each acknowledged event is there once.
    const ns = events.filter((e) => e.actor === 'crash-test').map((e) => e.data['n']);
    expect(new Set(ns).size).toBe(ns.length);

    const v = await get<{
      ok: boolean;
      checked: number;
      head: { seq: number };
      sealed_through: number;
    }>(b, '/v1/ledger/verify');
    expect(v.ok).toBe(true);
    expect(v.checked).toBe(events.length);
    expect(v.sealed_through).toBeGreaterThanOrEqual(1000);

    // The restart says the previous run did not stop cleanly.
    const start = await lastStart(b);
    expect(start.data).toMatchObject({ previous_stop_clean: false, pid: b.child.pid });
    expect(start.seq).toBeGreaterThan(Math.max(...[...acked.values()].map((x) => x.seq)));

    // A clean stop (SIGTERM) is recorded, and the next start says so.
    expect(
      (await post(b, { type: 'human.note', actor: 'crash-test', data: { n: -1 } })).status,
    ).toBe(201);
    expect(await stop(b, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(b.stderr()).toBe('');

    const c = await started();
    const tail = await get<ListBody>(c, '/v1/ledger?limit=3&type=system.');
    expect(tail.events.map((e) => e.type)).toEqual([
      'system.started',
      'system.stopped',
      'system.started',
    ]);
    expect((await lastStart(c)).data).toMatchObject({
      previous_stop_clean: true,
      pid: c.child.pid,
    });
  });

  it('a second server on the same data folder refuses to start', async () => {
    const c = procs[procs.length - 1];
    if (c === undefined) throw new Error('no server running');
    const headBefore = (await get<{ ledger: { seq: number } }>(c, '/v1/status')).ledger.seq;

    const d = startProcess(env, await freePort());
    procs.push(d);
    expect(await d.exited).toEqual({ code: 1, signal: null });
    expect(d.stderr()).toBe(
      `the service could not start: the data folder ${env['SVC_DATA'] ?? ''} is in use by process ${String(c.child.pid)}; stop it first\n`,
    );

    // The first server is untouched.
    expect(readFileSync(join(env['SVC_DATA'] ?? '', 'svc.pid'), 'utf8').trim()).toBe(
      String(c.child.pid),
    );
    expect((await get<{ ledger: { seq: number } }>(c, '/v1/status')).ledger.seq).toBe(headBefore);
    expect((await get<{ ok: boolean }>(c, '/v1/ledger/verify')).ok).toBe(true);
    expect(await stop(c, 'SIGTERM')).toEqual({ code: 0, signal: null });
  });

  // A clean stop always ends with system.stopped; a crash right after a seal must not pass
  // for one.
  it('a crash right after a seal is not mistaken for a clean stop', async () => {
    const p = await started();
    // Fill the open segment until the sealer closes it; then the last event is ledger.sealed.
    const head = (await get<{ ledger: { seq: number; sealed_through: number } }>(p, '/v1/status'))
      .ledger;
    const due = 1000 - (head.seq - head.sealed_through);
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = w; i < due; i += 8)
          expect(
            (await post(p, { type: 'human.note', actor: 'seal-test', data: { i } })).status,
          ).toBe(201);
      }),
    );
    const until = Date.now() + 10_000;
    for (;;) {
      const last = (await get<ListBody>(p, '/v1/ledger?limit=1')).events[0];
      if (last?.type === 'ledger.sealed') break;
      if (Date.now() > until)
        throw new Error(`the last event is ${String(last?.type)}, not a seal`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await stop(p, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    const q = await started();
    expect((await lastStart(q)).data.previous_stop_clean).toBe(false);
    expect(await stop(q, 'SIGTERM')).toEqual({ code: 0, signal: null });
  });
});

// Alert receipt to `investigation.started`, on the lab: `npm run bench:start`.
// Alerts go the real way (posted to the lab's Alertmanager, which notifies the service), one
// at a time, each for a service of its own so that each opens an episode. Per alert: the
// seconds from its `signal.fired` (the service's receipt) to its episode's
// `investigation.started`, both ledger timestamps written by the service itself. The posts
// come at random moments, so a timer in the service shows as its true average wait.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, type Api } from '../e2e/lab/connect.js';
import { postAlert } from '../e2e/lab/fault-means.js';
import { startLab } from '../e2e/lab/lab.js';
import { percentile } from './diagnosis-lab.js';

interface Event {
  seq: number;
  ts: string;
  type: string;
  trace_id: string | null;
  data: Record<string, unknown>;
}

const ALERTS = Number(process.env['BENCH_ALERTS'] ?? '30');
const NET = process.env['BENCH_NET'] ?? '127.0.6';

async function events(a: Api, after: number): Promise<Event[]> {
  const page = await api<{ events: Event[] }>(
    a,
    'GET',
    `/v1/ledger?order=asc&limit=2000&after_seq=${String(after)}&type=signal.fired,episode.opened,investigation.started`,
  );
  return page.events;
}

async function headSeq(a: Api): Promise<number> {
  const page = await api<{ events: Event[] }>(a, 'GET', '/v1/ledger?order=desc&limit=1');
  return page.events[0]?.seq ?? 0;
}

/** Seconds from the alert's receipt to its episode's first investigation round. */
async function oneAlert(a: Api, post: () => Promise<void>, service: string): Promise<number> {
  const after = await headSeq(a);
  // A random pause, so that posts are not in step with any timer of the service's.
  await sleep(Math.random() * 1500);
  await post();
  let fired: string | null = null;
  let episode: string | null = null;
  let seen = after;
  for (let i = 0; i < 300; i += 1) {
    for (const e of await events(a, seen)) {
      seen = e.seq;
      if (e.type === 'signal.fired' && e.data['service'] === service) fired ??= e.ts;
      if (e.type === 'episode.opened' && e.data['service'] === service)
        episode = String(e.data['episode_id']);
      if (e.type === 'investigation.started' && episode !== null && fired !== null) {
        if (e.data['episode_id'] === episode) return (Date.parse(e.ts) - Date.parse(fired)) / 1000;
      }
    }
    await sleep(50);
  }
  throw new Error(`no investigation.started for ${service} within 15 s`);
}

async function main(): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'bench-start-'));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const seconds: number[] = [];
  try {
    const lab = await startLab({ dir: join(parent, 'lab'), net: NET, log });
    try {
      const run = Date.now().toString(36);
      for (let i = 0; i < ALERTS; i += 1) {
        const service = `probe-${run}-${String(i)}`;
        const s = await oneAlert(
          lab.api,
          () => postAlert(lab.state, 'ProbeDown', service),
          service,
        );
        seconds.push(s);
        log(`${service}: ${s.toFixed(3)} s`);
      }
    } finally {
      await lab.stop();
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
  const result = {
    alerts: seconds.length,
    median_s: percentile(seconds, 50),
    p95_s: percentile(seconds, 95),
    max_s: Math.max(...seconds),
    seconds,
  };
  const out = process.env['BENCH_OUT'] ?? 'bench/investigation-start.local.json';
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `receipt → investigation.started over ${String(result.alerts)} alerts: median ${String(result.median_s)} s, p95 ${String(result.p95_s)} s, max ${String(result.max_s)} s\n`,
  );
}

await main();

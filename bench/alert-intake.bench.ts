// Durable alert intake: Alertmanager webhook bodies through POST /v1/alerts/alertmanager of
// the real bundled service (`node dist/server.mjs`, child process), each answered 202 only
// once its signal.fired event is committed (WAL, synchronous=FULL, group commit), as a ratio
// to Alertmanager's own ingest, POST /api/v2/alerts of Debian's
// /usr/bin/prometheus-alertmanager (child process, temporary folder, a route to a receiver
// with no integrations, no cluster), which keeps alerts in memory only. Both are driven the
// same way, as events-ingest drives its two targets (bench/harness.ts): same connections,
// pipelining 1, the same headers, a timed warm-up each, then ROUNDS phases of fixed request
// counts that alternate between the two.
//
// Every request carries ONE alert whose labels and fingerprint are new (a counter), so
// every request is a new firing signal for the service (never a duplicate, which would
// write nothing) and a new alert for Alertmanager. Afterwards, exactly: the service's
// ledger holds one signal.fired per 2xx answer of the measured phases and no
// signal.resolved (the other events written meanwhile, episode.* and seals, are counted and
// shown), GET /v1/ledger/verify is ok, and Alertmanager's
// alertmanager_alerts_received_total grew by its 2xx answers, with no invalid alert.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INGEST_TOKEN, makeDataDir } from '../server/testing/test-server.js';
import { intakeSqlFloor } from './intake-floor.js';
import {
  accountFired,
  alternate,
  distribution,
  freePort,
  getJson,
  groupCommit,
  startService,
  stopper,
  tail,
  tallyLine,
  waitReady,
  warmUp,
  webhookBody as groupBody,
  writerStats,
  type Child,
  type PromAlert,
  type Target,
  type VerifyBody,
  verified,
} from './harness.js';
import type { BenchContext, Benchmark, Figure } from './run.js';

const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';
const WARMUP_S = 2;
const ROUNDS = 4;

/** A new alert per call: alertname BenchAlert, instance host-<n>, fingerprint bench-<n>. */
let next = 0;
const GENERATOR_URL = 'http://prometheus.bench:9090/graph?g0.expr=up+%3D%3D+0';

function alertOf(n: number, startsAt: string): PromAlert {
  return {
    labels: {
      alertname: 'BenchAlert',
      instance: `host-${String(n)}`,
      job: 'node',
      severity: 'warning',
    },
    annotations: {
      summary: `host-${String(n)} is down`,
      description: 'up == 0 for 1 minute',
    },
    startsAt,
    generatorURL: GENERATOR_URL,
  };
}

/** What Alertmanager posts to a receiver for a group of one. */
function webhookBody(startsAt: string): string {
  const n = ++next;
  return groupBody(
    { groupKey: '{}:{alertname="BenchAlert"}', groupLabels: { alertname: 'BenchAlert' } },
    [{ ...alertOf(n, startsAt), fingerprint: `bench-${String(n)}` }],
  );
}

/** What Prometheus posts to Alertmanager's API v2: an array of alerts, here one. */
function apiV2Body(startsAt: string): string {
  return JSON.stringify([alertOf(++next, startsAt)]);
}

async function startAlertmanager(): Promise<Child & { dir: string }> {
  if (!existsSync(ALERTMANAGER))
    throw new Error(`${ALERTMANAGER} is missing: apt-get install prometheus-alertmanager`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-am-'));
  const config = join(dir, 'alertmanager.yml');
  // Every alert goes to a receiver with no integrations: Alertmanager stores, groups and
  // dispatches it, and sends nothing anywhere.
  writeFileSync(
    config,
    [
      'route:',
      '  receiver: blackhole',
      "  group_by: ['alertname']",
      'receivers:',
      '  - name: blackhole',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${String(port)}`;
  const child = spawn(
    ALERTMANAGER,
    [
      `--config.file=${config}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = tail(child);
  const stop = stopper(child, 'alertmanager');
  try {
    await waitReady('alertmanager', child, output, `${url}/-/ready`);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { url, pid: child.pid, dir, output, stop };
}

/** Alertmanager's own counters of received alerts (API v2), from GET /metrics. */
async function alertmanagerCounts(url: string): Promise<{ firing: number; invalid: number }> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`alertmanager GET /metrics: ${String(res.status)}`);
  const text = await res.text();
  const num = (re: RegExp): number => {
    const m = re.exec(text)?.[1];
    if (m === undefined) throw new Error(`alertmanager /metrics has no ${String(re)}`);
    return Number(m);
  };
  return {
    firing: num(/^alertmanager_alerts_received_total\{status="firing",version="v2"\} (\S+)$/m),
    invalid: num(/^alertmanager_alerts_invalid_total\{version="v2"\} (\S+)$/m),
  };
}

async function run(ctx: BenchContext): Promise<readonly Figure[]> {
  const { dir, machineIdFile } = makeDataDir();
  let service: Child | null = null;
  let am: (Child & { dir: string }) | null = null;
  try {
    am = await startAlertmanager();
    service = await startService(ctx, dir, machineIdFile);
    const url = service.url;
    const status = await fetch(`${am.url}/api/v2/status`);
    const amVersion = status.ok
      ? ((await status.json()) as { versionInfo?: { version?: string } }).versionInfo?.version
      : undefined;

    const startsAt = new Date().toISOString();
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${INGEST_TOKEN}` };
    const intake: Target = {
      what: 'service POST /v1/alerts/alertmanager',
      url: `${url}/v1/alerts/alertmanager`,
      headers,
      body: () => webhookBody(startsAt),
      pid: service.pid,
    };
    const alertmanager: Target = {
      what: 'Alertmanager POST /api/v2/alerts',
      url: `${am.url}/api/v2/alerts`,
      headers,
      body: () => apiV2Body(startsAt),
      pid: am.pid,
    };
    ctx.log(
      `bodies: webhook ${String(Buffer.byteLength(webhookBody(startsAt)))} bytes, ` +
        `API v2 ${String(Buffer.byteLength(apiV2Body(startsAt)))} bytes (one alert each); ` +
        `Alertmanager ${amVersion ?? 'version unknown'}`,
    );

    const amWarm = await warmUp(ctx, alertmanager, WARMUP_S);
    const warm = await warmUp(ctx, intake, WARMUP_S);
    await new Promise((r) => setTimeout(r, 300)); // requests abandoned when a warm-up stopped settle
    const before = await getJson<VerifyBody>(`${url}/v1/ledger/verify`);
    const beforeStats = await writerStats(url);
    const amBefore = await alertmanagerCounts(am.url);

    const [amTally, svcTally] = await alternate(
      ctx,
      [
        { target: alertmanager, warm: amWarm },
        { target: intake, warm },
      ],
      ROUNDS,
    );
    if (amTally === undefined || svcTally === undefined) throw new Error('no tallies');

    // Exactly one signal.fired per 2xx of the measured phases, no signal.resolved; every
    // other event written meanwhile is counted by category and shown.
    const afterStats = await writerStats(url);
    const after = await verified(url, 'after the run');
    const seals = after.segments - before.segments;
    const others = await accountFired(url, before, after, svcTally.answers);
    const amAfter = await alertmanagerCounts(am.url);
    const amReceived = amAfter.firing - amBefore.firing;
    if (amReceived !== amTally.answers || amAfter.invalid !== 0) {
      throw new Error(
        `Alertmanager counted ${String(amReceived)} firing alerts received (and ${String(amAfter.invalid)} invalid) ` +
          `for ${String(amTally.answers)} 2xx answers`,
      );
    }

    const gc = groupCommit(beforeStats, afterStats, svcTally.elapsedS);
    ctx.log(tallyLine('Alertmanager POST /api/v2/alerts', amTally, ROUNDS, 'alerts/s'));
    ctx.log(tallyLine('service POST /v1/alerts/alertmanager', svcTally, ROUNDS, 'alerts/s'));
    ctx.log(
      `ledger: ${String(before.head.seq)} events before the measured phases + ${String(svcTally.answers)} signal.fired ` +
        `(one per 2xx, none a duplicate) + ${others.length > 0 ? `${others.join(' + ')} + ` : ''}` +
        `${String(seals)} seal events = head seq ${String(after.head.seq)}; ` +
        `verify ok (${String(after.segments)} segments); Alertmanager received ${String(amReceived)} alerts, 0 invalid`,
    );
    ctx.log(
      `writer group commit (measured phases): ${String(gc.commits)} commits for ${String(gc.writes)} writes, ` +
        `mean batch ${gc.batchMean.toFixed(1)}, mean commit ${gc.commitMs.toFixed(2)} ms, ${gc.perS.toFixed(0)} commits/s, ` +
        `event loop in commits ${((gc.commits * gc.commitMs) / 10 / svcTally.elapsedS).toFixed(0)}% of the time`,
    );
    ctx.log(`writer batch sizes: ${distribution(beforeStats, afterStats)}`);
    // Measured once the service has stopped (Alertmanager idles), so that it has the cores.
    await service.stop();
    service = null;
    const floor = await intakeSqlFloor(gc.batchMean);
    ctx.log(
      `the floor: the same writes as raw SQLite statements, ${String(floor.batch)} alerts a commit, ` +
        `${floor.cpuMsPerAlert.toFixed(3)} ms of CPU an alert (${floor.alertsPerS.toFixed(0)} alerts/s on one thread), ` +
        `against ${amTally.cpuMsPerAnswer.toFixed(3)} ms for Alertmanager's whole handling of one`,
    );

    return [
      {
        name: 'alert_intake.alerts_per_s',
        value: svcTally.rps,
        unit: 'alerts/s',
        baseline: amTally.rps,
        aim: { on: 'ratio', atLeast: 1 },
      },
      {
        name: 'alert_intake.alertmanager.alerts_per_s',
        value: amTally.rps,
        unit: 'alerts/s',
        baseline: null,
      },
      {
        name: 'alert_intake.latency_p50',
        value: svcTally.percentile(50),
        unit: 'ms',
        baseline: amTally.percentile(50),
      },
      {
        name: 'alert_intake.latency_p99',
        value: svcTally.percentile(99),
        unit: 'ms',
        baseline: amTally.percentile(99),
      },
      {
        name: 'alert_intake.non_2xx',
        value: svcTally.non2xx + warm.result.non2xx + amTally.non2xx + amWarm.result.non2xx,
        unit: 'answers',
        baseline: null,
      },
      {
        name: 'alert_intake.cpu_ms_per_alert',
        value: svcTally.cpuMsPerAnswer,
        unit: 'ms',
        baseline: amTally.cpuMsPerAnswer,
      },
      {
        name: 'alert_intake.signals_fired',
        value: svcTally.answers,
        unit: 'events',
        baseline: null,
      },
      {
        name: 'alert_intake.writer_batch_mean',
        value: gc.batchMean,
        unit: 'writes/commit',
        baseline: null,
      },
      {
        name: 'alert_intake.writer_commits_per_s',
        value: gc.perS,
        unit: 'commits/s',
        baseline: null,
      },
      { name: 'alert_intake.writer_commit_mean', value: gc.commitMs, unit: 'ms', baseline: null },
      {
        name: 'alert_intake.sql_floor_cpu_ms_per_alert',
        value: floor.cpuMsPerAlert,
        unit: 'ms',
        baseline: amTally.cpuMsPerAnswer,
      },
    ];
  } finally {
    await am?.stop();
    await service?.stop();
    if (am !== null) rmSync(am.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: 'alert-intake',
  title:
    'durable Alertmanager webhook intake (POST /v1/alerts/alertmanager), against Alertmanager’s own POST /api/v2/alerts',
  run,
};
export default bench;

// The whole lab, once for this file: every part answers, every connector is healthy through
// the API, discovery finds the lab's services and the links between them, a few faults
// travel Prometheus → Alertmanager → the service as episodes that heal clears, and the
// gates' fixes (terminate_idle, revert) end their faults with heal still working after.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, connectors } from './connect.js';
import { headConfig, readLiveConfig } from './deploy.js';
import { activeFaults, heal, inject, type FaultName } from './faults.js';
import { httpsStatus, startLab, unitsUp, type Lab } from './lab.js';
import { alertRules } from './monitoring.js';
import { until } from './processes.js';

interface LedgerEvent {
  seq: number;
  type: string;
  trace_id: string | null;
  data: Record<string, unknown>;
}

let lab: Lab;
const parent = mkdtempSync(join(tmpdir(), 'lab-test-'));

beforeAll(async () => {
  // Its own folder and addresses, so a lab someone runs by hand (127.0.1.x) is left alone.
  lab = await startLab({
    dir: join(parent, 'lab'),
    net: '127.0.5',
  });
}, 90_000);

afterAll(async () => {
  await lab?.stop();
  rmSync(parent, { recursive: true, force: true });
}, 60_000);

const get = <T>(path: string) => api<T>(lab.api, 'GET', path);

async function lastSeq(): Promise<number> {
  const page = await get<{ events: LedgerEvent[] }>('/v1/ledger?order=desc&limit=1');
  return page.events[0]?.seq ?? 0;
}

async function signalsAfter(seq: number): Promise<LedgerEvent[]> {
  const page = await get<{ events: LedgerEvent[] }>(
    `/v1/ledger?type=signal.&order=asc&limit=500&after_seq=${String(seq)}`,
  );
  return page.events;
}

describe('the lab', () => {
  it('answers on every part', async () => {
    const s = lab.state;
    expect(await httpsStatus(lab.siteUrl, s.web.ca)).toBe(200);
    const app = `http://${s.hosts.app.address}:${String(s.app.port)}`;
    expect((await fetch(`${app}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${app}/metrics`)).text()).toContain('lab_app_requests_total');
    expect(unitsUp(s)).toEqual({ nginx: true, app: true, postgresql: true });
    expect((await fetch(`${s.monitor.alertmanager}/-/ready`)).ok).toBe(true);
    for (const exporter of [s.monitor.postgres_exporter, s.monitor.nginx_exporter])
      expect((await fetch(`${exporter}/metrics`)).ok).toBe(true);
    type Targets = {
      data: { activeTargets: { labels: Record<string, string>; health: string }[] };
    };
    const targets = await until(
      'every Prometheus target up',
      async () => {
        const t = (await (await fetch(`${s.monitor.prometheus}/api/v1/targets`)).json()) as Targets;
        const all = t.data.activeTargets;
        return all.length > 0 && all.every((x) => x.health === 'up') ? all : undefined;
      },
      30_000,
    );
    expect(new Set(targets.map((t) => t.labels['job']))).toEqual(
      new Set(['app', 'app-health', 'nginx', 'node', 'postgresql', 'site']),
    );
    expect(new Set(targets.map((t) => t.labels['service']))).toEqual(
      new Set(['app', 'nginx', 'postgresql']),
    );
    type Rules = {
      data: { groups: { rules: { name: string; labels: Record<string, string> }[] }[] };
    };
    const rules = ((await (await fetch(`${s.monitor.prometheus}/api/v1/rules`)).json()) as Rules).data.groups.flatMap((g) => g.rules); // prettier-ignore
    expect(rules.map((r) => r.name).sort()).toEqual(alertRules(s.app.volume).map((r) => r.alert).sort()); // prettier-ignore
    for (const r of rules) expect(['nginx', 'app', 'postgresql']).toContain(r.labels['service']);
  }, 40_000);

  it('has every connector healthy through the API', async () => {
    const all = await until(
      'every connector healthy',
      async () => {
        const list = await connectors(lab.api);
        return list.length > 0 && list.every((c) => c.last_health?.ok === true) ? list : undefined;
      },
      30_000,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}: ${JSON.stringify(await connectors(lab.api))}`);
    });
    expect(all.map((c) => c.name).sort()).toEqual([
      'alertmanager', 'deploys', 'postgresql', 'prometheus', 'site', 'ssh-app', 'ssh-db', 'ssh-web',
    ]); // prettier-ignore
  }, 40_000);

  it('with the lab running, discovery finds every lab service and the links between them', async () => {
    const { job_id } = await api<{ job_id: string }>(lab.api, 'POST', '/v1/discover');
    const job = await until(
      'discovery',
      async () => {
        const j = await get<{ status: string; result: unknown }>(`/v1/jobs/${job_id}`);
        return j.status === 'running' ? undefined : j;
      },
      45_000,
    );
    expect(job.status).toBe('done');
    const estate = await get<{
      services: { name: string; hosts: string[]; origins: { connector: string | null }[] }[];
      links: { from: string; to: string; origin: { how: string } }[];
    }>('/v1/estate');
    // Exactly the lab's three services: the exporters, the probe and the gate's host
    // plumbing are attributed to them, not made services of their own.
    expect(estate.services.map((x) => x.name).sort()).toEqual(['app', 'nginx', 'postgresql']);
    const hosts = Object.fromEntries(estate.services.map((x) => [x.name, x.hosts]));
    expect(hosts['nginx']).toContain(lab.state.hosts.web.address);
    expect(hosts['app']).toContain(lab.state.hosts.app.address);
    expect(hosts['postgresql']).toContain(lab.state.hosts.db.address);
    const links = estate.links.map((l) => `${l.from}→${l.to}`);
    expect(links).toEqual(expect.arrayContaining(['nginx→app', 'app→postgresql']));
    for (const l of estate.links)
      expect(l.origin.how, `${l.from}→${l.to}`).toMatch(/^observed tcp connection /);
    // The probe of the site is recorded as how nginx was found, beside ssh and Prometheus.
    const nginx = estate.services.find((x) => x.name === 'nginx');
    expect(nginx?.origins.map((o) => o.connector).sort()).toEqual(
      expect.arrayContaining(['prometheus', 'site', 'ssh-web']),
    );
  }, 60_000);

  // Faults: each fires its alert into the service as an episode, and heal resolves it. The
  // CPU hog is checked by hand only: on a busy machine its rule fires without it.
  it.each([
    ['service-down', 'LabNginxDown', 'nginx'],
    ['app-down', 'LabAppDown', 'app'],
    ['disk-full', 'LabDiskFull', 'app'],
    ['db-down', 'LabPostgresDown', 'postgresql'],
    ['pool-exhausted', 'LabPgConnectionsExhausted', 'postgresql'],
    ['bad-deploy', 'LabAppErrors', 'app'],
    ['cert-expiry', 'LabCertExpiring', 'nginx'],
    ['slow-upstream', 'LabSlowUpstream', 'nginx'],
    ['memory-pressure', 'LabMemoryPressure', 'app'],
  ] as [FaultName, string, string][])(
    '%s fires %s on %s as an episode, and heal clears it',
    async (fault, alert, service) => {
      // An alert still firing from the case before (pool-exhausted makes the app answer 500
      // too) would not fire again: wait until it has ended.
      await until(
        `${alert} no longer firing`,
        async () => {
          const live = await get<{ running: { status: string; alerts: string[] }[] }>('/v1/live');
          return live.running.some((r) => r.status === 'open' && r.alerts.includes(alert))
            ? undefined
            : true;
        },
        // The 15 s error-rate window, Alertmanager's resolve and the episode's close: well
        // under a minute idle, longer on a loaded CI machine.
        120_000,
      );
      const from = await lastSeq();
      await inject(lab.state, fault);
      let fired: LedgerEvent;
      try {
        fired = await until(
          `${alert} fired into the service`,
          async () =>
            (await signalsAfter(from)).find(
              (e) => e.type === 'signal.fired' && e.data['name'] === alert,
            ),
          // bad-deploy waits for the app's error rate: 19 s idle, over 40 s on a busy machine
          75_000,
        );
      } finally {
        await heal(lab.state, fault);
      }
      expect(fired.data).toMatchObject({ source: 'alertmanager', service, status: 'firing' });
      expect(fired.trace_id).toMatch(/^ep-/);
      const live = await get<{ running: { episode_id: string; service: string; alerts: string[] }[] }>('/v1/live'); // prettier-ignore
      expect(live.running).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ episode_id: fired.trace_id, service, alerts: expect.arrayContaining([alert]) as unknown }),
        ]),
      ); // prettier-ignore
      const resolved = await until(
        `${alert} resolved`,
        async () =>
          (await signalsAfter(fired.seq)).find(
            (e) => e.type === 'signal.resolved' && e.data['name'] === alert,
          ),
        40_000,
      );
      expect(resolved.trace_id).toBe(fired.trace_id);
      expect(unitsUp(lab.state)).toEqual({ nginx: true, app: true, postgresql: true });
    },
    270_000,
  );
  /** A command through a lab host's gate, over ssh with the service's own key for that host. */
  async function gateOn(h: 'app' | 'db', command: string) {
    type Listed = { connectors: { name: string; settings: Record<string, unknown> }[] };
    const c = (await get<Listed>('/v1/connectors')).connectors.find((x) => x.name === `ssh-${h}`);
    const settings = c?.settings ?? {};
    const key = (settings['private_key'] as { file: string }).file;
    const known = join(parent, `known_hosts_${h}`);
    const { address, ssh_port } = lab.state.hosts[h];
    writeFileSync(known, `[${address}]:${String(ssh_port)} ${String(settings['host_key'])}\n`);
    const r = spawnSync(
      'ssh',
      ['-F', '/dev/null', '-i', key, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes',
        '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${known}`, '-o', 'LogLevel=ERROR',
        '-p', String(ssh_port), `root@${address}`, command],
      { encoding: 'utf8', timeout: 60_000 },
    ); // prettier-ignore
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  async function batchSessions(): Promise<number> {
    const s = lab.state;
    const c = new pg.Client({ host: s.db.socket_dir, port: s.db.port, user: 'postgres', database: 'postgres' }); // prettier-ignore
    c.on('error', () => undefined);
    await c.connect();
    try {
      const r = await c.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1', [s.db.batch_role]); // prettier-ignore
      return Number(r.rows[0]?.n ?? 0);
    } finally {
      await c.end();
    }
  }

  it("the gates' fixes end pool-exhausted and bad-deploy, and heal still works after them", async () => {
    const s = lab.state;
    // Idle sessions of the batch role, ended through the db host's gate.
    await inject(s, 'pool-exhausted');
    try {
      await until('the batch role holding sessions', async () => ((await batchSessions()) > 3 ? true : undefined), 20_000); // prettier-ignore
      expect(await gateOn('db', 'dry_run terminate_idle lab_batch')).toMatchObject({
        code: 0,
        stdout: 'would terminate_idle lab_batch: allowed\n',
      });
      const r = await gateOn('db', 'terminate_idle lab_batch');
      expect(r.code, r.stderr).toBe(0);
      expect(Number(/^terminated (\d+) idle sessions of role lab_batch$/m.exec(r.stdout)?.[1])).toBeGreaterThan(3); // prettier-ignore
      await until('the batch sessions gone', async () => ((await batchSessions()) === 0 ? true : undefined), 10_000); // prettier-ignore
      expect(await gateOn('db', 'terminate_idle postgres')).toMatchObject({ code: 126 });
    } finally {
      await heal(s, 'pool-exhausted');
    }
    expect(activeFaults(s)['pool-exhausted']).toBeUndefined();

    // A bad deploy undone through the app host's gate: the commit's parent config restored.
    const commits = () => Number(execFileSync('git', ['-C', s.deploy.repo, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' }).trim()); // prettier-ignore
    const before = commits();
    await inject(s, 'bad-deploy');
    const commit = activeFaults(s)['bad-deploy']?.commit ?? '';
    try {
      expect(readLiveConfig(s.app.config).database.name).toBe('shop_v2');
      expect((await gateOn('app', 'dry_run revert app-config')).stdout).toBe('would revert app-config: allowed\n'); // prettier-ignore
      const r = await gateOn('app', `revert app-config ${commit}`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^reverted [0-9a-f]{12} as [0-9a-f]{12}\napplied config\.json to the app host\n$/); // prettier-ignore
      expect(readLiveConfig(s.app.config).database.name).toBe('shop');
      expect(headConfig(s.deploy.repo).database.name).toBe('shop');
      expect(commits()).toBe(before + 2);
      // A second revert of the same commit changes nothing in the repository.
      expect((await gateOn('app', `revert app-config ${commit}`)).stdout).toMatch(
        /already as before/,
      );
      expect(commits()).toBe(before + 2);
      expect((await gateOn('app', 'revert app-config 0000000')).code).toBe(1);
    } finally {
      await heal(s, 'bad-deploy');
    }
    // Heal finds the repository and the app host as they should be: nothing more to commit.
    expect(activeFaults(s)['bad-deploy']).toBeUndefined();
    expect(commits()).toBe(before + 2);
    expect(readLiveConfig(s.app.config).database.name).toBe('shop');
    const app = `http://${s.hosts.app.address}:${String(s.app.port)}/healthz`;
    await until('the app healthy again', async () => ((await fetch(app)).status === 200 ? true : undefined), 20_000); // prettier-ignore
    expect(readFileSync(join(s.dir, 'app', 'gate.log'), 'utf8')).toContain(`action done: revert app-config ${commit}`); // prettier-ignore
    expect(readFileSync(join(s.dir, 'db', 'gate.log'), 'utf8')).toMatch(/action done: terminate_idle lab_batch/); // prettier-ignore
  }, 120_000);

  it("never shows a secret: not in answers, the ledger, the service log or the gates' logs", async () => {
    // Let the snapshots read every connector first, so their facts are searched too.
    type Doctor = { checks: { check: string; status: string }[] };
    await until(
      'every connector snapshotted',
      async () => {
        const d = await get<Doctor>('/v1/doctor?fresh=1');
        return d.checks.find((c) => c.check === 'What-changed snapshots')?.status === 'ok'
          ? true
          : undefined;
      },
      40_000,
    );
    type Listed = { connectors: { name: string; settings: Record<string, unknown> }[] };
    const list = await get<Listed>('/v1/connectors');
    const files = list.connectors.flatMap((c) =>
      Object.values(c.settings).flatMap((v) =>
        typeof v === 'object' && v !== null && typeof (v as { file?: unknown }).file === 'string'
          ? [(v as { file: string }).file]
          : [],
      ),
    );
    // The three ssh private keys and the database reader's password, at least.
    expect(files.length).toBeGreaterThanOrEqual(4);
    const planted: string[] = [lab.adminToken];
    for (const f of files) {
      expect(statSync(f).mode & 0o777, f).toBe(0o600);
      // A key is searched for by each line of its body; a password whole.
      const lines = readFileSync(f, 'utf8')
        .split('\n')
        .map((l) => l.trim());
      planted.push(...lines.filter((l) => l.length >= 16 && !l.startsWith('-----')));
    }
    const ledger: unknown[] = [];
    for (let after = 0; ;) {
      const page = await get<{ events: LedgerEvent[] }>(
        `/v1/ledger?order=asc&limit=2000&after_seq=${String(after)}`,
      );
      ledger.push(...page.events);
      if (page.events.length < 2000) break;
      after = page.events[page.events.length - 1]?.seq ?? after;
    }
    expect(ledger.some((e) => (e as LedgerEvent).type === 'snapshot.changed')).toBe(true);
    const gateLogs = (['web', 'app', 'db'] as const).map((h) => {
      try {
        return readFileSync(join(lab.state.dir, h, 'gate.log'), 'utf8');
      } catch {
        return '';
      }
    });
    const everything = [
      JSON.stringify(list),
      JSON.stringify(await get('/v1/connectors/catalogue')),
      JSON.stringify(await get('/v1/estate')),
      JSON.stringify(await get('/v1/doctor?fresh=1')),
      JSON.stringify(await get('/v1/status')),
      JSON.stringify(ledger),
      lab.serviceLog(),
      ...gateLogs,
    ].join('\n');
    for (const secret of planted)
      expect(everything.includes(secret), `a secret (${secret.slice(0, 4)}…) was shown`).toBe(
        false,
      );
  }, 60_000);
});

// startLab: the whole estate on loopback, started in parallel where nothing waits on
// anything, then the service connected to it. stopLab (the handle's stop) undoes all of it,
// including whatever a fault or a gate restart started since.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { prepareApp } from './app-host.js';
import { connectService, type Api } from './connect.js';
import {
  BATCH_ROLE,
  DATABASE,
  preparePostgresUnit,
  psqlCommand,
  READER_ROLE,
  APP_ROLE,
  setUpDatabase,
} from './db.js';
import { applyDeploy, initDeployRepo, writeRevertScript } from './deploy.js';
import {
  startBlackboxExporter,
  startLabAlertmanager,
  startLabPrometheus,
  startNginxExporter,
  startNodeExporter,
  startPostgresExporter,
} from './exporters.js';
import { activeFaults } from './faults.js';
import { seedGateStore, writeGateConfig } from './gate.js';
import {
  alive,
  hostAddresses,
  labDir,
  readState,
  statePath,
  writeState,
  type HostName,
  type LabState,
  type UnitFiles,
} from './layout.js';
import {
  alertmanagerConfig,
  alertRules,
  blackboxConfig,
  prometheusConfig,
  rulesFile,
} from './monitoring.js';
import { startPostgres } from './postgres.js';
import { freePort, startService, until } from './processes.js';
import { startSshd, type Sshd } from './sshd.js';
import { issueSiteCert, makeCa } from './tls.js';
import { startUnit, stopUnit, unitPid } from './units.js';
import { mountVolume, unmountUnder, writeVolumeMetrics } from './volume.js';
import { prepareWeb } from './web.js';

export interface LabOptions {
  /** The lab folder; SVC_LAB_DIR or /tmp/svc-lab by default. */
  readonly dir?: string;
  /** The /24 the hosts' addresses come from; 127.0.1 by default (127.0.1.1 is the web host). */
  readonly net?: string;
  readonly maxConnections?: number;
  /** More environment for the service (e.g. SVC_LAB_APPROVER=1); never SVC_DATA or tokens. */
  readonly serviceEnv?: Readonly<Record<string, string>>;
  /** Mount the app volume as a tmpfs (default); false tries the plain-folder fallback. */
  readonly mount?: boolean;
  /** Progress lines (never secrets). */
  readonly log?: (line: string) => void;
}

export interface Lab {
  readonly state: LabState;
  readonly adminToken: string;
  readonly api: Api;
  readonly siteUrl: string;
  /** Output of the programs the lab runs as children, for a failing test's message. */
  output(): string;
  /** The service's own log (its last 20,000 characters). */
  serviceLog(): string;
  stop(): Promise<void>;
}

/** Marks a folder the lab made, which it may empty. */
const MARKER = '.svc-lab';

const secret = () => randomBytes(18).toString('base64url');

function writeSecret(file: string, value: string): string {
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return file;
}

/** GET over https trusting the lab CA: the status, or undefined when nothing answered. */
export function httpsStatus(url: string, ca: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = httpsGet(url, { ca: readFileSync(ca), timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => {
      resolve(undefined);
    });
    req.on('timeout', () => {
      req.destroy();
    });
  });
}

/** Ends what a lab that died without stopping left behind in `dir`, then empties it. */
async function clearStale(dir: string): Promise<void> {
  if (existsSync(statePath(dir))) {
    const old = readState(dir);
    if (old.pid !== process.pid && alive(old.pid))
      throw new Error(
        `a lab is running in ${dir} (pid ${String(old.pid)}); stop it first (Ctrl-C)`,
      );
    for (const f of Object.values(activeFaults(old)))
      if (f.pid !== undefined && alive(f.pid)) process.kill(f.pid, 'SIGKILL');
    for (const unit of [old.web.unit, old.app.unit, old.db.unit])
      await stopUnit(unit).catch(() => undefined);
  } else {
    // A start that was cut short wrote no state yet: its daemons are known by their pidfiles.
    for (const pidfile of [join(dir, 'web', 'nginx.pid'), join(dir, 'app', 'app.pid')]) {
      const pid = existsSync(pidfile) ? Number(readFileSync(pidfile, 'utf8').trim()) : NaN;
      if (Number.isInteger(pid) && pid > 1 && alive(pid)) process.kill(pid, 'SIGTERM');
    }
  }
  // Only a folder the lab made is emptied: SVC_LAB_DIR pointing at a home folder must not be.
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, MARKER)))
    throw new Error(`${dir} is not empty and not a lab folder; choose another SVC_LAB_DIR`);
  unmountUnder(dir);
  rmSync(dir, { recursive: true, force: true });
}

export async function startLab(opts: LabOptions = {}): Promise<Lab> {
  const t0 = Date.now();
  const log = opts.log ?? (() => undefined);
  const dir = opts.dir ?? labDir();
  const net = opts.net ?? '127.0.1';
  const maxConnections = opts.maxConnections ?? 30;
  if (!/^127\.\d{1,3}\.\d{1,3}$/.test(net))
    throw new Error(`net ${net}: the hosts live on loopback, like 127.0.1`);
  const hosts = hostAddresses(net);
  await clearStale(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, MARKER),
    'a lab folder: `npm run lab` empties it at start and at the end\n',
  );
  const sub = (...p: string[]) => {
    const d = join(dir, ...p);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const [webDir, appDir, dbDir, monDir, secrets, textfileDir] = [
    sub('web'), sub('app'), sub('db'), sub('monitor'), sub('secrets'), sub('textfile'),
  ]; // prettier-ignore

  // Stopped in three waves, each in parallel: the watchers and the service (so nothing
  // alerts on the estate being taken down), then the units (whoever started them last: the
  // lab, a heal or the gate), then the rest (PostgreSQL's own handle after its unit).
  const waves: (() => Promise<void>)[][] = [[], [], []];
  const outputs: { name: string; output: () => string }[] = [];
  const keep =
    (name: string, wave: 0 | 2 = 2) =>
    <T extends { stop(): Promise<void>; output(): string }>(p: T): T => {
      waves[wave]?.push(() => p.stop());
      outputs.push({ name, output: () => p.output() });
      return p;
    };
  const unitStop = (unit: UnitFiles) => waves[1]?.push(() => stopUnit(unit));
  const stopAll = async () => {
    for (const wave of waves) await Promise.allSettled(wave.splice(0).map((s) => s()));
  };
  // Starts run in parallel: when one fails, the others are waited for (so what they start is
  // stopped too), and their failures are handled here rather than crashing the process.
  const starting: Promise<unknown>[] = [];
  const track = <T>(p: Promise<T>): Promise<T> => {
    starting.push(p.catch(() => undefined));
    return p;
  };

  try {
    const [https, status, appPort, nodeWeb, nodeApp, nodeDb, bb, pgExp, nginxExp, prom, am] =
      await Promise.all([
        freePort(), freePort(), freePort(), freePort(), freePort(), freePort(),
        freePort(), freePort(), freePort(), freePort(), freePort(),
      ]); // prettier-ignore
    const at = (h: HostName, port: number) => `${hosts[h]}:${String(port)}`;
    const listen = {
      prometheus: at('monitor', prom),
      alertmanager: at('monitor', am),
      blackbox: at('monitor', bb),
      node: { web: at('web', nodeWeb), app: at('app', nodeApp), db: at('db', nodeDb) },
      postgresExporter: at('db', pgExp),
      nginxExporter: at('web', nginxExp),
    };
    const siteUrl = `https://${at('web', https)}/`;
    const ingest = secret();
    const pw = { app: secret(), reader: secret(), batch: secret() };
    const files = {
      app: writeSecret(join(secrets, 'app.password'), pw.app),
      reader: writeSecret(join(secrets, `${READER_ROLE}.password`), pw.reader),
      batch: writeSecret(join(secrets, `${BATCH_ROLE}.password`), pw.batch),
    };

    const tls = makeCa(join(dir, 'tls'));
    issueSiteCert(tls, hosts.web, 365);
    const volume = join(appDir, 'volume');
    const mounted = opts.mount !== false && mountVolume(volume);
    if (!mounted) mkdirSync(volume, { recursive: true });
    log(
      mounted
        ? `app volume: 16 MiB tmpfs at ${volume}`
        : `app volume: ${volume} (not mounted: a plain folder, sized by the lab)`,
    );
    const web = prepareWeb({
      dir: webDir, address: hosts.web, httpsPort: https, statusPort: status,
      upstream: at('app', appPort), cert: tls.cert, key: tls.key,
    }); // prettier-ignore
    const liveConfig = join(appDir, 'config.json');
    const appUnit = prepareApp({
      dir: appDir, address: hosts.app, port: appPort, config: liveConfig,
      passwordFile: files.app, volume,
    }); // prettier-ignore
    const gateEnv = (d: string) => ({ SVC_GATE_CONF: join(d, 'gate.conf') });

    // Everything that waits on nothing starts at once.
    const service = track(
      startService({
        ...opts.serviceEnv,
        SVC_INGEST_TOKEN: ingest,
        SVC_SECRETS_DIRS: secrets,
      }).then(keep('service', 0)),
    );
    const postgres = track(
      startPostgres({ address: hosts.db, maxConnections }).then(keep('postgresql')),
    );
    const sshdOn = (h: 'web' | 'app' | 'db') =>
      track(
        startSshd({ address: hosts[h], authorizedKeys: '', env: gateEnv(join(dir, h)) }).then(
          keep(`sshd ${h}`),
        ),
      );
    // Tracked as a whole too: a failure is handled when it happens, not only when awaited
    // (an unhandled rejection would end the process and leave everything running).
    const sshd = track(Promise.all([sshdOn('web'), sshdOn('app'), sshdOn('db')]));
    const watchers = track(Promise.all([
      track(startNodeExporter(listen.node.web, join(monDir, 'node-web')).then(keep('node exporter web'))),
      track(startNodeExporter(listen.node.app, join(monDir, 'node-app'), textfileDir).then(keep('node exporter app'))),
      track(startNodeExporter(listen.node.db, join(monDir, 'node-db')).then(keep('node exporter db'))),
      track(startBlackboxExporter(listen.blackbox, join(monDir, 'blackbox'), blackboxConfig(tls.ca)).then(keep('blackbox exporter'))),
      track(startLabPrometheus(
        listen.prometheus, join(monDir, 'prometheus'),
        prometheusConfig({
          app: at('app', appPort), nginxExporter: listen.nginxExporter,
          postgresExporter: listen.postgresExporter, blackbox: listen.blackbox,
          nodeExporters: listen.node, siteUrl, healthUrl: `http://${at('app', appPort)}/healthz`,
        }, listen.alertmanager),
        rulesFile(alertRules(volume)),
      ).then(keep('prometheus', 0))),
      track(service.then((svc) =>
        startLabAlertmanager(listen.alertmanager, join(monDir, 'alertmanager'),
          alertmanagerConfig(`${svc.url}/v1/alerts/alertmanager`, ingest)).then(keep('alertmanager', 0)))),
    ])); // prettier-ignore

    // The data path: PostgreSQL → its set-up → the first deploy → the app → nginx.
    const pgl = await postgres;
    await setUpDatabase(pgl, maxConnections, pw);
    const dbUnit = preparePostgresUnit(pgl, join(dbDir, 'bin'));
    unitStop(dbUnit);
    const pgExporter = track(startPostgresExporter(listen.postgresExporter, join(monDir, 'postgres-exporter'), { socketDir: pgl.dir, port: pgl.port }).then(keep('postgres exporter'))); // prettier-ignore
    const repo = join(dir, 'deploy');
    initDeployRepo(repo, {
      title: 'Lab shop',
      pool_size: 5,
      slow_ms: 0,
      database: { host: hosts.db, port: pgl.port, name: DATABASE, user: APP_ROLE },
    });
    applyDeploy(repo, liveConfig);
    // The gate's `revert app-config <commit>` runs this: a deploy undone through the service.
    const revertScript = writeRevertScript(
      join(appDir, 'bin', 'app-config-revert'),
      repo,
      liveConfig,
    );
    unitStop(appUnit);
    await startUnit(appUnit);
    unitStop(web.unit);
    await startUnit(web.unit);
    // Debian's nginx exporter (0.11) gives up at start when nginx does not answer yet.
    const nginxExporter = track(startNginxExporter(listen.nginxExporter, join(monDir, 'nginx-exporter'), `http://${at('web', status)}/stub_status`).then(keep('nginx exporter'))); // prettier-ignore
    log(
      `data path up: nginx → app → PostgreSQL (${String(Math.round((Date.now() - t0) / 1000))} s)`,
    );

    const [webSshd, appSshd, dbSshd] = await sshd;
    const sshOf: Record<'web' | 'app' | 'db', Sshd> = { web: webSshd, app: appSshd, db: dbSshd };
    const gateHosts = [
      { h: 'web', unit: { name: 'nginx', files: web.unit, ports: [https, status] }, allow: ['restart nginx', 'reload nginx', 'restore nginx'], certs: [tls.cert], files: [web.conf] },
      { h: 'app', unit: { name: 'app', files: appUnit, ports: [appPort] }, allow: ['restart app', 'clear_cache app-cache', 'revert app-config', 'restore app'], caches: { 'app-cache': join(volume, 'cache') }, reverts: { 'app-config': revertScript }, files: [liveConfig] },
      { h: 'db', unit: { name: 'postgresql', files: dbUnit, ports: [pgl.port] }, allow: ['restart postgresql', 'reload postgresql', `terminate_idle ${BATCH_ROLE}`], psql: psqlCommand(pgl), files: [join(pgl.dir, 'data', 'postgresql.auto.conf'), join(pgl.dir, 'data', 'pg_hba.conf')] },
    ] as const; // prettier-ignore
    // The lab runs no DNS of its own: localhost (from /etc/hosts) is the one name every host
    // should always resolve, so the resolver check can tell one bad name from broken lookups.
    for (const g of gateHosts) {
      const conf = join(dir, g.h, 'gate.conf');
      writeGateConfig({ ...g, resolve: ['localhost'], conf, log: join(dir, g.h, 'gate.log') });
      seedGateStore(conf);
    }

    const svc = await service;
    const [, , , blackbox, prometheus, alertmanager] = await watchers;
    await Promise.all([pgExporter, nginxExporter]);
    const a: Api = { url: svc.url, token: svc.adminToken };
    const skipped = await connectService(
      a,
      (['web', 'app', 'db'] as const).map((h) => ({
        name: `ssh-${h}`, host: hosts[h], port: sshOf[h].port, hostKey: sshOf[h].hostKey, dir: sshOf[h].dir,
      })),
      {
        prometheus: prometheus.url, alertmanager: alertmanager.url, site: siteUrl, ca: tls.ca,
        postgres: { host: hosts.db, port: pgl.port, database: DATABASE, user: READER_ROLE, passwordFile: files.reader },
        deployRepo: repo,
      },
    ); // prettier-ignore

    if (skipped.length > 0)
      log(`not connected (this build has no such connector kind): ${skipped.join(', ')}`);
    const adminTokenFile = writeSecret(join(dir, 'admin-token'), a.token);
    const state: LabState = {
      version: 1,
      dir,
      pid: process.pid,
      started_at: new Date().toISOString(),
      net,
      service: { url: svc.url, admin_token_file: adminTokenFile },
      hosts: {
        web: { address: hosts.web, ssh_port: webSshd.port },
        app: { address: hosts.app, ssh_port: appSshd.port },
        db: { address: hosts.db, ssh_port: dbSshd.port },
        monitor: { address: hosts.monitor, ssh_port: null },
      },
      web: { https_port: https, status_port: status, conf: web.conf, cert: tls.cert, key: tls.key, ca: tls.ca, unit: web.unit },
      app: { port: appPort, config: liveConfig, volume, volume_mounted: mounted, cache: join(volume, 'cache'), unit: appUnit },
      db: {
        port: pgl.port, socket_dir: pgl.dir, max_connections: maxConnections, database: DATABASE,
        batch_role: BATCH_ROLE, batch_password_file: files.batch, app_password_file: files.app, unit: dbUnit,
      },
      deploy: { repo, config_path: 'config.json' },
      monitor: {
        prometheus: prometheus.url, alertmanager: alertmanager.url, blackbox: blackbox.url,
        node_exporters: { web: `http://${listen.node.web}`, app: `http://${listen.node.app}`, db: `http://${listen.node.db}` },
        postgres_exporter: `http://${listen.postgresExporter}`, nginx_exporter: `http://${listen.nginxExporter}`,
      },
      textfile_dir: textfileDir,
    }; // prettier-ignore
    writeState(state);

    let timer: NodeJS.Timeout | undefined;
    if (!mounted) {
      const tick = () => {
        try {
          writeVolumeMetrics(textfileDir, volume);
        } catch {
          // the lab is stopping
        }
      };
      tick();
      timer = setInterval(tick, 1000);
    }

    await until('the site through nginx', async () => ((await httpsStatus(siteUrl, tls.ca)) === 200 ? true : undefined), 20_000); // prettier-ignore
    log(`lab up in ${String(Math.round((Date.now() - t0) / 100) / 10)} s`);

    return {
      state,
      adminToken: a.token,
      api: a,
      siteUrl,
      serviceLog: () => svc.output(),
      output: () =>
        outputs.map((p) => `--- ${p.name}\n${p.output().slice(-3000)}`).join('\n') +
        `\n--- app log\n${readTail(appUnit.log)}\n--- nginx error log\n${readTail(web.unit.log)}`,
      async stop() {
        clearInterval(timer);
        for (const f of Object.values(activeFaults(state)))
          if (f.pid !== undefined && alive(f.pid)) process.kill(f.pid, 'SIGKILL');
        await stopAll();
        unmountUnder(dir);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(starting);
    await stopAll();
    unmountUnder(dir);
    throw err;
  }
}

function readTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-3000);
  } catch {
    return '';
  }
}

/** Units whose process is alive now, for status lines. */
export function unitsUp(s: LabState): Record<string, boolean> {
  return {
    nginx: unitPid(s.web.unit) !== null,
    app: unitPid(s.app.unit) !== null,
    postgresql: unitPid(s.db.unit) !== null,
  };
}

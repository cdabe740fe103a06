// The ssh kind against Debian's sshd (e2e/lab/sshd.ts) and the real gate: every operation
// parsed from the host's real output, refusals, host key pinning, dead and silent ports
// failing within timeout_s, and the private key never in an answer, an error or a log.
// Then the two key routes over HTTP, through the real auth plugin and ledger.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type Sshd } from '../../../e2e/lab/sshd.js';
import { auth } from '../../http/auth.js';
import { createHttpServer } from '../../http/server.js';
import { createFakeClock, systemClock } from '../../shared/clock.js';
import { Secret } from '../../shared/secret.js';
import type { ConnectorClient } from '../kind.js';
import { createConnectorsService, createConnectorsStore, connectorsRoutes } from '../index.js';
import { createRegistry } from '../registry.js';
import { createConnectorRuntime } from '../runtime.js';
import { createKeypair } from '../ssh-keys.js';
import { gateOutput, runGate, sshKind, targetOf } from './ssh.js';
import { parseHostKeyLine } from './ssh.parse.js';
import { openLedgerBench } from '../../testing/ledger-bench.js';
import { capturedLogger } from '../../testing/logger.js';

const GATE = fileURLToPath(new URL('../../../build/gate/svc-gate', import.meta.url));
const APP_CONF = 'upstream = 127.0.0.1:5432\ntoken = s3cret-token-value\n';
const ADMIN_TOKEN = 'admin-token-for-ssh-tests-0123456789abcdef';
const VIEWER_TOKEN = 'viewer-session-for-ssh-tests';

let dir: string;
let sshd: Sshd;
let keyFile: string;
let privateKey: string;
const { log, lines: logLines } = capturedLogger();
const gateLog = () =>
  existsSync(join(dir, 'gate.log')) ? readFileSync(join(dir, 'gate.log'), 'utf8') : '';

/** Everything the private key could leak as: the whole file and each base64 line of it. */
const keyPieces = (): string[] => [
  privateKey,
  ...privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----')),
];

const settingsFor = (over: Record<string, unknown> = {}) => ({
  host: sshd.host,
  port: sshd.port,
  user: 'root',
  private_key: new Secret(privateKey),
  host_key: sshd.hostKey,
  ...over,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ssh-'));
  mkdirSync(join(dir, 'cache'));
  writeFileSync(join(dir, 'cache', 'old'), 'x');
  writeFileSync(join(dir, 'app.log'), 'booted\nlistening\n');
  writeFileSync(join(dir, 'app.conf'), APP_CONF);
  // Stand-ins that record how the gate called them: psql's arguments and the SQL on stdin,
  // and the revert command's arguments.
  writeFileSync(
    join(dir, 'fake-psql'),
    `#!/bin/bash\nprintf '%s\\n' "$@" >${join(dir, 'psql-args')}\ncat >${join(dir, 'psql-sql')}\necho 2\n`,
    { mode: 0o755 },
  );
  writeFileSync(
    join(dir, 'revert.sh'),
    `#!/bin/bash\nprintf '%s|' "$#" "$@" >${join(dir, 'reverted')}\necho "reverted $1"\n`,
    { mode: 0o755 },
  );
  writeFileSync(
    join(dir, 'gate.conf'),
    [
      `log=${join(dir, 'gate.log')}`,
      'allow=restart app',
      'allow=clear_cache tmp',
      'allow=terminate_idle lab_batch',
      'allow=revert cfg',
      'allow=restore app',
      `store=${join(dir, 'store')}`,
      `file.app=${join(dir, 'app.conf')}`,
      `cache.tmp=${join(dir, 'cache')}`,
      `pg.psql=${join(dir, 'fake-psql')} -h /nowhere`,
      `revert.cfg=${join(dir, 'revert.sh')}`,
      `file=${join(dir, 'gate.conf')}`,
      `unit.app.pidfile=${join(dir, 'app.pid')}`,
      `unit.app.start=sleep 300 >/dev/null 2>&1 & echo $! >${join(dir, 'app.pid')}`,
      `unit.app.log=${join(dir, 'app.log')}`,
      '',
    ].join('\n'),
  );
  const pair = createKeypair(join(dir, 'secrets'), { name: 'lab', gate_path: GATE });
  keyFile = pair.private_key.file;
  privateKey = readFileSync(keyFile, 'utf8');
  sshd = await startSshd({
    authorizedKeys: `${pair.authorized_keys}\n`,
    env: { SVC_GATE_CONF: join(dir, 'gate.conf') },
  });
});

afterAll(async () => {
  await sshd.stop();
  const pid = existsSync(join(dir, 'app.pid'))
    ? Number(readFileSync(join(dir, 'app.pid'), 'utf8'))
    : 0;
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const signal = () => AbortSignal.timeout(20_000);

describe('the ssh kind against sshd and the gate', () => {
  let client: ConnectorClient;
  beforeAll(() => {
    client = sshKind.create(settingsFor());
  });

  it('checks health with the gate version', async () => {
    const h = await client.health(signal());
    expect(h.ok).toBe(true);
    expect(h.detail).toMatch(
      new RegExp(`^gate 1 on 127\\.0\\.0\\.1:${String(sshd.port)} in \\d+ ms$`),
    );
  });

  it('answers every read-only check from the host', async () => {
    expect(await client.call('services', {}, signal())).toEqual({
      units: [{ name: 'app', state: 'stopped', pid: null }],
    });
    const ports = (await client.call('ports', {}, signal())) as {
      listening: { address: string; port: number; process: string | null }[];
      established: { local_port: number; peer_port: number; process: string | null }[];
    };
    expect(ports.listening).toContainEqual({
      address: '127.0.0.1',
      port: sshd.port,
      process: 'sshd',
    });
    // Our own session is one of the established connections.
    expect(ports.established.some((e) => e.local_port === sshd.port)).toBe(true);
    const disk = (await client.call('disk', {}, signal())) as { filesystems: { mount: string }[] };
    expect(disk.filesystems.map((f) => f.mount)).toContain('/');
    const inodes = (await client.call('inodes', {}, signal())) as {
      filesystems: { mount: string; used_pct: number }[];
    };
    expect(inodes.filesystems.length).toBeGreaterThan(0);
    expect(inodes.filesystems.every((f) => f.used_pct >= 0 && f.used_pct <= 100)).toBe(true);
    expect(await client.call('memory', {}, signal())).toMatchObject({
      total_kb: expect.any(Number) as number,
      available_kb: expect.any(Number) as number,
    });
    expect(await client.call('load', {}, signal())).toMatchObject({
      cpus: expect.any(Number) as number,
    });
    expect(await client.call('journal', { unit: 'app', lines: 1 }, signal())).toEqual({
      unit: 'app',
      lines: ['listening'],
      recent: [],
      last: ['listening'],
      current: [],
    });
    expect(await client.call('certificates', {}, signal())).toEqual({ certificates: [] });
    const ps = (await client.call('processes', {}, signal())) as {
      processes: { command: string }[];
    };
    expect(ps.processes.some((p) => p.command.includes('sshd'))).toBe(true);
    const setup = (await client.call('setup', {}, signal())) as { facts: Record<string, string> };
    expect(setup.facts).toMatchObject({ gate: '1', 'unit:app': 'stopped' });
    expect(setup.facts[`file:${join(dir, 'gate.conf')}`]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('runs allowed actions and logs them on the host', async () => {
    expect(await client.call('restart', { unit: 'app' }, signal())).toEqual({
      ok: true,
      output: '',
    });
    const services = (await client.call('services', {}, signal())) as {
      units: { state: string }[];
    };
    expect(services.units[0]?.state).toBe('running');
    const cleared = (await client.call('clear_cache', { name: 'tmp' }, signal())) as {
      ok: boolean;
      output: string;
    };
    expect(cleared).toEqual({ ok: true, output: `cleared 1 entries from ${join(dir, 'cache')}` });
    expect(gateLog()).toMatch(/from=127\.0\.0\.1 action done: restart app/);
  });

  it('terminates idle sessions of a role: the role only as a psql variable', async () => {
    expect(await client.call('terminate_idle', { role: 'lab_batch' }, signal())).toEqual({
      ok: true,
      output: 'terminated 2 idle sessions of role lab_batch',
      terminated: 2,
    });
    const argv = readFileSync(join(dir, 'psql-args'), 'utf8').trim().split('\n');
    expect(argv).toEqual(['-h', '/nowhere', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-v', 'role=lab_batch']); // prettier-ignore
    const sql = readFileSync(join(dir, 'psql-sql'), 'utf8');
    expect(sql).toMatch(/usename = :'role' AND state = 'idle'/);
    expect(sql).not.toContain('lab_batch');
    expect(gateLog()).toMatch(/action done: terminate_idle lab_batch/);
  });

  it('reverts through the configured command with the commit as its one argument', async () => {
    const commit = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    expect(await client.call('revert', { name: 'cfg', commit }, signal())).toEqual({
      ok: true,
      output: `reverted ${commit}`,
    });
    expect(readFileSync(join(dir, 'reverted'), 'utf8')).toBe(`1|${commit}|`);
    expect(gateLog()).toContain(`action done: revert cfg ${commit}`);
  });

  it('dry-runs actions: allowed ones answer would …, others are refused, nothing changes', async () => {
    writeFileSync(join(dir, 'cache', 'kept'), 'x');
    const before = gateLog();
    for (const [action, arg] of [
      ['restart', 'app'],
      ['clear_cache', 'tmp'],
      ['terminate_idle', 'lab_batch'],
      ['revert', 'cfg'],
    ] as const)
      expect(await client.call('dry_run', { action, arg }, signal())).toEqual({
        ok: true,
        output: `would ${action} ${arg}: allowed`,
      });
    await expect(
      client.call('dry_run', { action: 'reload', arg: 'app' }, signal()),
    ).rejects.toThrow('refused by the gate: reload app is not allowed on this host');
    await expect(
      client.call('dry_run', { action: 'terminate_idle', arg: 'postgres' }, signal()),
    ).rejects.toThrow(/refused by the gate: terminate_idle postgres is not allowed/);
    expect(existsSync(join(dir, 'cache', 'kept'))).toBe(true);
    const added = gateLog().slice(before.length);
    expect(added).not.toMatch(/action: /);
    expect(added).toMatch(/dry run: clear_cache tmp: allowed/);
  });

  it('shows a watched file changed (masked) and restores it, as the config pack calls them', async () => {
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    await client.call('setup', {}, signal());
    const edited = APP_CONF.replace('5432', '5999').replace(
      's3cret-token-value',
      'n3w-token-value',
    );
    writeFileSync(join(dir, 'app.conf'), edited);
    writeFileSync(
      join(dir, 'app.log'),
      // Stamped: only errors logged since the change can name it.
      `booted\nlistening\n${new Date(Date.now() + 2000).toISOString()} error: connect 127.0.0.1:5999 refused\n`,
    );
    const changes = (await client.call('config_changes', { unit: 'app' }, signal())) as {
      changed: number;
      named: number;
      files: { path: string; current: string; previous: string; diff: string; summary: string }[];
    };
    expect(changes).toMatchObject({ changed: 1, named: 1 });
    expect(changes.files[0]).toMatchObject({
      path: join(dir, 'app.conf'),
      current: sha(edited),
      previous: sha(APP_CONF),
      summary: '-upstream = 127.0.0.1:5432 | +upstream = 127.0.0.1:5999',
    });
    const dry = (await client.call('dry_run', { action: 'restore', arg: 'app' }, signal())) as {
      output: string;
    };
    expect(dry.output).toMatch(/^would restore app: allowed\n/);
    expect(dry.output).toContain('+upstream = 127.0.0.1:5432');
    expect(readFileSync(join(dir, 'app.conf'), 'utf8')).toBe(edited);
    const done = (await client.call(
      'restore',
      { name: 'app', sha256: sha(APP_CONF) },
      signal(),
    )) as {
      output: string;
    };
    expect(done.output).toMatch(/^restored .*app\.conf to [0-9a-f]{12}\n/);
    expect(readFileSync(join(dir, 'app.conf'), 'utf8')).toBe(APP_CONF);
    for (const text of [JSON.stringify(changes), dry.output, done.output])
      for (const secret of ['s3cret-token-value', 'n3w-token-value'])
        expect(text).not.toContain(secret);
    await expect(
      client.call('restore', { name: 'app', sha256: '0'.repeat(64) }, signal()),
    ).rejects.toThrow(/refused by the gate: no kept version 000000000000 of a file of app/);
    expect(gateLog()).toContain(`action done: restore app ${sha(APP_CONF)}`);
  });

  it("checks the new actions' arguments before anything leaves this side", async () => {
    const before = gateLog();
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['terminate_idle', {}, /argument role must be a role name/],
      ['terminate_idle', { role: 'Lab' }, /argument role must be a role name/],
      ['terminate_idle', { role: 'x; drop table' }, /argument role must be a role name/],
      ['revert', { name: 'cfg' }, /argument commit must be a commit id/],
      ['revert', { name: 'cfg', commit: 'HEAD~1' }, /argument commit must be a commit id/],
      ['revert', { name: '../x', commit: 'abcdef0' }, /argument name must be a revert name/],
      ['dry_run', { action: 'rm', arg: 'x' }, /argument action must be one of restart, reload, clear_cache, terminate_idle, revert/],
      ['dry_run', { action: 'restart', arg: '../x' }, /argument arg must be a unit name/],
      ['dry_run', { action: 'terminate_idle', arg: 'A' }, /argument arg must be a role name/],
      ['restore', { name: 'app', sha256: 'abc' }, /argument sha256 must be a sha256/],
      ['restore', { name: '../x', sha256: 'a'.repeat(64) }, /argument name must be a unit name/],
      ['config_changes', { unit: 'a b' }, /argument unit must be a unit name/],
    ]; // prettier-ignore
    for (const [op, args, why] of bad)
      await expect(
        client.call(op, args, signal()),
        `${op} ${JSON.stringify(args)}`,
      ).rejects.toThrow(why);
    expect(gateLog()).toBe(before);
  });

  it('refuses what the gate refuses, with a line in its log', async () => {
    await expect(client.call('restart', { unit: 'nginx' }, signal())).rejects.toThrow(
      'refused by the gate: restart nginx is not allowed on this host',
    );
    await expect(client.call('reload', { unit: 'app' }, signal())).rejects.toThrow(
      /^refused by the gate: reload app is not allowed/,
    );
    await expect(client.call('clear_cache', { name: 'nope' }, signal())).rejects.toThrow(
      /refused by the gate: clear_cache nope is not allowed/,
    );
    // A command the kind would never send, straight to the gate: refused there too.
    const target = targetOf(settingsFor());
    for (const cmd of ['disk; id', 'cat /etc/shadow', 'journal ../../etc/shadow 5', 'sh']) {
      const answer = await runGate(target, cmd, signal());
      expect(answer.code).toBe(126);
      expect(() => gateOutput(answer, 'x', 'h')).toThrow(/^refused by the gate: /);
    }
    const logged = gateLog();
    expect(logged).toMatch(/refused: restart nginx is not allowed on this host: restart nginx/);
    expect(logged).toMatch(/refused: characters outside .*: disk; id/);
    // Bad arguments never leave this side.
    await expect(client.call('journal', { unit: '../x' }, signal())).rejects.toThrow(
      /argument unit must be a unit name/,
    );
    await expect(client.call('journal', { unit: 'app', lines: 501 }, signal())).rejects.toThrow(
      /argument lines must be an integer from 1 to 500/,
    );
  });

  it('refuses a host whose key is not the pinned one, naming both fingerprints', async () => {
    const other = ssh2.utils.generateKeyPairSync('ed25519').public;
    const logged = gateLog();
    const wrong = sshKind.create(settingsFor({ host_key: other }));
    const err = await wrong.health(signal()).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(
      /host key refused: the host offered SHA256:[A-Za-z0-9+/]{43}, pinned is SHA256:[A-Za-z0-9+/]{43}/,
    );
    expect(err?.message).toContain(`offered ${parseHostKeyLine(sshd.hostKey).fingerprint}`);
    expect(err?.message).toContain(`pinned is ${parseHostKeyLine(other).fingerprint}`);
    expect(gateLog()).toBe(logged); // nothing ran on the host
    expect(() => sshKind.create(settingsFor({ host_key: '' }))).toThrow(
      /host_key is empty: pin the host's key first/,
    );
    expect(() => sshKind.create(settingsFor({ host_key: 'ssh-ed25519 AAAA' }))).toThrow(
      /setting host_key is not a valid ssh-ed25519 public key/,
    );
  });

  it('refuses answers over 4 MiB', async () => {
    const pair = createKeypair(join(dir, 'secrets'), { name: 'big', gate_path: '/usr/bin/yes' });
    const big = await startSshd({ authorizedKeys: `${pair.authorized_keys}\n` });
    try {
      const target = targetOf({
        host: big.host,
        port: big.port,
        user: 'root',
        private_key: new Secret(readFileSync(pair.private_key.file, 'utf8')),
        host_key: big.hostKey,
      });
      await expect(runGate(target, 'version', signal())).rejects.toThrow(
        /larger than 4 MiB; refused/,
      );
    } finally {
      await big.stop();
    }
  });
});

describe('health through the runtime: failures within timeout_s, secrets never shown', () => {
  const registry = createRegistry([sshKind]);
  const runtime = createConnectorRuntime({
    registry,
    source: () => [],
    env: {},
    defaultConcurrency: 2,
    log,
    clock: systemClock,
  });
  const doc = (settings: Record<string, unknown>, timeout_s = 2) => ({
    kind: 'ssh',
    settings: {
      host: sshd.host,
      port: sshd.port,
      user: 'root',
      private_key: { file: keyFile },
      host_key: sshd.hostKey,
      ...settings,
    },
    timeout_s,
  });
  const details: string[] = [];
  let silent: Server;
  const silentSockets: Socket[] = [];
  let closedByClient = 0;

  beforeAll(async () => {
    silent = createServer((s) => {
      silentSockets.push(s);
      s.resume(); // read (and drop) the client's banner, so its FIN is seen
      s.on('close', () => (closedByClient += 1));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    for (const s of silentSockets) s.destroy();
    await new Promise((r) => silent.close(r));
    await runtime.close();
  });

  it('is healthy with the key from its 0600 file', async () => {
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const h = await runtime.probe('lab', doc({}));
    details.push(h.detail);
    expect(h).toMatchObject({ ok: true, detail: expect.stringMatching(/^gate 1 on /) as string });
  });

  it('fails fast on a dead port', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const started = Date.now();
    const h = await runtime.probe('dead', doc({ port }));
    details.push(h.detail);
    expect(h.ok).toBe(false);
    expect(h.detail).toMatch(new RegExp(`ssh to 127\\.0\\.0\\.1:${String(port)}: .*ECONNREFUSED`));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fails within timeout_s on a port that accepts and never speaks, and drops it', async () => {
    const port = (silent.address() as { port: number }).port;
    const started = Date.now();
    const h = await runtime.probe('silent', doc({ port }, 1));
    details.push(h.detail);
    expect(h).toMatchObject({ ok: false, detail: 'connector silent: timed out after 1 s' });
    expect(Date.now() - started).toBeLessThan(1800);
    await new Promise((r) => setTimeout(r, 200));
    expect({ accepted: silentSockets.length, closedByClient }).toEqual({
      accepted: 1,
      closedByClient: 1,
    });
  });

  it('says an unpinned host or a refused key plainly', async () => {
    const unpinned = await runtime.probe('unpinned', doc({ host_key: '' }));
    details.push(unpinned.detail);
    expect(unpinned).toMatchObject({ ok: false });
    expect(unpinned.detail).toMatch(/pin the host's key first/);
    const otherKey = join(dir, 'other-key');
    writeFileSync(otherKey, ssh2.utils.generateKeyPairSync('ed25519').private, { mode: 0o600 });
    const denied = await runtime.probe('denied', doc({ private_key: { file: otherKey } }));
    details.push(denied.detail);
    expect(denied.detail).toMatch(/the host did not accept the key/);
    const notAKey = join(dir, 'not-a-key');
    writeFileSync(notAKey, `${privateKey.slice(0, 120)}garbage`, { mode: 0o600 });
    const broken = await runtime.probe('broken', doc({ private_key: { file: notAKey } }));
    details.push(broken.detail);
    expect(broken.detail).toMatch(/private_key is not a private key ssh2 can read/);
  });

  it('never shows the private key: not in details, errors, logs or views', () => {
    const everything = [...details, ...logLines, JSON.stringify(runtime.list())].join('\n');
    for (const piece of keyPieces()) expect(everything).not.toContain(piece);
  });
});

describe('POST /v1/connectors/ssh/keypair and /hostkey', () => {
  async function serve() {
    const clock = createFakeClock('2026-11-22T00:00:00.000Z');
    const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
      join(dir, `svc-${String(Date.now())}.db`),
      clock,
    );
    const store = createConnectorsStore(db);
    projections.register(store.projection);
    const connectors = createConnectorsService({
      registry: createRegistry([sshKind]),
      store,
      ledger,
      writer,
      clock,
      log,
      env: {},
      secretsDir: join(dir, 'api-secrets'),
      file: join(dir, 'no-connectors.json'),
      defaultConcurrency: 2,
    });
    connectors.start();
    const app = createHttpServer({ log });
    await app.register(auth, {
      adminToken: new Secret(ADMIN_TOKEN),
      ingestToken: null,
      delayMs: 0,
      sessions: {
        lookup: (token) =>
          token === VIEWER_TOKEN
            ? { kind: 'session', name: 'vera', role: 'viewer', userId: 'u-vera' }
            : null,
      },
    });
    await app.register(connectorsRoutes, { prefix: '/v1', connectors, mode: () => 'configuring' });
    await app.ready();
    const post = (url: string, body: unknown, token: string | null = ADMIN_TOKEN) =>
      app.inject({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/json',
          ...(token !== null && { authorization: `Bearer ${token}` }),
        },
        payload: JSON.stringify(body),
      });
    const close = async () => {
      await app.close();
      await connectors.close();
      await writer.close();
      db.close();
    };
    const events = () =>
      ledgerStore
        .range(0, ledgerStore.head().seq, 100)
        .map((e) => ({ type: e.type, data: e.data }));
    return { app, post, close, connectors, events };
  }

  it('makes a key pair: 0600 file, gate-restricted line, no private key in the answer', async () => {
    const s = await serve();
    try {
      const res = await s.post('/v1/connectors/ssh/keypair', { name: 'web-1', gate_path: GATE });
      expect(res.statusCode, res.body).toBe(200);
      const file = join(dir, 'api-secrets', 'connector-web-1-private_key');
      const body = res.json<Record<string, unknown>>();
      expect(body).toEqual({
        name: 'web-1',
        public_key: expect.stringMatching(/^ssh-ed25519 AAAA\S+ svc-web-1$/) as string,
        fingerprint: expect.stringMatching(/^SHA256:/) as string,
        authorized_keys: `restrict,command="${GATE}" ${String(body['public_key'])}`,
        private_key: { file },
      });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const key = readFileSync(file, 'utf8');
      expect(key).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
      const event = s.events().find((e) => e.type === 'config.connector_keypair');
      expect(event?.data).toContain(file);
      for (const text of [res.body, JSON.stringify(s.events()), logLines.join('\n')])
        expect(text).not.toContain(key.split('\n')[1]);

      // Default gate path; the line works on a real sshd, and the pinned key from /hostkey
      // makes a connector that is healthy once saved.
      const def = await s.post('/v1/connectors/ssh/keypair', { name: 'web-2' });
      expect(def.json<{ authorized_keys: string }>().authorized_keys).toMatch(
        /^restrict,command="\/usr\/local\/bin\/svc-gate" ssh-ed25519 /,
      );
      const host = await startSshd({
        authorizedKeys: `${String(body['authorized_keys'])}\n`,
        env: { SVC_GATE_CONF: join(dir, 'gate.conf') },
      });
      try {
        const scan = await s.post('/v1/connectors/ssh/hostkey', {
          host: host.host,
          port: host.port,
        });
        expect(scan.statusCode, scan.body).toBe(200);
        expect(scan.json()).toEqual({
          host: host.host,
          port: host.port,
          host_key: host.hostKey,
          fingerprint: expect.stringMatching(/^SHA256:/) as string,
        });
        const put = await s.app.inject({
          method: 'PUT',
          url: '/v1/connectors/web-1',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          payload: JSON.stringify({
            kind: 'ssh',
            settings: {
              host: host.host,
              port: host.port,
              user: 'root',
              private_key: { file },
              host_key: scan.json<{ host_key: string }>().host_key,
            },
          }),
        });
        expect(put.statusCode, put.body).toBe(200);
        expect(await s.connectors.health('web-1')).toMatchObject({ ok: true });
      } finally {
        await host.stop();
      }
    } finally {
      await s.close();
    }
  });

  it('answers 400 naming the field, 401 without a token and 403 for a viewer', async () => {
    const s = await serve();
    try {
      const cases: [string, unknown, string][] = [
        ['/v1/connectors/ssh/keypair', {}, 'name'],
        ['/v1/connectors/ssh/keypair', { name: 'Bad Name' }, 'name'],
        ['/v1/connectors/ssh/keypair', { name: 'ok', gate_path: '/x" evil' }, 'gate_path'],
        ['/v1/connectors/ssh/keypair', { name: 'ok', extra: 1 }, 'extra'],
        ['/v1/connectors/ssh/hostkey', {}, 'host'],
        ['/v1/connectors/ssh/hostkey', { host: 'a b' }, 'host'],
        ['/v1/connectors/ssh/hostkey', { host: 'h', port: 70000 }, 'port'],
      ];
      for (const [url, body, field] of cases) {
        const res = await s.post(url, body);
        expect(res.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_input', field });
      }
      const anon = await s.post('/v1/connectors/ssh/keypair', { name: 'x' }, null);
      expect(anon.statusCode).toBe(401);
      const viewer = await s.post('/v1/connectors/ssh/hostkey', { host: 'h' }, VIEWER_TOKEN);
      expect(viewer.statusCode).toBe(403);
      expect(existsSync(join(dir, 'api-secrets', 'connector-x-private_key'))).toBe(false);

      // A port where nothing listens: a clear 400 about the host, soon.
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const port = (probe.address() as { port: number }).port;
      await new Promise((r) => probe.close(r));
      const dead = await s.post('/v1/connectors/ssh/hostkey', { host: '127.0.0.1', port });
      expect(dead.statusCode).toBe(400);
      expect(dead.json()).toMatchObject({
        error: 'host_key_scan_failed',
        field: 'host',
        message: expect.stringMatching(/ECONNREFUSED/) as string,
      });
    } finally {
      await s.close();
    }
  });
});

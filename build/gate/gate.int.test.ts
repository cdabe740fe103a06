// The gate script run directly, as sshd would run it (SSH_ORIGINAL_COMMAND set): every
// check's real output through the ssh kind's parsers, the lab-style unit (a pidfile and
// start command) restarted, a named cache cleared, a revert command run with its commit,
// idle PostgreSQL sessions of a role terminated (a real PostgreSQL), dry runs that change
// nothing, and every kind of refusal logged.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  lstatSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_BIN, startPostgres, type LabPostgres } from '../../e2e/lab/postgres.js';
import {
  parseCertificates,
  parseConfigChanges,
  parseDisk,
  parseInodes,
  parseLoad,
  parseMemory,
  parsePorts,
  parseProcesses,
  parseServices,
  parseSetup,
  parseVersion,
} from '../../server/connectors/kinds/ssh.parse.js';
import { parseResolver } from '../../server/connectors/kinds/ssh.resolver.js';

const GATE = join(import.meta.dirname, 'svc-gate');
let dir: string;
let conf: string;
let log: string;

function gate(command: string | undefined, confFile = conf) {
  const env: Record<string, string> = {
    PATH: '/usr/bin:/bin',
    SVC_GATE_CONF: confFile,
    SSH_CLIENT: '192.0.2.7 50000 22',
  };
  if (command !== undefined) env['SSH_ORIGINAL_COMMAND'] = command;
  const r = spawnSync(GATE, [], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const pidOf = (): number | null => {
  const file = join(dir, 'app.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : null;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-gate-'));
  log = join(dir, 'gate.log');
  conf = join(dir, 'gate.conf');
  mkdirSync(join(dir, 'cache', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'cache', 'a'), 'x');
  writeFileSync(join(dir, 'cache', 'sub', 'b'), 'y');
  spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ed25519',
    '-nodes',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
    '-subj',
    '/CN=lab.example',
    '-days',
    '30',
  ]);
  writeFileSync(join(dir, 'app.log'), 'line one\nline two\nline three\n');
  mkdirSync(join(dir, 'pgdata', 'base'), { recursive: true });
  writeFileSync(join(dir, 'pgdata', 'base', '1'), Buffer.alloc(64 * 1024, 1));
  mkdirSync(join(dir, 'web-logs'));
  writeFileSync(join(dir, 'web-logs', 'error.log'), Buffer.alloc(32 * 1024, 1));
  // The revert command records its arguments: exactly one, the commit.
  writeFileSync(
    join(dir, 'revert.sh'),
    `#!/bin/bash\nprintf '%s|' "$#" "$@" >${join(dir, 'reverted')}\necho "restored before $1"\n`,
  );
  chmodSync(join(dir, 'revert.sh'), 0o755);
  writeFileSync(
    conf,
    [
      '# the lab: no systemd',
      `log=${log}`,
      'allow=restart app',
      'allow=clear_cache tmp',
      'allow=clear_cache gone',
      'allow=revert cfg',
      'allow=revert nocmd',
      'allow=terminate_idle nobody',
      `cache.tmp=${join(dir, 'cache')}`,
      `cache.gone=${join(dir, 'no-such-folder')}`,
      `data.pgdata=${join(dir, 'pgdata')}`,
      `data.gone=${join(dir, 'no-such-folder')}`,
      `logs.web=${join(dir, 'web-logs')}`,
      `revert.cfg=${join(dir, 'revert.sh')}`,
      `cert=${join(dir, 'cert.pem')}`,
      `file=${conf}`,
      `file=${join(dir, 'missing.conf')}`,
      `unit.app.pidfile=${join(dir, 'app.pid')}`,
      `unit.app.start=${process.execPath} -e "require('net').createServer().listen(0, '127.0.0.1')" >>${join(dir, 'app.log')} 2>&1 & echo $! >${join(dir, 'app.pid')}`,
      `unit.app.log=${join(dir, 'app.log')}`,
      'unit.app.ports=8999',
      `unit.db.pidfile=${join(dir, 'db.pid')}`,
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  const pid = pidOf();
  if (pid !== null) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('read-only checks', () => {
  it('answers version, disk, memory, load and processes from the host', () => {
    expect(parseVersion(gate('version').stdout)).toBe('1');
    const disk = parseDisk(gate('disk').stdout);
    expect(disk.filesystems.find((f) => f.mount === '/')).toMatchObject({
      size_kb: expect.any(Number) as number,
    });
    // Each named cache that exists, with its share of its file system (a fix must fit).
    expect(disk.caches).toEqual([
      { name: 'tmp', kb: expect.any(Number) as number, pct: expect.any(Number) as number },
    ]);
    // Each unit's log (unit.<name>.log), each logs.<name> and data.<name> that exists: its
    // size, share and how full its file system is (what fills a full disk).
    const sized = { kb: expect.any(Number) as number, pct: expect.any(Number) as number };
    const fsPct = expect.any(Number) as number;
    expect(disk.logs).toEqual([
      { name: 'app', ...sized, fs_used_pct: fsPct },
      { name: 'web', ...sized, fs_used_pct: fsPct },
    ]);
    expect(disk.data).toEqual([{ name: 'pgdata', ...sized, fs_used_pct: fsPct }]);
    expect(disk.data[0]?.kb).toBeGreaterThanOrEqual(64);
    expect(disk.logs[1]?.kb).toBeGreaterThanOrEqual(32);
    const inodeAnswer = gate('inodes');
    expect(inodeAnswer.code).toBe(0);
    const inodes = parseInodes(inodeAnswer.stdout).filesystems;
    expect(inodes.length).toBeGreaterThan(0);
    for (const f of inodes) {
      expect(f.used + f.free).toBeLessThanOrEqual(f.inodes);
      expect(f.used_pct).toBeGreaterThanOrEqual(0);
    }
    const memory = parseMemory(gate('memory').stdout);
    expect(memory.total_kb).toBeGreaterThan(0);
    expect(memory.available_kb).toBeLessThanOrEqual(memory.total_kb);
    expect(parseLoad(gate('load').stdout).cpus).toBeGreaterThan(0);
    const ps = parseProcesses(gate('processes').stdout);
    expect(ps.processes.length).toBeGreaterThan(1);
    expect(ps.processes.find((p) => p.pid === 1)).toBeDefined();
  });

  it('reports certificates, file hashes and unit states for setup', () => {
    const certs = parseCertificates(gate('certificates').stdout, Date.now()).certificates;
    expect(certs).toEqual([
      {
        path: join(dir, 'cert.pem'),
        subject: 'CN=lab.example',
        not_after: expect.any(String) as string,
        days_left: expect.any(Number) as number,
      },
    ]);
    expect(certs[0]?.days_left).toBeGreaterThanOrEqual(29);
    const facts = parseSetup(gate('setup').stdout).facts;
    expect(facts['gate']).toBe('1');
    expect(facts[`file:${conf}`]).toMatch(/^[0-9a-f]{64}$/);
    expect(facts[`file:${join(dir, 'missing.conf')}`]).toBe('missing');
    expect(facts['unit:app']).toBe('stopped');
  });

  it('tails a unit log without systemd, within the line limit', () => {
    const r = gate('journal app 2');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('line two\nline three\n');
    expect(gate('journal app 501').code).toBe(126);
    expect(gate('journal db').stderr).toMatch(/unit db has no log configured/);
  });

  it('asks the host resolver for the names it should always resolve, and says which fail', () => {
    // localhost comes from /etc/hosts; a name under .invalid never resolves (RFC 6761).
    const rconf = join(dir, 'resolve.conf');
    writeFileSync(rconf, 'resolve=localhost\nresolve=db.lab.invalid\n');
    const r = gate('resolver', rconf);
    expect(r.code).toBe(0);
    expect(parseResolver(r.stdout)).toMatchObject({
      names: [
        { name: 'localhost', resolved: true },
        { name: 'db.lab.invalid', resolved: false, address: null },
      ],
      checked: 2,
      failed: 1,
      failing: 'db.lab.invalid',
    });
    // No resolve= names: nothing checked (never "all well").
    expect(parseResolver(gate('resolver').stdout)).toMatchObject({ checked: 0, failed: 0 });
    expect(gate('resolver localhost').code).toBe(126);
    writeFileSync(rconf, 'resolve=bad/name\n');
    const bad = gate('resolver', rconf);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/resolve needs a host name/);
    writeFileSync(
      rconf,
      'resolve=a.example\nresolve=b.example\nresolve=c.example\nresolve=d.example\nresolve=e.example\n',
    );
    expect(gate('resolver', rconf).stderr).toMatch(/line 5: at most 4 resolve= names/);
  });
});

describe('actions', () => {
  it('restarts an allowed unit, and services and ports then show it running', async () => {
    const r = gate('restart app');
    expect(r.code, r.stderr).toBe(0);
    const pid = pidOf();
    expect(pid).not.toBeNull();
    expect(parseServices(gate('services').stdout).units).toEqual([
      { name: 'app', state: 'running', pid },
      { name: 'db', state: 'stopped', pid: null },
    ]);
    // The server needs a moment to listen; its socket is the unit's through its pid.
    let app: { address: string; port: number; process: string | null } | undefined;
    for (let i = 0; i < 50 && app === undefined; i++) {
      app = parsePorts(gate('ports').stdout).listening.find((l) => l.process === 'app');
      if (app === undefined) await sleep(100);
    }
    expect(app).toMatchObject({ address: '127.0.0.1', process: 'app' });
    // Its configured port is free: nobody else holds it.
    expect(parsePorts(gate('ports').stdout).unit_ports).toEqual([
      { unit: 'app', ports: [8999], holders: [], state: 'clear' },
    ]);

    // A crash leaves the pidfile behind: the unit is failed, not stopped.
    process.kill(pid ?? 0, 'SIGKILL');
    await sleep(200);
    expect(parseServices(gate('services').stdout).units[0]).toEqual({
      name: 'app',
      state: 'failed',
      pid: null,
    });
    // The journal says first when the run that ended started: the pidfile's birth (or, on a
    // file system that keeps none, its change time).
    const pidStat = statSync(join(dir, 'app.pid'));
    const started = Math.floor(
      (pidStat.birthtimeMs > 0 ? pidStat.birthtimeMs : pidStat.mtimeMs) / 1000,
    );
    expect(gate('journal app 2').stdout.split('\n')[0]).toBe(`#started ${String(started)}`);
    expect(gate('restart app').code).toBe(0);
    expect(pidOf()).not.toBe(pid);
    expect(readFileSync(log, 'utf8')).toMatch(/from=192\.0\.2\.7 action done: restart app/);
  });

  it('clears a named cache: its contents, never the folder', () => {
    const r = gate('clear_cache tmp');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/cleared [23] entries/);
    expect(existsSync(join(dir, 'cache'))).toBe(true);
    expect(existsSync(join(dir, 'cache', 'a'))).toBe(false);
  });
});

describe('dry runs: allowed or refused with why, and nothing changes', () => {
  it('answers would … allowed for what the config allows and whose target exists', () => {
    writeFileSync(join(dir, 'cache', 'keep'), 'x');
    for (const [cmd, line] of [
      ['dry_run restart app', 'would restart app: allowed'],
      ['dry_run clear_cache tmp', 'would clear_cache tmp: allowed'],
      ['dry_run revert cfg', 'would revert cfg: allowed'],
    ]) {
      const r = gate(cmd);
      expect(r.code, `${String(cmd)}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(`${String(line)}\n`);
    }
    // Nothing ran: the cache keeps its file and the revert command was not called.
    expect(existsSync(join(dir, 'cache', 'keep'))).toBe(true);
    expect(existsSync(join(dir, 'reverted'))).toBe(false);
    expect(readFileSync(log, 'utf8')).toMatch(/dry run: clear_cache tmp: allowed/);
  });

  const refused: [string, RegExp][] = [
    ['dry_run restart nginx', /restart nginx is not allowed on this host/],
    ['dry_run clear_cache gone', /cache gone: .* is not a folder/],
    ['dry_run revert nocmd', /no revert\.nocmd command in the gate config/],
    ['dry_run terminate_idle nobody', /terminate_idle needs pg\.psql in the gate config/],
    ['dry_run terminate_idle Bad-Role', /terminate_idle needs a valid name/],
    ['dry_run bash app', /dry_run: unknown action bash/],
    ['dry_run restart', /dry_run takes an action and its name/],
  ];
  it.each(refused)('refuses %j with 126 and why', (cmd, why) => {
    const r = gate(cmd);
    expect(r.code).toBe(126);
    expect(r.stderr).toMatch(why);
    expect(r.stdout).toBe('');
  });
});

describe('revert', () => {
  it('runs the configured command with the commit as its only argument', () => {
    const r = gate('revert cfg 0123abc');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('restored before 0123abc\n');
    expect(readFileSync(join(dir, 'reverted'), 'utf8')).toBe('1|0123abc|');
    expect(readFileSync(log, 'utf8')).toMatch(/action done: revert cfg 0123abc/);
  });

  it('refuses a commit that is not 7 to 40 lowercase hex digits, or a name not allowed', () => {
    for (const c of ['0123ab', 'ABCDEF0', 'g123456', `${'a'.repeat(41)}`]) {
      const r = gate(`revert cfg ${c}`);
      expect(r.code, c).toBe(126);
      expect(r.stderr).toMatch(/revert needs a commit/);
    }
    expect(gate('revert other 0123abc').stderr).toMatch(/revert other is not allowed/);
    expect(gate('revert cfg').stderr).toMatch(/revert takes a name and a commit/);
    expect(gate('revert nocmd 0123abc').stderr).toMatch(/no revert\.nocmd command/);
  });
});

describe('terminate_idle against a real PostgreSQL', () => {
  let pgl: LabPostgres;
  let pgConf: string;
  const held: pg.Client[] = [];
  beforeAll(async () => {
    pgl = await startPostgres();
    await pgl.query('CREATE ROLE lab_batch LOGIN');
    await pgl.query('CREATE ROLE other_role LOGIN');
    const psql = `${process.getuid?.() === 0 ? 'runuser -u postgres -- ' : ''}${join(PG_BIN, 'psql')} -h ${pgl.dir} -p ${String(pgl.port)} -d postgres`;
    pgConf = join(dir, 'pg.conf');
    writeFileSync(
      pgConf,
      [
        `log=${log}`,
        'allow=terminate_idle lab_batch',
        'allow=terminate_idle other_role',
        `pg.psql=${psql}`,
        '',
      ].join('\n'),
    );
    const connect = async (user: string) => {
      const c = new pg.Client({ host: pgl.dir, port: pgl.port, user, database: 'postgres' });
      c.on('error', () => undefined);
      await c.connect();
      held.push(c);
      return c;
    };
    for (let i = 0; i < 3; i += 1) await connect('lab_batch');
    await (await connect('lab_batch')).query('BEGIN'); // idle in transaction: left alone
    await connect('other_role');
  }, 60_000);
  afterAll(async () => {
    for (const c of held) await c.end().catch(() => undefined);
    await pgl.stop();
  });

  const sessions = async () =>
    (await pgl.query(
      "SELECT usename, state FROM pg_stat_activity WHERE usename IN ('lab_batch', 'other_role') ORDER BY 1, 2",
    )) as { usename: string; state: string }[];

  it('terminates only the idle sessions of that role and says how many', async () => {
    expect(gate('dry_run terminate_idle lab_batch', pgConf)).toMatchObject({
      code: 0,
      stdout: 'would terminate_idle lab_batch: allowed\n',
    });
    expect((await sessions()).length).toBe(5);
    const r = gate('terminate_idle lab_batch', pgConf);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toBe('terminated 3 idle sessions of role lab_batch\n');
    await sleep(200);
    expect(await sessions()).toEqual([
      { usename: 'lab_batch', state: 'idle in transaction' },
      { usename: 'other_role', state: 'idle' },
    ]);
    expect(gate('terminate_idle lab_batch', pgConf).stdout).toBe(
      'terminated 0 idle sessions of role lab_batch\n',
    );
    expect(readFileSync(log, 'utf8')).toMatch(/action done: terminate_idle lab_batch/);
  });

  it('refuses a role the config does not allow, or that is not a role name', () => {
    expect(gate('terminate_idle postgres', pgConf).stderr).toMatch(
      /terminate_idle postgres is not allowed on this host/,
    );
    for (const bad of ['Lab_batch', '1role', 'a-b'])
      expect(gate(`terminate_idle ${bad}`, pgConf).stderr, bad).toMatch(
        /terminate_idle needs a valid name/,
      );
    expect(gate('terminate_idle lab_batch other_role', pgConf).stderr).toMatch(
      /terminate_idle takes one name/,
    );
  });
});

describe('refusals', () => {
  const refused: [string | undefined, RegExp][] = [
    [undefined, /no command/],
    ['', /no command/],
    ['rm -rf /', /characters outside/],
    ['bash', /unknown check bash/],
    ['disk; id', /characters outside/],
    ['disk && id', /characters outside/],
    ['disk $(id)', /characters outside/],
    ['disk `id`', /characters outside/],
    ['disk\nid', /characters outside/],
    ['disk | sh', /characters outside/],
    ['disk extra', /disk takes no arguments/],
    ['inodes /', /characters outside/],
    ['inodes extra', /inodes takes no arguments/],
    ['restart nginx', /restart nginx is not allowed on this host/],
    ['reload app', /reload app is not allowed/],
    ['restart app app', /restart takes one name/],
    ['journal ../../etc/shadow', /characters outside/],
    ['journal .. 5', /journal needs a unit name/],
    ['clear_cache ..', /clear_cache needs a valid name/],
    ['clear_cache tmp.old', /clear_cache needs a valid name/],
    ['journal app 5 6', /wrong number of words/],
    ['dry_run restart app now', /wrong number of words/],
    ['revert cfg 0123abc x', /wrong number of words/],
  ];
  it.each(refused)('refuses %j with status 126 and logs it', (command, why) => {
    const before = existsSync(log) ? readFileSync(log, 'utf8').length : 0;
    const r = gate(command);
    expect(r.code).toBe(126);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(why);
    const added = readFileSync(log, 'utf8').slice(before);
    expect(added).toMatch(/ svc-gate\[\d+\] from=192\.0\.2\.7 refused: /);
    // One line per refusal, whatever the command carried.
    expect(added.trim().split('\n')).toHaveLength(1);
  });

  it('refuses to run with a config it does not understand', () => {
    const bad = join(dir, 'bad.conf');
    writeFileSync(bad, 'allow=restart app\nallow_everything=yes\n');
    const r = gate('version', bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 2: unknown key allow_everything/);
  });
});

describe('watched files: kept versions, config_changes and restore', () => {
  const SECRETS = ['hunter2', 'swordfish', 'MIIEsecretPEMbody', 'tok3n-value-0123456789'];
  const ORIGINAL = [
    'listen = 8080',
    'db_url = postgres://shop:hunter2@127.0.0.1:5432/shop',
    'db_password = hunter2',
    'pool_size = 5',
    'proxy_set_header Authorization "Bearer tok3n-value-0123456789";',
    '-----BEGIN PRIVATE KEY-----',
    'MIIEsecretPEMbody',
    '-----END PRIVATE KEY-----',
    '',
  ].join('\n');
  let wconf: string;
  let cfg: string;
  let extra: string;
  let store: string;
  let appLog: string;
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');

  beforeAll(() => {
    cfg = join(dir, 'app.conf');
    extra = join(dir, 'extra.conf');
    store = join(dir, 'store');
    appLog = join(dir, 'watched-app.log');
    writeFileSync(cfg, ORIGINAL, { mode: 0o640 });
    writeFileSync(extra, 'workers = 2\n');
    writeFileSync(appLog, 'started\n');
    wconf = join(dir, 'watch.conf');
    writeFileSync(
      wconf,
      [
        `log=${log}`,
        `store=${store}`,
        'allow=restore app',
        `file.app=${cfg}`,
        `file.other=${extra}`,
        `file=${join(dir, 'plain.conf')}`,
        `unit.app.log=${appLog}`,
        `unit.other.log=${appLog}`,
        '',
      ].join('\n'),
    );
  });

  it('keeps the first version on setup, in a store only root can read', () => {
    const facts = parseSetup(gate('setup', wconf).stdout).facts;
    expect(facts[`file:${cfg}`]).toBe(sha(ORIGINAL));
    expect(facts[`file:${join(dir, 'plain.conf')}`]).toBe('missing');
    expect(facts[`diff:${cfg}`]).toBeUndefined();
    expect(statSync(store).mode & 0o777).toBe(0o700);
    const answer = parseConfigChanges(gate('config_changes app', wconf).stdout);
    expect(answer).toMatchObject({ unit: 'app', changed: 0, named: 0 });
    expect(answer.files).toEqual([
      expect.objectContaining({ path: cfg, current: sha(ORIGINAL), previous: null, diff: '' }),
    ]);
  });

  it('shows an edit as a masked diff, named in errors when the errors name what changed', () => {
    const edited = ORIGINAL.replace('5432', '5999')
      .replaceAll('hunter2', 'swordfish')
      .replace('pool_size = 5', 'pool_size = 6');
    writeFileSync(cfg, edited);
    // The same words logged an hour before the change name nothing: only errors since count.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    writeFileSync(
      appLog,
      `${hourAgo} ERROR: cannot connect to 127.0.0.1:5999: connection refused\n`,
    );
    const setup = gate('setup', wconf).stdout;
    expect(parseConfigChanges(gate('config_changes app', wconf).stdout)).toMatchObject({
      changed: 1,
      named: 0,
    });
    const soon = new Date(Date.now() + 2000).toISOString();
    writeFileSync(
      appLog,
      `${hourAgo} started\n${soon} ERROR: cannot connect to 127.0.0.1:5999: connection refused\n`,
    );
    const r = gate('config_changes app', wconf);
    expect(r.code, r.stderr).toBe(0);
    for (const s of SECRETS) {
      expect(r.stdout).not.toContain(s);
      expect(setup).not.toContain(s);
    }
    const answer = parseConfigChanges(r.stdout);
    expect(answer).toMatchObject({ unit: 'app', changed: 1, named: 1 });
    const [file] = answer.files;
    expect(file).toMatchObject({
      path: cfg,
      current: sha(edited),
      previous: sha(ORIGINAL),
      changed_recently: true,
      named_in_errors: true,
    });
    expect(file?.diff).toContain('-db_url = postgres://***@127.0.0.1:5432/shop');
    expect(file?.diff).toContain('+db_url = postgres://***@127.0.0.1:5999/shop');
    expect(file?.diff).toContain('+pool_size = 6');
    expect(file?.diff).toContain(' db_password = ***');
    expect(file?.diff).toContain('[masked]');
    // setup carries a one-line summary for the snapshots, masked as well.
    expect(parseSetup(setup).facts[`diff:${cfg}`]).toBe(
      '-db_url = postgres://***@127.0.0.1:5432/shop | +db_url = postgres://***@127.0.0.1:5999/shop | -pool_size = 5 | +pool_size = 6',
    );
  });

  it('does not call a harmless change named when the errors say something else', () => {
    // A comment is not configuration: its words are not looked for in the errors.
    writeFileSync(extra, '# more workers until the disk is full again\nworkers = 3\n');
    writeFileSync(appLog, 'started\nERROR: disk full\n');
    const answer = parseConfigChanges(gate('config_changes other', wconf).stdout);
    expect(answer).toMatchObject({ changed: 1, named: 0 });
    expect(answer.files[0]).toMatchObject({ path: extra, named_in_errors: false });
    expect(answer.files[0]?.diff).toContain('+workers = 3');
  });

  it('dry-runs restore with the diff it would apply, and changes nothing', () => {
    const before = readFileSync(cfg, 'utf8');
    const r = gate('dry_run restore app', wconf);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'would restore app: allowed',
      `file ${cfg}`,
      `to ${sha(ORIGINAL)}`,
    ]);
    expect(r.stdout).toContain('+pool_size = 5');
    expect(r.stdout).toContain('-pool_size = 6');
    for (const s of SECRETS) expect(r.stdout).not.toContain(s);
    expect(readFileSync(cfg, 'utf8')).toBe(before);
  });

  it('puts the previous content back, byte for byte, keeping the mode, and can be taken back', () => {
    const edited = readFileSync(cfg, 'utf8');
    chmodSync(cfg, 0o640);
    const r = gate(`restore app ${sha(ORIGINAL)}`, wconf);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^restored ${cfg} to ${sha(ORIGINAL).slice(0, 12)}\n`));
    for (const s of SECRETS) expect(r.stdout).not.toContain(s);
    expect(readFileSync(cfg, 'utf8')).toBe(ORIGINAL);
    expect(statSync(cfg).mode & 0o777).toBe(0o640);
    expect(readFileSync(log, 'utf8')).toContain(`action done: restore app ${sha(ORIGINAL)}`);
    // The restored version is the newest now; the one it replaced is kept for the take-back.
    const after = parseConfigChanges(gate('config_changes app', wconf).stdout);
    expect(after.files[0]).toMatchObject({ current: sha(ORIGINAL), previous: sha(edited) });
    // Content the file had before: a return to what ran, never a new change to blame.
    expect(after.files[0]).toMatchObject({ returned: true, changed_recently: false });
    expect(after.changed).toBe(0);
    expect(gate(`restore app ${sha(edited)}`, wconf).code).toBe(0);
    expect(readFileSync(cfg, 'utf8')).toBe(edited);
  });

  it('restores through a symlink into the file it points at, keeping the link', () => {
    const real = join(dir, 'sites-available.conf');
    const link = join(dir, 'sites-enabled.conf');
    writeFileSync(real, 'server_name shop;\n');
    symlinkSync(real, link);
    const lconf = join(dir, 'link.conf');
    writeFileSync(
      lconf,
      [`store=${store}`, 'allow=restore web', `file.web=${link}`, ''].join('\n'),
    );
    gate('setup', lconf);
    writeFileSync(real, 'server_name shop.example;\n');
    expect(parseConfigChanges(gate('config_changes web', lconf).stdout).changed).toBe(1);
    const r = gate(`restore web ${sha('server_name shop;\n')}`, lconf);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('server_name shop;\n');
  });

  const refused: [string, RegExp][] = [
    ['restore other 0000000000000000000000000000000000000000000000000000000000000000', /restore other is not allowed on this host/], // prettier-ignore
    ['restore app 0000000000000000000000000000000000000000000000000000000000000000', /no kept version 000000000000 of a file of app/], // prettier-ignore
    ['restore app 0123abc', /restore needs a sha256/],
    ['restore app', /restore takes a unit name and a sha256/],
    ['config_changes', /config_changes takes one unit name/],
    ['config_changes ..', /config_changes needs a unit name/],
    ['dry_run restore other', /restore other is not allowed on this host/],
  ];
  it.each(refused)('refuses %j with 126 and changes nothing', (cmd, why) => {
    const before = readFileSync(cfg, 'utf8');
    const r = gate(cmd, wconf);
    expect(r.code).toBe(126);
    expect(r.stderr).toMatch(why);
    expect(r.stdout).toBe('');
    expect(readFileSync(cfg, 'utf8')).toBe(before);
  });

  it('refuses restore and fails config_changes without a store, and restore when not allowed', () => {
    expect(gate('config_changes app').stderr).toMatch(/config_changes needs store=/);
    expect(gate('config_changes app').code).toBe(1);
    expect(gate(`restore app ${sha(ORIGINAL)}`).stderr).toMatch(/restore app is not allowed/);
  });
});

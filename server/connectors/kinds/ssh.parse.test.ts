import { describe, expect, it } from 'vitest';
import {
  fingerprintOf,
  hostKeyLineOf,
  keyTypeOf,
  parseCertificates,
  parseConfigChanges,
  parseDisk,
  parseHostKeyLine,
  parseInodes,
  parseJournal,
  parseLoad,
  parseMemory,
  parsePorts,
  parseProcesses,
  parseServices,
  parseSetup,
  parseVersion,
  splitEndpoint,
} from './ssh.parse.js';

// A real ed25519 public key and its fingerprint as `ssh-keygen -lf` prints it.
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMtZE/dbwkP4KCkSh0dJKopWnahZoG3K4JidUAXIVVv4 lab';

describe('gate output', () => {
  it('reads the logs and database files the disk check sizes, with their file system', () => {
    const out = [
      'Filesystem 1024-blocks Used Available Capacity Mounted on',
      '/dev/vda 1000 990 10 99% /',
      'cache app-cache 4 0',
      'log app 800 80 99',
      'data postgresql 150 15 99',
      'log broken x 1 2',
      'data short 1 2',
    ].join('\n');
    const disk = parseDisk(out);
    expect(disk.caches).toEqual([{ name: 'app-cache', kb: 4, pct: 0 }]);
    expect(disk.logs).toEqual([{ name: 'app', kb: 800, pct: 80, fs_used_pct: 99 }]);
    expect(disk.data).toEqual([{ name: 'postgresql', kb: 150, pct: 15, fs_used_pct: 99 }]);
    expect(disk.filesystems).toHaveLength(1);
  });

  it('reads inodes from df -P -i, leaving out file systems that have none', () => {
    const out = [
      'Filesystem      Inodes  IUsed   IFree IUse% Mounted on',
      '/dev/vda      16777216 671089 16106127    4% /',
      'tmpfs             4096   4096        0  100% /mnt/lab volume',
      'btrfs                0      0        0     - /srv',
      'overlay              -      -        -     - /weird',
    ].join('\n');
    expect(parseInodes(out)).toEqual({
      filesystems: [
        {
          mount: '/',
          device: '/dev/vda',
          inodes: 16777216,
          used: 671089,
          free: 16106127,
          used_pct: 4,
        },
        {
          mount: '/mnt/lab volume',
          device: 'tmpfs',
          inodes: 4096,
          used: 4096,
          free: 0,
          used_pct: 100,
        },
      ],
    });
  });

  it('reads the version, services and setup facts', () => {
    expect(parseVersion('svc-gate 1\n')).toBe('1');
    expect(() => parseVersion('Welcome!\n')).toThrow(/did not say its version/);
    expect(
      parseServices('unit nginx running 812\nunit app failed -\nunit db stopped -\nnoise\n'),
    ).toEqual({
      units: [
        { name: 'nginx', state: 'running', pid: 812 },
        { name: 'app', state: 'failed', pid: null },
        { name: 'db', state: 'stopped', pid: null },
      ],
    });
    expect(parseSetup('gate\t1\nunit:nginx\trunning\nfile:/etc/a b\tmissing\n')).toEqual({
      facts: { gate: '1', 'unit:nginx': 'running', 'file:/etc/a b': 'missing' },
    });
  });

  it('maps ss sockets to units by pid, then by configured port, else the program', () => {
    const text = [
      '#listen',
      'LISTEN 0      511          0.0.0.0:80        0.0.0.0:*    users:(("nginx",pid=812,fd=6),("nginx",pid=813,fd=6))',
      'LISTEN 0      511          0.0.0.0:80        0.0.0.0:*    users:(("nginx",pid=813,fd=7))',
      'LISTEN 0      128             [::]:22           [::]:*    users:(("sshd",pid=90,fd=4))',
      'LISTEN 0      4096   127.0.0.53%lo:53        0.0.0.0:*    users:(("systemd-resolve",pid=7,fd=14))',
      'LISTEN 0      5          127.0.0.1:8999      0.0.0.0:*',
      '#established',
      '0      0          127.0.0.1:5432    127.0.0.1:40000 users:(("postgres",pid=300,fd=9))',
      'ESTAB  0      0          127.0.0.1:40000    127.0.0.1:5432',
      '#units',
      '812 nginx',
      '300 postgresql',
      '#unitports',
      '8999 app',
      '',
    ].join('\n');
    expect(parsePorts(text)).toEqual({
      listening: [
        { address: '0.0.0.0', port: 80, process: 'nginx' },
        { address: '::', port: 22, process: 'sshd' },
        { address: '127.0.0.53', port: 53, process: 'systemd-resolve' },
        { address: '127.0.0.1', port: 8999, process: 'app' },
      ],
      established: [
        {
          local_address: '127.0.0.1',
          local_port: 5432,
          peer_address: '127.0.0.1',
          peer_port: 40000,
          process: 'postgresql',
        },
        {
          local_address: '127.0.0.1',
          local_port: 40000,
          peer_address: '127.0.0.1',
          peer_port: 5432,
          process: null,
        },
      ],
      unit_ports: [{ unit: 'app', ports: [8999], holders: [], state: 'unknown' }],
    });
    expect(parsePorts(text).unit_ports).toEqual([
      { unit: 'app', ports: [8999], holders: [], state: 'unknown' },
    ]);
    expect(splitEndpoint('*:22')).toEqual({ address: '*', port: 22 });
    expect(splitEndpoint('nonsense')).toBeNull();
  });

  it('says, per configured unit, whether another process holds its ports: the mechanism of a port in use', () => {
    const ports = (listen: string[], units: string[]) =>
      parsePorts(
        [
          '#listen',
          ...listen,
          '#established',
          '#units',
          ...units,
          '#unitports',
          '8080 app',
          '8081 app',
          '80 nginx',
        ].join('\n'),
      ).unit_ports;
    const nginx = 'LISTEN 0 511 0.0.0.0:80 0.0.0.0:* users:(("nginx",pid=812,fd=6))';
    const app = 'LISTEN 0 511 127.0.1.2:8080 0.0.0.0:* users:(("node",pid=400,fd=20))';
    const hog = 'LISTEN 0 511 127.0.1.2:8080 0.0.0.0:* users:(("node",pid=999,fd=3))';
    const hogOther = 'LISTEN 0 511 0.0.0.0:8081 0.0.0.0:* users:(("python3",pid=998,fd=3))';
    // The app's own process on its port, nginx on its own: nothing taken.
    expect(ports([nginx, app], ['812 nginx', '400 app'])).toEqual([
      { unit: 'app', ports: [8080, 8081], holders: [], state: 'clear' },
      { unit: 'nginx', ports: [80], holders: [], state: 'clear' },
    ]);
    // The app down, another process on one of its ports (not of any unit): taken, named.
    expect(ports([nginx, hog, hogOther], ['812 nginx'])[0]).toEqual({
      unit: 'app',
      ports: [8080, 8081],
      holders: ['node (pid 999) on 8080', 'python3 (pid 998) on 8081'],
      state: 'taken',
    });
    // Another unit on the app's port is another process too.
    expect(ports([app.replace('node', 'nginx')], ['400 nginx'])[0]?.state).toBe('taken');
    // Nothing listens: clear (a bind error in its log is from before).
    expect(ports([nginx], ['812 nginx'])[0]?.state).toBe('clear');
    // A listener ss cannot name the process of: unknown, never taken nor clear.
    expect(ports(['LISTEN 0 5 127.0.1.2:8080 0.0.0.0:*'], [])[0]?.state).toBe('unknown');
  });

  it('reads df, meminfo and loadavg', () => {
    const df = [
      'Filesystem     1024-blocks     Used Available Capacity Mounted on',
      '/dev/vda         264212084 25417428  80973484      24% /',
      'tmpfs                 1024     1024         0     100% /mnt/lab disk',
      'proc                     0        0         0        - /proc',
      'cache app-cache 900 87',
      'cache broken x 1',
    ].join('\n');
    expect(parseDisk(df)).toEqual({
      caches: [{ name: 'app-cache', kb: 900, pct: 87 }],
      logs: [],
      data: [],
      filesystems: [
        {
          mount: '/',
          device: '/dev/vda',
          size_kb: 264212084,
          used_kb: 25417428,
          avail_kb: 80973484,
          used_pct: 24,
        },
        {
          mount: '/mnt/lab disk',
          device: 'tmpfs',
          size_kb: 1024,
          used_kb: 1024,
          avail_kb: 0,
          used_pct: 100,
        },
      ],
    });
    expect(
      parseMemory(
        'MemTotal:       24684084 kB\nMemFree: 1 kB\nMemAvailable:   24231496 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n',
      ),
    ).toEqual({ total_kb: 24684084, available_kb: 24231496, swap_total_kb: 0, swap_free_kb: 0 });
    expect(() => parseMemory('')).toThrow(/MemTotal/);
    expect(parseLoad('0.42 0.80 1.30 1/91 14944\ncpus 2\n')).toEqual({
      load1: 0.42,
      load5: 0.8,
      load15: 1.3,
      cpus: 2,
    });
    expect(() => parseLoad('')).toThrow(/load average/);
  });

  it('says what a service is saying now: its last words while its last stamp is within 45 s', () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    const refused = '2026/03/02 09:59:30 [error] connect() failed (111: Connection refused)';
    // Still being said (30 s ago): current.
    expect(
      parseJournal('nginx', `2026/03/02 09:59:00 [notice] start\n${refused}\n`, now).current,
    ).toEqual(['2026/03/02 09:59:00 [notice] start', refused]);
    // The same words from a fault healed five minutes ago: last words, but not current.
    const stale = parseJournal('nginx', refused.replace('09:59:30', '09:55:00'), now);
    expect(stale.last).toHaveLength(1);
    expect(stale.current).toEqual([]);
  });

  it("keeps an earlier run's words out of the last words when the gate says when the last run started", () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    const started = (iso: string) => `#started ${String(Date.parse(iso) / 1000)}`;
    const bindError = [
      '2026-03-02T09:59:20.100Z stopping',
      'node:events:497',
      'Error: listen EADDRINUSE: address already in use 127.0.1.2:8080',
      'Node.js v20.11.1',
    ];
    const since = Date.parse('2026-03-02T09:58:00Z'); // last seen healthy: before it all
    // Started again at 09:59:25 and killed: the bind error was the run before's.
    const killed = [...bindError, '2026-03-02T09:59:25.300Z listening on 127.0.1.2:8080'];
    expect(parseJournal('app', killed.join('\n'), now, since).last).toContain(bindError[2]);
    const read = parseJournal(
      'app',
      [started('2026-03-02T09:59:25Z'), ...killed].join('\n'),
      now,
      since,
    );
    expect(read.last).toEqual(['2026-03-02T09:59:25.300Z listening on 127.0.1.2:8080']);
    expect(read.lines).toEqual(killed);
    // The run that started at 09:59:24 died on the bind itself: its stack (no stamps of its
    // own, after the last stamp) is its last words.
    const died = parseJournal(
      'app',
      [started('2026-03-02T09:59:24Z'), ...bindError].join('\n'),
      now,
      since,
    );
    expect(died.last).toEqual(bindError.slice(1));
    // Without since, the start alone bounds the last words.
    expect(
      parseJournal('app', [started('2026-03-02T09:59:25Z'), ...killed].join('\n'), now).last,
    ).toEqual(['2026-03-02T09:59:25.300Z listening on 127.0.1.2:8080']);
  });

  it('leaves out, with since, what was logged before the service was last seen healthy', () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    const log = [
      '2026-03-02T09:59:10Z Error: listen EADDRINUSE: address already in use 127.0.1.2:8080',
      '2026-03-02T09:59:15Z listening on 127.0.1.2:8080',
      '2026-03-02T09:59:50Z GET /: ok',
    ].join('\n');
    // Healthy at 09:59:40 (less the margin): the bind error before it is no word of now.
    const j = parseJournal('app', log, now, Date.parse('2026-03-02T09:59:30Z'));
    expect(j.last).toEqual(['2026-03-02T09:59:50Z GET /: ok']);
    expect(j.current).toEqual(['2026-03-02T09:59:50Z GET /: ok']);
    expect(j.recent).toEqual(['2026-03-02T09:59:50Z GET /: ok']);
    expect(j.lines).toHaveLength(3);
    // Nothing logged since: no last words at all (never the lines before).
    expect(parseJournal('app', log, now, Date.parse('2026-03-02T09:59:55Z')).last).toEqual([]);
  });

  it('keeps, with since, the unstamped lines that end the log: written after its last stamp', () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    // A quiet app (nothing logged for ten minutes) dies of an uncaught error: Node's stack
    // carries no stamps, so it takes the time of the line before it, older than since.
    const log = [
      '2026-03-02T09:50:00Z app: listening on 127.0.1.2:8080',
      '/srv/app/server.mjs:230',
      "TypeError: Cannot read properties of null (reading 'length')",
      '    at Timeout._onTimeout (/srv/app/server.mjs:230:40)',
      'Node.js v20.19.2',
    ].join('\n');
    const j = parseJournal('app', log, now, Date.parse('2026-03-02T09:59:30Z'));
    expect(j.last).toEqual(log.split('\n').slice(1));
    // Their time is unknown: never what a running service is saying now, nor recent.
    expect(j.current).toEqual([]);
    expect(j.recent).toEqual([]);
    // A stack followed by a stamped line is that line's past, and since leaves it out.
    const restarted = `${log}\n2026-03-02T09:59:20Z app: listening on 127.0.1.2:8080`;
    expect(parseJournal('app', restarted, now, Date.parse('2026-03-02T09:59:30Z')).last).toEqual(
      [],
    );
  });

  it('keeps apart the log lines of the last 15 minutes, by their own time stamps', () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    const log = [
      'an unstamped line before any stamp',
      '2026-03-02T09:20:00Z database: connect ECONNREFUSED 127.0.1.3:5432',
      '2026/03/02 09:30:00 [error] 4102#0: *5 connect() failed (111: Connection refused)',
      '2026-03-02 09:50:00.120 UTC [4303] FATAL:  password authentication failed for user "app"',
      '    at a stack line, stamped by the line before',
      '2026-03-02T11:59:00+02:00 the host writes its own zone: 09:59 UTC',
      '2026/03/02 10:02:00 [error] a naive stamp a little ahead (another clock): still recent',
      '2026/03/02 10:30:00 [error] a naive stamp far ahead: not trusted',
      '    and what follows it is not trusted either',
    ].join('\n');
    expect(parseJournal('app', log, now).recent).toEqual([
      '2026-03-02 09:50:00.120 UTC [4303] FATAL:  password authentication failed for user "app"',
      '    at a stack line, stamped by the line before',
      '2026-03-02T11:59:00+02:00 the host writes its own zone: 09:59 UTC',
      '2026/03/02 10:02:00 [error] a naive stamp a little ahead (another clock): still recent',
    ]);
    // Its last words: within a minute of the last stamp, and the unstamped lines after it.
    expect(
      parseJournal(
        'nginx',
        [
          '2026/03/02 07:00:00 [notice] 4101#0: exiting',
          '2026/03/02 07:05:01 [emerg] 4301#0: bind() to 127.0.1.1:8443 failed (98: Address already in use)',
          '2026/03/02 07:05:03 [emerg] 4301#0: still could not bind()',
        ].join('\n'),
        now,
      ),
    ).toMatchObject({
      recent: [],
      last: [
        '2026/03/02 07:05:01 [emerg] 4301#0: bind() to 127.0.1.1:8443 failed (98: Address already in use)',
        '2026/03/02 07:05:03 [emerg] 4301#0: still could not bind()',
      ],
    });
    expect(
      parseJournal(
        'app',
        "2026-03-02T09:31:14Z listening\nError: EACCES: permission denied, open '/x'\n\nNode.js v20.11.1\n",
        now,
      ).last,
    ).toEqual([
      '2026-03-02T09:31:14Z listening',
      "Error: EACCES: permission denied, open '/x'",
      '',
      'Node.js v20.11.1',
    ]);
    // systemd's short-iso: the zone as +0000.
    expect(
      parseJournal('app', '2026-03-02T09:58:00+0000 lab app[42]: Error: connect ETIMEDOUT\n', now)
        .recent,
    ).toEqual(['2026-03-02T09:58:00+0000 lab app[42]: Error: connect ETIMEDOUT']);
  });

  it('reads journal lines, certificates and processes', () => {
    expect(parseJournal('app', 'one\n\ntwo\n', 0)).toEqual({
      unit: 'app',
      lines: ['one', '', 'two'],
      recent: [],
      last: ['one', '', 'two'],
      current: [],
    });
    const now = Date.parse('2026-11-22T19:47:44Z');
    expect(
      parseCertificates(
        'cert /etc/a.pem\nsubject=CN=lab.example\nnotAfter=Dec 22 19:47:44 2026 GMT\ncert /etc/gone.pem\nerror cannot be read\n',
        now,
      ),
    ).toEqual({
      certificates: [
        {
          path: '/etc/a.pem',
          subject: 'CN=lab.example',
          not_after: '2026-12-22T19:47:44.000Z',
          days_left: 30,
        },
      ],
    });
    expect(
      parseProcesses(
        '15548 root 13.3  0.0 18608       4 python3 -m http.server 0\n    1 www-data 0.0 0.1 0 18393 [kthreadd]\n',
      ),
    ).toEqual({
      processes: [
        {
          pid: 15548,
          user: 'root',
          cpu_pct: 13.3,
          mem_pct: 0,
          rss_kb: 18608,
          elapsed_s: 4,
          command: 'python3 -m http.server 0',
        },
        {
          pid: 1,
          user: 'www-data',
          cpu_pct: 0,
          mem_pct: 0.1,
          rss_kb: 0,
          elapsed_s: 18393,
          command: '[kthreadd]',
        },
      ],
      largest: {
        pid: 15548,
        user: 'root',
        cpu_pct: 13.3,
        mem_pct: 0,
        rss_kb: 18608,
        elapsed_s: 4,
        command: 'python3 -m http.server 0',
      },
    });
    expect(parseProcesses('')).toEqual({ processes: [], largest: null });
  });
});

describe('config_changes', () => {
  const A = 'a'.repeat(64);
  const B = 'b'.repeat(64);
  const C = 'c'.repeat(64);
  const now = 1_800_000_000;
  const text = [
    'unit app',
    `now ${String(now)}`,
    'file /etc/app/old.conf',
    `current ${C}`,
    'previous -',
    `changed_at ${String(now - 86_400)}`,
    'file /etc/app/app.conf',
    `current ${B}`,
    `previous ${A}`,
    `changed_at ${String(now - 120)}`,
    'named_in_errors yes',
    '| --- /etc/app/app.conf (aaaaaaaaaaaa)',
    '| +++ /etc/app/app.conf (bbbbbbbbbbbb)',
    '| -pool_size = 5',
    '| +pool_size = 6',
    'file /etc/app/gone.conf',
    'current missing',
    '',
  ].join('\n');

  it('lists changed files first with their age, diff and whether errors name them', () => {
    const r = parseConfigChanges(text);
    expect(r).toMatchObject({
      unit: 'app',
      changed: 1,
      named: 1,
      quiet_offset_s: 1,
      change_offset_s: 120,
    });
    expect(r.files.map((f) => f.path)).toEqual([
      '/etc/app/app.conf',
      '/etc/app/old.conf',
      '/etc/app/gone.conf',
    ]);
    expect(r.files[0]).toEqual({
      path: '/etc/app/app.conf',
      current: B,
      previous: A,
      changed_at: new Date((now - 120) * 1000).toISOString(),
      age_s: 120,
      changed_recently: true,
      returned: false,
      named_in_errors: true,
      diff: '--- /etc/app/app.conf (aaaaaaaaaaaa)\n+++ /etc/app/app.conf (bbbbbbbbbbbb)\n-pool_size = 5\n+pool_size = 6',
      summary: '-pool_size = 5 | +pool_size = 6',
    });
    expect(r.files[1]).toMatchObject({ previous: null, changed_recently: false, age_s: 86_400 });
    expect(r.files[2]).toMatchObject({ current: null, changed_at: null });
  });

  it('is not recent after an hour, unknown without a log, and quiet after ten minutes', () => {
    const old = parseConfigChanges(
      text.replace(`changed_at ${String(now - 120)}`, `changed_at ${String(now - 4000)}`),
    );
    expect(old).toMatchObject({
      changed: 0,
      named: 0,
      quiet_offset_s: 3400,
      change_offset_s: 4000,
    });
    const unknown = parseConfigChanges(
      text.replace('named_in_errors yes', 'named_in_errors unknown'),
    );
    expect(unknown).toMatchObject({ changed: 1, named: 0 });
    expect(unknown.files[0]?.named_in_errors).toBeNull();
    expect(parseConfigChanges(`unit app\nnow ${String(now)}\nnofiles\n`)).toEqual({
      unit: 'app',
      files: [],
      changed: 0,
      named: 0,
      unknown: 0,
      quiet_offset_s: null,
      change_offset_s: null,
    });
    expect(() => parseConfigChanges('refused')).toThrow(/gave no unit and time/);
  });

  it('counts a file first seen after a recent change as unknown, never as unchanged', () => {
    // No earlier version kept, modified two minutes ago: the gate cannot tell what changed.
    const first = parseConfigChanges(
      [
        'unit app',
        `now ${String(now)}`,
        'file /etc/app/app.conf',
        `current ${B}`,
        'previous -',
        `changed_at ${String(now - 120)}`,
      ].join('\n'),
    );
    expect(first).toMatchObject({ changed: 0, named: 0, unknown: 1 });
    expect(first.files[0]).toMatchObject({ previous: null, changed_recently: false, age_s: 120 });
    // The same first sighting of a file last modified a day ago is simply unchanged.
    expect(parseConfigChanges(text)).toMatchObject({ unknown: 0 });
  });
});

describe('host keys', () => {
  it('reads a pinned line and fingerprints it as OpenSSH does', () => {
    const pinned = parseHostKeyLine(KEY);
    expect(pinned.type).toBe('ssh-ed25519');
    expect(pinned.fingerprint).toBe('SHA256:e19Jloe46UD0z+hfrFdWiqRH8uJZuntfuoyFvJxjs8Q');
    expect(keyTypeOf(pinned.blob)).toBe('ssh-ed25519');
    expect(hostKeyLineOf(pinned.blob)).toBe(KEY.replace(/ lab$/, ''));
    expect(fingerprintOf(pinned.blob)).toBe(pinned.fingerprint);
  });

  it('refuses a line that is not a key of its type', () => {
    expect(() => parseHostKeyLine('ssh-ed25519')).toThrow(/must be a public key line/);
    expect(() => parseHostKeyLine('ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIMtZE')).toThrow(
      /not a valid ssh-rsa public key/,
    );
    expect(keyTypeOf(Buffer.from('xx'))).toBeNull();
  });
});

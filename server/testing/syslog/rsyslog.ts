// A real rsyslogd (Debian's) for integration tests: private configuration, loopback
// listeners on free ports, every message written as one JSON line to a file in a temp dir.
// It reads nothing from /etc, loads neither imuxsock's system socket nor imklog, and
// writes nothing outside its temp dir. Tests stop it themselves.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RsyslogOptions {
  /** Fixed ports (a test that starts rsyslog late, or restarts it); free ones otherwise. */
  readonly udpPort?: number;
  readonly tcpPort?: number;
  readonly tlsPort?: number;
  /** Also listen on a unix datagram socket (imuxsock) and a unix stream socket (imptcp). */
  readonly unixSockets?: boolean;
}

export interface Rsyslog {
  readonly udpPort: number;
  readonly tcpPort: number;
  /** Set when rsyslog-gnutls is installed. */
  readonly tlsPort?: number;
  /** The self-signed certificate of the TLS listener (CN localhost, SAN 127.0.0.1). */
  readonly caFile?: string;
  /** With `unixSockets`: a datagram socket like /dev/log, and a stream socket. */
  readonly dgramSocket?: string;
  readonly streamSocket?: string;
  readonly dir: string;
  /** What rsyslog wrote so far, one JSON object per line (see RsyslogRecord). */
  readLines(): string[];
  /** The first line that satisfies `predicate`, waiting for it up to `timeoutMs`. */
  waitFor(predicate: (line: string) => boolean, timeoutMs: number): Promise<string>;
  stop(): Promise<void>;
}

/** The fields of one written line (rsyslog property names in comments). */
export interface RsyslogRecord {
  facility: string; // syslogfacility-text
  severity: string; // syslogseverity-text
  hostname: string;
  app: string; // app-name
  procid: string;
  msgid: string;
  sd: string; // structured-data
  msg: string;
  raw: string; // rawmsg
}

export function parseRecord(line: string): RsyslogRecord {
  return JSON.parse(line) as RsyslogRecord;
}

const INSTALL_HINT = 'apt-get install rsyslog rsyslog-gnutls';
const GTLS_MODULES = ['x86_64-linux-gnu', 'aarch64-linux-gnu'].map(
  (a) => `/usr/lib/${a}/rsyslog/lmnsd_gtls.so`,
);

/** Whether rsyslog's GnuTLS network driver (Debian package rsyslog-gnutls) is installed. */
export function hasGnutls(): boolean {
  return GTLS_MODULES.some((p) => existsSync(p));
}

/** A port nobody listens on now: bind port 0, note it, let it go. */
export async function freePort(kind: 'tcp' | 'udp' = 'tcp'): Promise<number> {
  if (kind === 'udp') {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', resolve);
    });
    const { port } = socket.address();
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    return port;
  }
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

export async function startRsyslog(options: RsyslogOptions = {}): Promise<Rsyslog> {
  const binary = findRsyslogd();
  const dir = mkdtempSync(join(tmpdir(), 'svc-rsyslog-'));
  try {
    const udpPort = options.udpPort ?? (await freePort('udp'));
    const tcpPort = options.tcpPort ?? (await freePort('tcp'));
    const tls = hasGnutls()
      ? { port: options.tlsPort ?? (await freePort('tcp')), ...makeCertificate(dir) }
      : null;
    const unix = options.unixSockets
      ? { dgram: join(dir, 'dgram.sock'), stream: join(dir, 'stream.sock') }
      : null;
    const output = join(dir, 'messages.jsonl');
    const conf = join(dir, 'rsyslog.conf');
    writeFileSync(conf, configuration({ dir, udpPort, tcpPort, tls, unix, output }));

    const child = spawn(binary, ['-n', '-f', conf, '-i', join(dir, 'rsyslogd.pid')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = watchExit(child);
    const streams = [tcpPort, ...(tls ? [tls.port] : []), ...(unix ? [unix.stream] : [])];
    await waitUntilListening({ streams, sockets: unix ? [unix.dgram] : [] }, exited);

    const readLines = (): string[] =>
      existsSync(output)
        ? readFileSync(output, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [];
    return {
      udpPort,
      tcpPort,
      ...(tls ? { tlsPort: tls.port, caFile: tls.certFile } : {}),
      ...(unix ? { dgramSocket: unix.dgram, streamSocket: unix.stream } : {}),
      dir,
      readLines,
      waitFor: (predicate, timeoutMs) => waitForLine(readLines, predicate, timeoutMs),
      stop: async () => {
        await stopChild(child, exited);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function findRsyslogd(): string {
  // Fixed places: /usr/sbin is often missing from a non-root PATH (and config.ts alone reads env).
  const dirs = ['/usr/sbin', '/sbin', '/usr/local/sbin', '/usr/bin', '/bin'];
  const found = dirs.map((d) => join(d, 'rsyslogd')).find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error(
      `rsyslogd is not installed; the syslog integration tests need it: ${INSTALL_HINT}`,
    );
  }
  return found;
}

function makeCertificate(dir: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  // prettier-ignore
  const args = [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ];
  const result = spawnSync('openssl', args, { encoding: 'utf8' });
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(
      `openssl could not make the test certificate (apt-get install openssl): ${result.error?.message ?? result.stderr}`,
    );
  }
  return { certFile, keyFile };
}

interface ConfParts {
  dir: string;
  udpPort: number;
  tcpPort: number;
  tls: { port: number; certFile: string; keyFile: string } | null;
  unix: { dgram: string; stream: string } | null;
  output: string;
}

function configuration({ dir, udpPort, tcpPort, tls, unix, output }: ConfParts): string {
  const tlsGlobals = tls
    ? `defaultNetstreamDriverCAFile="${tls.certFile}" defaultNetstreamDriverCertFile="${tls.certFile}" defaultNetstreamDriverKeyFile="${tls.keyFile}"`
    : '';
  const fields = [
    'facility:syslogfacility-text',
    'severity:syslogseverity-text',
    'hostname:hostname',
    'app:app-name',
    'procid:procid',
    'msgid:msgid',
    'sd:structured-data',
    'msg:msg',
    'raw:rawmsg',
  ];
  return [
    // maxMessageSize before any input: our 8 KiB messages plus framing must arrive whole.
    `global(workDirectory="${dir}" maxMessageSize="64k" net.enableDNS="off" ${tlsGlobals})`,
    'module(load="imudp")',
    'module(load="imtcp" maxSessions="200")',
    `input(type="imudp" address="127.0.0.1" port="${udpPort}")`,
    `input(type="imtcp" address="127.0.0.1" port="${tcpPort}")`,
    ...(tls
      ? [
          `input(type="imtcp" address="127.0.0.1" port="${tls.port}" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")`,
        ]
      : []),
    ...(unix
      ? [
          // SysSock.Use="off": a private socket only, never the system's /dev/log.
          'module(load="imuxsock" SysSock.Use="off")',
          `input(type="imuxsock" socket="${unix.dgram}")`,
          'module(load="imptcp")',
          `input(type="imptcp" path="${unix.stream}" unlink="on")`,
        ]
      : []),
    'template(name="svcTest" type="list" option.jsonf="on") {',
    ...fields.map((f) => {
      const [out, name] = f.split(':');
      return `  property(outname="${out}" name="${name}" format="jsonf")`;
    }),
    '}',
    `action(type="omfile" file="${output}" template="svcTest")`,
    '',
  ].join('\n');
}

interface Exit {
  readonly promise: Promise<void>;
  readonly done: () => boolean;
  readonly stderr: () => string;
}

function watchExit(child: ChildProcess): Exit {
  let finished = false;
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  child.stdout?.resume();
  // Should the test process die first, do not leave this rsyslogd behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const promise = new Promise<void>((resolve) => {
    const finish = () => {
      finished = true;
      process.off('exit', killOnExit);
      resolve();
    };
    child.once('exit', finish);
    child.once('error', (err) => {
      stderr += String(err);
      finish();
    });
  });
  return { promise, done: () => finished, stderr: () => stderr };
}

/** Ready when every stream listener accepts and every datagram socket exists. */
async function waitUntilListening(
  what: { streams: (number | string)[]; sockets: string[] },
  exit: Exit,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exit.done()) throw new Error(`rsyslogd stopped at start: ${exit.stderr()}`);
    const ready =
      what.sockets.every((p) => existsSync(p)) &&
      (await Promise.all(what.streams.map(accepts))).every(Boolean);
    if (ready) return;
    if (Date.now() > deadline)
      throw new Error(`rsyslogd did not listen within 10 s: ${exit.stderr()}`);
    await sleep(25);
  }
}

function accepts(where: number | string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket =
      typeof where === 'number'
        ? net.connect({ host: '127.0.0.1', port: where })
        : net.connect({ path: where });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForLine(
  read: () => string[],
  predicate: (line: string) => boolean,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = read();
    const hit = lines.find(predicate);
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) {
      throw new Error(
        `rsyslog wrote no matching line within ${timeoutMs} ms; it wrote:\n${lines.join('\n')}`,
      );
    }
    await sleep(25);
  }
}

async function stopChild(child: ChildProcess, exit: Exit): Promise<void> {
  if (exit.done()) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exit.promise;
  clearTimeout(timer);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

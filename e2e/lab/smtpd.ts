// The lab's mail server: Debian's OpenSMTPD (/usr/sbin/smtpd, run as root in the
// foreground) on a free loopback port, delivering every message, for any recipient, to a
// file in a temporary folder through an `mda` script run as the opensmtpd user.
//
// OpenSMTPD 6.8 as Debian builds it against OpenSSL 3 cannot finish a TLS handshake (its
// privilege-separated key engine fails: "SSL routines::EVP lib"), and it refuses AUTH
// without its own TLS. So TLS is put in front of it here, with a lab certificate made by
// openssl: `sslPort` speaks implicit TLS (SMTPS) and `starttlsPort` answers the greeting
// and EHLO itself, offers STARTTLS, upgrades, and then hands the encrypted session to
// OpenSMTPD (whose own greeting it swallows). Behind both is the same real SMTP server.
//
// OpenSMTPD keeps its queue in /var/spool/smtpd and its control socket in /var/run: only
// one lab smtpd runs at a time on a machine.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer as createTlsServer, TLSSocket } from 'node:tls';
import { freePort, requireProgram, stopper, until } from './processes.js';

const SMTPD = '/usr/sbin/smtpd';

export interface Smtpd {
  /** OpenSMTPD itself: plain SMTP, no STARTTLS, no AUTH. */
  readonly port: number;
  /** Implicit TLS in front of OpenSMTPD. */
  readonly sslPort: number;
  /** STARTTLS in front of OpenSMTPD. */
  readonly starttlsPort: number;
  /** The lab certificate (PEM file) the TLS fronts present, for ca_file. */
  readonly caFile: string;
  /** The certificate and key, for other TLS servers of a test. */
  readonly tls: { readonly cert: Buffer; readonly key: Buffer };
  /** Every message delivered so far, as raw RFC 5322 text, oldest first. */
  messages(): string[];
  /** Wait for a delivered message that matches. */
  waitFor(match: (raw: string) => boolean, timeoutMs?: number): Promise<string>;
  /** OpenSMTPD's log. */
  output(): string;
  stop(): Promise<void>;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'pipe' });
}

/** First line of a reply (up to CRLF) read from a socket; the rest stays unread. */
function readGreeting(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer): void => {
      seen += d.toString('latin1');
      const end = seen.indexOf('\r\n');
      if (end >= 0) {
        socket.off('data', onData);
        const rest = seen.slice(end + 2);
        if (rest !== '') socket.unshift(Buffer.from(rest, 'latin1'));
        resolve();
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

function pipeBoth(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  const end = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end);
  b.on('error', end);
  a.on('close', end);
  b.on('close', end);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

const LOCK = join(tmpdir(), 'svc-lab-smtpd.lock');
/** How long startSmtpd waits for another process's smtpd to stop. */
const LOCK_WAIT_MS = 180_000;
/** A test hook that starts smtpd needs this long: the wait, then the start. */
export const SMTPD_WAIT_MS = LOCK_WAIT_MS + 20_000;

/** Whether a process of this id is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One lab smtpd per machine (shared queue and control socket): wait for the lock file, taken
 * with O_EXCL and holding our pid; a lock of a process that died is taken over.
 */
async function takeLock(timeoutMs = LOCK_WAIT_MS): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        // Only our own lock: another process may have taken it over since.
        try {
          if (readFileSync(LOCK, 'utf8') === String(process.pid)) rmSync(LOCK, { force: true });
        } catch {
          // gone already
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(readFileSync(LOCK, { encoding: 'utf8', flag: 'r' }) || '0');
    if (holder > 0 && !alive(holder)) rmSync(LOCK, { force: true });
    else if (Date.now() > deadline) throw new Error(`the lab smtpd stayed busy (${LOCK})`);
    else await sleep(200);
  }
}

export async function startSmtpd(): Promise<Smtpd> {
  requireProgram(SMTPD, 'opensmtpd');
  const unlock = await takeLock();
  try {
    return await startLocked(unlock);
  } catch (err) {
    unlock();
    throw err;
  }
}

async function startLocked(unlock: () => void): Promise<Smtpd> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-smtpd-'));
  // The mda runs as the opensmtpd user: it must reach the folder and write the mail folder.
  chmodSync(dir, 0o711);
  const mailDir = join(dir, 'mail');
  mkdirSync(mailDir);
  chmodSync(mailDir, 0o777);
  const mda = join(dir, 'deliver.sh');
  writeFileSync(
    mda,
    `#!/bin/sh\nf="${mailDir}/$(date +%s%N)-$$"\ncat > "$f.tmp" && mv "$f.tmp" "$f.eml"\n`,
    { mode: 0o755 },
  );
  writeFileSync(join(dir, 'vusers'), '@ opensmtpd\n', { mode: 0o644 });
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ]); // prettier-ignore
  const port = await freePort();
  writeFileSync(
    join(dir, 'smtpd.conf'),
    [
      `table vusers file:${join(dir, 'vusers')}`,
      `listen on 127.0.0.1 port ${String(port)} hostname lab.test`,
      `action "deliver" mda "${mda}" virtual <vusers>`,
      'match from any for any action "deliver"',
      '',
    ].join('\n'),
  );
  const child = spawn(SMTPD, ['-d', '-f', join(dir, 'smtpd.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer): void => {
    out = (out + d.toString()).slice(-50_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);

  const fronts: Server[] = [];
  const stopChild = stopper(child, dir);
  const stop = async (): Promise<void> => {
    for (const f of fronts) f.close();
    await stopChild();
    unlock();
  };

  try {
    await until(
      `OpenSMTPD on port ${String(port)}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`smtpd exited: ${out}`);
        return new Promise<true | undefined>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.once('data', (d: Buffer) => {
            s.destroy();
            resolve(d.toString().startsWith('220') ? true : undefined);
          });
          s.once('error', () => resolve(undefined));
        });
      },
      20_000,
      100,
    );
  } catch (err) {
    await stop();
    throw new Error(`OpenSMTPD did not start: ${(err as Error).message}\n${out}`);
  }

  const tlsOptions = { cert: readFileSync(cert), key: readFileSync(key) };
  // Implicit TLS: decrypt and hand over.
  const ssl = createTlsServer(tlsOptions, (clear) => {
    const upstream = connect(port, '127.0.0.1');
    pipeBoth(clear, upstream);
  });
  // STARTTLS: greet, answer EHLO offering STARTTLS, upgrade, then hand over to OpenSMTPD
  // (minus its greeting: the client already had one).
  const starttls = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.write('220 lab.test ESMTP front\r\n');
    let buffer = '';
    const onData = (d: Buffer): void => {
      buffer += d.toString('latin1');
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-lab.test\r\n250-STARTTLS\r\n250 8BITMIME\r\n');
        else if (verb === 'HELO') socket.write('250 lab.test\r\n');
        else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else if (line.toUpperCase() === 'STARTTLS') {
          socket.off('data', onData);
          socket.write('220 go ahead\r\n');
          const secure = new TLSSocket(socket, { isServer: true, ...tlsOptions });
          const upstream = connect(port, '127.0.0.1');
          secure.on('error', () => secure.destroy());
          void readGreeting(upstream)
            .then(() => pipeBoth(secure, upstream))
            .catch(() => secure.destroy());
          return;
        } else socket.write('530 5.7.0 must issue a STARTTLS command first\r\n');
      }
    };
    socket.on('data', onData);
  });
  const sslPort = await freePort();
  const starttlsPort = await freePort();
  await listen(ssl, sslPort);
  await listen(starttls, starttlsPort);
  fronts.push(ssl, starttls);

  const messages = (): string[] =>
    readdirSync(mailDir)
      .filter((f) => f.endsWith('.eml'))
      .sort()
      .map((f) => readFileSync(join(mailDir, f), 'utf8'));

  return {
    port,
    sslPort,
    starttlsPort,
    caFile: cert,
    tls: tlsOptions,
    messages,
    waitFor: (match, timeoutMs = 15_000) =>
      until('a delivered mail', async () => messages().find(match), timeoutMs, 50),
    output: () => out,
    stop,
  };
}

/**
 * A scripted SMTP peer on a real loopback socket, for failures OpenSMTPD cannot show: a
 * server that refuses a password (and echoes what it was sent, as a careless one might), or
 * one that never answers (`greet: false`, `handle` silent).
 */
export async function smtpPeer(
  handle: (line: string, write: (s: string) => void) => void,
  greet = true,
  tls?: { readonly cert: Buffer; readonly key: Buffer },
): Promise<{ port: number; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const onSocket = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (greet) socket.write('220 peer.test ESMTP\r\n');
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      let end: number;
      while ((end = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, end);
        buf = buf.slice(end + 2);
        seen.push(line);
        handle(line, (s) => socket.write(s));
      }
    });
  };
  const server: Server =
    tls === undefined ? createServer(onSocket) : createTlsServer(tls, onSocket);
  await listen(server, 0);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/**
 * A peer that offers AUTH and refuses every password, echoing the credentials it got; with
 * `tls`, it speaks implicit TLS (SMTPS).
 */
export function refusingPeer(tls?: {
  readonly cert: Buffer;
  readonly key: Buffer;
}): ReturnType<typeof smtpPeer> {
  return smtpPeer(
    (line, write) => {
      if (/^EHLO/i.test(line)) write('250-peer.test\r\n250 AUTH PLAIN\r\n');
      else if (/^AUTH/i.test(line)) write(`535 5.7.8 authentication failed for ${line}\r\n`);
      else if (/^QUIT/i.test(line)) write('221 bye\r\n');
      else write('250 ok\r\n');
    },
    true,
    tls,
  );
}

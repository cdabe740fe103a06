// The lab's sshd: Debian's OpenSSH server started as root on a free port of a loopback
// address, with its own ed25519 host key and an authorized_keys file the caller writes
// (normally one key restricted to the gate). Everything lives in a temporary folder that
// stop() removes. Tests point the gate at their own config through `env` (sshd's SetEnv),
// or through a `VAR=value /path/svc-gate` command in the authorized_keys line.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, programOnPath, requireProgram, stopper, until } from './processes.js';

const SSHD = '/usr/sbin/sshd';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface SshdOptions {
  /** The loopback address to listen on; 127.0.0.1 by default (127.0.1.x for lab hosts). */
  readonly address?: string;
  /** The whole authorized_keys file, for the user the client logs in as (root). */
  readonly authorizedKeys: string;
  /** Variables every session gets (sshd_config SetEnv), e.g. SVC_GATE_CONF. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface Sshd {
  readonly host: string;
  readonly port: number;
  /** The server's public host key line, "ssh-ed25519 AAAA…", as the hostkey route pins it. */
  readonly hostKey: string;
  readonly dir: string;
  /** sshd's log (-e: to stderr), the last 50 kB. */
  output(): string;
  stop(): Promise<void>;
}

/** Resolves once the server sends its SSH banner, so a client never races the start. */
function banner(host: string, port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (v: true | undefined) => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(1000, () => {
      done(undefined);
    });
    socket.once('data', (d: Buffer) => {
      done(d.toString('latin1').startsWith('SSH-') ? true : undefined);
    });
    socket.once('error', () => {
      done(undefined);
    });
  });
}

export async function startSshd(opts: SshdOptions): Promise<Sshd> {
  requireProgram(SSHD, 'openssh-server');
  const keygen = programOnPath('ssh-keygen', 'openssh-client');
  const host = opts.address ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'lab-sshd-'));
  // Privilege separation needs this folder; a fresh container has no /run/sshd.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKeyFile = join(dir, 'ssh_host_ed25519_key');
  execFileSync(keygen, ['-q', '-t', 'ed25519', '-N', '', '-C', 'lab', '-f', hostKeyFile]);
  const [type, blob] = readFileSync(`${hostKeyFile}.pub`, 'utf8').trim().split(/\s+/);
  if (type === undefined || blob === undefined) throw new Error('ssh-keygen wrote no public key');
  const authorizedKeys = join(dir, 'authorized_keys');
  writeFileSync(authorizedKeys, opts.authorizedKeys, { mode: 0o600 });
  const setEnv = Object.entries(opts.env ?? {}).map(([k, v]) => {
    if (!ENV_NAME.test(k) || /[\s"\\]/.test(v))
      throw new Error(`env ${k}: a variable name and a value without spaces or quotes`);
    return `SetEnv ${k}=${v}`;
  });
  const port = await freePort(host);
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `ListenAddress ${host}:${String(port)}`,
      `HostKey ${hostKeyFile}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitUserEnvironment no',
      'X11Forwarding no',
      'AllowTcpForwarding no',
      'PrintMotd no',
      'UseDNS no',
      'LogLevel VERBOSE',
      'MaxStartups 100',
      ...setEnv,
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-50_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  try {
    await until(
      `sshd on ${host}:${String(port)}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`sshd exited: ${out}`);
        return banner(host, port);
      },
      15_000,
      100,
    );
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`sshd did not start: ${(err as Error).message}\n${out}`);
  }
  return {
    host,
    port,
    hostKey: `${type} ${blob}`,
    dir,
    output: () => out,
    stop: stopper(child, dir),
  };
}

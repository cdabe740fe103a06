// The ssh connector kind: read-only checks and permitted actions on one host, through the
// gate (build/gate/svc-gate) that the host's authorized_keys line forces for our key. Every
// call is one connection and one exec of the gate with a fixed command line; the host key
// must equal the pinned one (a key that differs, or no pin, is refused), the caller's
// AbortSignal destroys the connection, and the output is bounded. The private key is
// revealed only into ssh2's connect options, and never appears in a message.
import ssh2 from 'ssh2';
import type { ClientChannel, ConnectConfig, ServerHostKeyAlgorithm } from 'ssh2';
import { Secret } from '../../shared/secret.js';
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import { elapsedMs, networkErrorText, readInteger, readSecret, readString } from './settings.js';
import {
  fingerprintOf,
  hostKeyAlgorithmsFor,
  parseCertificates,
  parseConfigChanges,
  parseDisk,
  parseInodes,
  parseHostKeyLine,
  parseJournal,
  parseLoad,
  parseMemory,
  parsePorts,
  parseProcesses,
  parseServices,
  parseSetup,
  parseVersion,
  SHA256_HEX,
  type PinnedKey,
} from './ssh.parse.js';
import { parseResolver } from './ssh.resolver.js';

const { Client, utils } = ssh2;

/** Gate output above this is refused (the connection is dropped). */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;
/** A backstop for a caller whose signal has no deadline; timeout_s is the real limit. */
const HANDSHAKE_TIMEOUT_MS = 60_000;
/** The gate's exit status for a refused command. */
export const GATE_REFUSED = 126;
const MAX_JOURNAL_LINES = 500;
const UNIT = /^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,127}$/;
const CACHE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** A PostgreSQL login role as the gate accepts it (an unquoted name). */
const ROLE = /^[a-z_][a-z0-9_]{0,62}$/;
/** A revert command's name in the gate config. */
const REVERT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const COMMIT = /^[0-9a-f]{7,40}$/;
const HOST = /^[A-Za-z0-9._:-]{1,253}$/;

const CHECKS = [
  'services',
  'ports',
  'disk',
  'inodes',
  'memory',
  'load',
  'journal',
  'certificates',
  'processes',
  'setup',
  'config_changes',
  'resolver',
] as const;
const ACTIONS = [
  'restart',
  'reload',
  'clear_cache',
  'terminate_idle',
  'revert',
  'restore',
] as const;
type GateAction = (typeof ACTIONS)[number];
const OPERATIONS: readonly string[] = [...CHECKS, ...ACTIONS, 'dry_run'];

/** The name an action takes, checked here so that a bad one never leaves this side. */
const NAME_OF: Record<GateAction, { re: RegExp; what: string }> = {
  restart: { re: UNIT, what: 'a unit name (letters, digits, _ . @ : -)' },
  reload: { re: UNIT, what: 'a unit name (letters, digits, _ . @ : -)' },
  clear_cache: { re: CACHE, what: 'a cache name (letters, digits, _ -)' },
  terminate_idle: { re: ROLE, what: 'a role name (lowercase letters, digits, _)' },
  revert: { re: REVERT_NAME, what: 'a revert name (letters, digits, _ -)' },
  restore: { re: UNIT, what: 'a unit name (letters, digits, _ . @ : -)' },
};

export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly privateKey: Secret;
  readonly pinned: PinnedKey;
}

export interface GateAnswer {
  readonly stdout: string;
  readonly stderr: string;
  /** the gate's exit status; null when it was killed by a signal */
  readonly code: number | null;
}

const where = (t: { host: string; port: number }): string =>
  `${t.host.includes(':') ? `[${t.host}]` : t.host}:${String(t.port)}`;

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

/** ssh2's errors, told as what an operator can check. */
export function sshErrorText(err: unknown, target: { host: string; port: number }): string {
  const e = err as Error & { level?: string };
  const at = where(target);
  if (e.level === 'client-authentication')
    return `ssh to ${at}: the host did not accept the key (is the authorized_keys line installed for this user?)`;
  if (e.level === 'client-timeout')
    return `ssh to ${at}: no ssh handshake (the port did not speak ssh)`;
  return `ssh to ${at}: ${networkErrorText(err)}`;
}

const clip = (text: string, max = 400): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
};

/**
 * Open one connection, exec `command` (the gate sees it as $SSH_ORIGINAL_COMMAND) and give
 * its output and exit status. Rejects on a host key other than the pinned one, on abort,
 * and on output over MAX_OUTPUT_BYTES.
 */
export function runGate(
  target: SshTarget,
  command: string,
  signal: AbortSignal,
): Promise<GateAnswer> {
  signal.throwIfAborted();
  return new Promise<GateAnswer>((resolve, reject) => {
    const conn = new Client();
    let settled = false;
    let offered: string | null = null;
    const finish = (err: Error | null, answer?: GateAnswer) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      conn.destroy();
      if (err !== null) reject(err);
      else if (answer !== undefined) resolve(answer);
    };
    const onAbort = () => {
      finish(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const mismatch = () =>
      new Error(
        `ssh to ${where(target)}: host key refused: the host offered ${offered ?? 'another key'}, pinned is ${target.pinned.fingerprint} (if the host was rebuilt, scan and pin its key again)`,
      );
    conn.on('error', (err) => {
      finish(offered !== null ? mismatch() : new Error(sshErrorText(err, target)));
    });
    conn.on('close', () => {
      finish(
        offered !== null
          ? mismatch()
          : new Error(`ssh to ${where(target)}: the connection closed before the gate answered`),
      );
    });
    conn.on('ready', () => {
      conn.exec(command, (err, stream: ClientChannel) => {
        if (err !== undefined && err !== null) {
          finish(new Error(`ssh to ${where(target)}: exec refused: ${err.message}`));
          return;
        }
        const out: Buffer[] = [];
        const errs: Buffer[] = [];
        let outBytes = 0;
        let errBytes = 0;
        let code: number | null = null;
        stream.on('data', (d: Buffer) => {
          outBytes += d.length;
          if (outBytes > MAX_OUTPUT_BYTES) {
            finish(
              new Error(
                `ssh to ${where(target)}: the gate's answer is larger than ${String(MAX_OUTPUT_BYTES / 1024 / 1024)} MiB; refused`,
              ),
            );
            return;
          }
          out.push(d);
        });
        stream.stderr.on('data', (d: Buffer) => {
          if (errBytes < MAX_STDERR_BYTES) errs.push(d);
          errBytes += d.length;
        });
        stream.on('exit', (c: number | null) => {
          code = typeof c === 'number' ? c : null;
        });
        stream.on('close', () => {
          finish(null, {
            stdout: Buffer.concat(out).toString('utf8'),
            stderr: Buffer.concat(errs).toString('utf8'),
            code,
          });
        });
      });
    });
    const options: ConnectConfig = {
      host: target.host,
      port: target.port,
      username: target.user,
      privateKey: target.privateKey.reveal(),
      readyTimeout: HANDSHAKE_TIMEOUT_MS,
      hostVerifier: (key: Buffer) => {
        if (key.equals(target.pinned.blob)) return true;
        offered = fingerprintOf(key);
        return false;
      },
      // Only the pinned key's type, so a host with several keys shows the pinned one.
      algorithms: {
        serverHostKey: hostKeyAlgorithmsFor(target.pinned.type) as ServerHostKeyAlgorithm[],
      },
    };
    try {
      conn.connect(options);
    } catch (err) {
      finish(new Error(sshErrorText(err, target)));
    }
  });
}

/** Throws the gate's refusal or failure as one clear line; gives stdout otherwise. */
export function gateOutput(answer: GateAnswer, what: string, at: string): string {
  if (answer.code === 0) return answer.stdout;
  const said = clip(answer.stderr.replace(/^refused: /, ''));
  if (answer.code === GATE_REFUSED) return fail(`refused by the gate: ${said || what}`);
  if (answer.code === 127)
    return fail(`${what} on ${at}: the gate is not installed where authorized_keys says`);
  if (answer.code === null) return fail(`${what} on ${at}: the gate was killed`);
  return fail(`${what} on ${at} failed (status ${String(answer.code)})${said ? `: ${said}` : ''}`);
}

function fail(message: string): never {
  throw new Error(message);
}

function unitArg(args: Readonly<Record<string, unknown>>): string {
  const unit = args['unit'];
  if (typeof unit !== 'string' || !UNIT.test(unit))
    throw new Error('argument unit must be a unit name (letters, digits, _ . @ : -)');
  return unit;
}

/**
 * `since` (epoch seconds): lines stamped before it are not what the service says now. A pack
 * passes the last time the service was healthy (less a margin): an error logged before the
 * service was last seen well cannot explain why it fails now.
 */
function sinceArg(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    throw new Error('argument since must be a time in epoch seconds');
  return n * 1000;
}

function linesArg(raw: unknown): number {
  if (raw === undefined) return 100;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_JOURNAL_LINES)
    throw new Error(`argument lines must be an integer from 1 to ${String(MAX_JOURNAL_LINES)}`);
  return raw;
}

/** The resolved settings as a target; throws naming the setting (never its value). */
export function targetOf(settings: ResolvedSettings): SshTarget {
  const host = readString(settings, 'host');
  if (host === undefined || !HOST.test(host))
    throw new Error('setting host must be a host name or an IP address');
  const port = readInteger(settings, 'port', 22, 1, 65_535);
  const user = readString(settings, 'user');
  if (user === undefined || !/^[A-Za-z0-9._-]{1,64}$/.test(user))
    throw new Error('setting user must be a user name');
  const privateKey = readSecret(settings, 'private_key');
  if (privateKey === undefined) throw new Error('setting private_key is required');
  const parsed = utils.parseKey(privateKey.reveal());
  if (parsed instanceof Error || Array.isArray(parsed) || !parsed.isPrivateKey())
    throw new Error(
      'setting private_key is not a private key ssh2 can read (OpenSSH or PEM, without a passphrase)',
    );
  const hostKey = readString(settings, 'host_key');
  if (hostKey === undefined)
    throw new Error(
      "setting host_key is empty: pin the host's key first (POST /v1/connectors/ssh/hostkey); an unpinned host is refused",
    );
  return { host, port, user, privateKey, pinned: parseHostKeyLine(hostKey) };
}

function createSshClient(settings: ResolvedSettings): ConnectorClient {
  const target = targetOf(settings);
  const at = where(target);

  async function gate(command: string, what: string, signal: AbortSignal): Promise<string> {
    return gateOutput(await runGate(target, command, signal), what, at);
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    const version = parseVersion(await gate('version', 'the gate version check', signal));
    const duration = elapsedMs(started);
    return {
      ok: true,
      detail: `gate ${version} on ${at} in ${String(duration)} ms`,
      duration_ms: duration,
    };
  }

  async function call(op: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    switch (op) {
      case 'services':
        return parseServices(await gate('services', op, signal));
      case 'ports':
        return parsePorts(await gate('ports', op, signal));
      case 'disk':
        return parseDisk(await gate('disk', op, signal));
      case 'inodes':
        return parseInodes(await gate('inodes', op, signal));
      case 'memory':
        return parseMemory(await gate('memory', op, signal));
      case 'load':
        return parseLoad(await gate('load', op, signal));
      case 'certificates':
        return parseCertificates(await gate('certificates', op, signal), Date.now());
      case 'processes':
        return parseProcesses(await gate('processes', op, signal));
      case 'setup':
        return parseSetup(await gate('setup', op, signal));
      case 'resolver':
        return parseResolver(await gate('resolver', op, signal));
      case 'config_changes': {
        const unit = unitArg(args);
        return parseConfigChanges(await gate(`config_changes ${unit}`, `${op} ${unit}`, signal));
      }
      case 'journal': {
        const unit = unitArg(args);
        const lines = linesArg(args['lines']);
        const since = sinceArg(args['since']);
        return parseJournal(
          unit,
          await gate(`journal ${unit} ${String(lines)}`, op, signal),
          Date.now(),
          since,
        );
      }
      case 'restart':
      case 'reload': {
        const unit = unitArg(args);
        const output = await gate(`${op} ${unit}`, `${op} ${unit}`, signal);
        return { ok: true as const, output: output.trim() };
      }
      case 'clear_cache': {
        const name = args['name'];
        if (typeof name !== 'string' || !CACHE.test(name))
          throw new Error('argument name must be a cache name (letters, digits, _ -)');
        const output = await gate(`clear_cache ${name}`, `clear_cache ${name}`, signal);
        return { ok: true as const, output: output.trim() };
      }
      case 'terminate_idle': {
        const role = args['role'];
        if (typeof role !== 'string' || !ROLE.test(role))
          throw new Error('argument role must be a role name (lowercase letters, digits, _)');
        const output = (
          await gate(`terminate_idle ${role}`, `terminate_idle ${role}`, signal)
        ).trim();
        const n = /^terminated (\d+) idle sessions/m.exec(output)?.[1];
        return { ok: true as const, output, terminated: n === undefined ? null : Number(n) };
      }
      case 'revert': {
        const name = args['name'];
        const commit = args['commit'];
        if (typeof name !== 'string' || !REVERT_NAME.test(name))
          throw new Error('argument name must be a revert name (letters, digits, _ -)');
        if (typeof commit !== 'string' || !COMMIT.test(commit))
          throw new Error('argument commit must be a commit id (7 to 40 lowercase hex digits)');
        const output = await gate(`revert ${name} ${commit}`, `revert ${name}`, signal);
        return { ok: true as const, output: output.trim() };
      }
      case 'restore': {
        const name = args['name'];
        const sha = args['sha256'];
        if (typeof name !== 'string' || !UNIT.test(name))
          throw new Error('argument name must be a unit name (letters, digits, _ . @ : -)');
        if (typeof sha !== 'string' || !SHA256_HEX.test(sha))
          throw new Error('argument sha256 must be a sha256 (64 lowercase hex digits)');
        const output = await gate(`restore ${name} ${sha}`, `restore ${name}`, signal);
        return { ok: true as const, output: output.trim() };
      }
      case 'dry_run': {
        const action = args['action'];
        const arg = args['arg'];
        if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action))
          throw new Error(`argument action must be one of ${ACTIONS.join(', ')}`);
        const rule = NAME_OF[action as GateAction];
        if (typeof arg !== 'string' || !rule.re.test(arg))
          throw new Error(`argument arg must be ${rule.what}`);
        const output = await gate(`dry_run ${action} ${arg}`, `dry_run ${action} ${arg}`, signal);
        return { ok: true as const, output: output.trim() };
      }
      default:
        throw new Error(`ssh has no operation ${JSON.stringify(op)}`);
    }
  }

  return { health, call };
}

export const sshKind: ConnectorKind = {
  kind: 'ssh',
  title: 'SSH gate',
  description:
    "Read-only checks (services, ports, disk, inodes, memory, load, journal, certificates, processes, setup, config_changes, resolver), the actions a host's gate config allows (restart, reload, clear_cache, terminate_idle, revert, restore) and their dry runs, over ssh through the svc-gate command; the host key is pinned.",
  capabilities: ['gate', 'discover'],
  settings: [
    { name: 'host', type: 'string', required: true, description: 'Host name or IP address.' },
    {
      name: 'port',
      type: 'integer',
      required: false,
      default: 22,
      minimum: 1,
      maximum: 65_535,
      description: 'The sshd port.',
    },
    {
      name: 'user',
      type: 'string',
      required: true,
      description: 'The user whose authorized_keys holds the gate line.',
    },
    {
      name: 'private_key',
      type: 'secret',
      required: true,
      description:
        'The private key (OpenSSH or PEM, no passphrase); POST /v1/connectors/ssh/keypair makes one and answers its {file}.',
    },
    {
      name: 'host_key',
      type: 'string',
      required: true,
      description:
        'The pinned host key line "ssh-ed25519 AAAA…" (POST /v1/connectors/ssh/hostkey scans it); any other key is refused.',
    },
  ],
  operations: OPERATIONS,
  create: createSshClient,
};

/** Host key types a scan asks for, best first: an ed25519 key is pinned when the host has one. */
const SCAN_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
];

/**
 * The key a host offers, read from the start of a handshake that is then dropped: nothing
 * is authenticated and nothing runs on the host.
 */
export function scanHostKey(
  host: string,
  port: number,
  signal: AbortSignal,
): Promise<{ key: Buffer }> {
  signal.throwIfAborted();
  if (!HOST.test(host))
    return Promise.reject(new Error('host must be a host name or an IP address'));
  return new Promise((resolve, reject) => {
    const conn = new Client();
    let settled = false;
    const finish = (err: Error | null, key?: Buffer) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      conn.destroy();
      if (err !== null) reject(err);
      else if (key !== undefined) resolve({ key });
    };
    const onAbort = () => {
      finish(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    conn.on('error', (err) => {
      finish(new Error(sshErrorText(err, { host, port })));
    });
    conn.on('close', () => {
      finish(new Error(`ssh to ${where({ host, port })}: closed before offering a host key`));
    });
    try {
      conn.connect({
        host,
        port,
        username: 'svc-hostkey-scan',
        readyTimeout: HANDSHAKE_TIMEOUT_MS,
        hostVerifier: (key: Buffer) => {
          finish(null, Buffer.from(key));
          return false;
        },
        algorithms: {
          serverHostKey: SCAN_ALGORITHMS as ServerHostKeyAlgorithm[],
        },
      });
    } catch (err) {
      finish(new Error(sshErrorText(err, { host, port })));
    }
  });
}

/** A new ed25519 key pair in OpenSSH format; the private half goes to a secret file only. */
export function generateKeyPair(comment: string): { publicKey: string; privateKey: Secret } {
  // ssh2 writes about one ed25519 key in 200 that its own parser then calls malformed: such
  // a key would be handed out and never connect. Keep only a key that reads back.
  for (let tries = 0; tries < 20; tries++) {
    const pair = utils.generateKeyPairSync('ed25519', { comment });
    const parsed = utils.parseKey(pair.private);
    if (!(parsed instanceof Error) && !Array.isArray(parsed) && parsed.isPrivateKey())
      return { publicKey: pair.public.trim(), privateKey: new Secret(pair.private) };
  }
  throw new Error('ssh2 made no ed25519 key it can read back in 20 tries');
}

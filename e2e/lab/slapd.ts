// The lab's directory: Debian's OpenLDAP server (/usr/sbin/slapd) started as root on a free
// loopback port, from a temporary slapd.conf with an mdb database under dc=lab,dc=test.
// The entries (a service account, people with slappasswd-hashed passwords, groupOfNames
// groups) are loaded offline with slapadd before the server starts. stop() ends the server
// and removes the folder. Passwords are the caller's; they never reach slapd's log.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requireProgram, stopper, until } from './processes.js';

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const SLAPPASSWD = '/usr/sbin/slappasswd';
const SCHEMAS = '/etc/ldap/schema';

export const LAB_BASE = 'dc=lab,dc=test';
export const LAB_PEOPLE = `ou=people,${LAB_BASE}`;
export const LAB_GROUPS = `ou=groups,${LAB_BASE}`;
export const LAB_SERVICE_DN = `cn=svc,ou=services,${LAB_BASE}`;

export interface LabPerson {
  readonly uid: string;
  readonly password: string;
  readonly name: string;
  readonly mail: string;
}

export interface LabGroup {
  readonly cn: string;
  /** uids of members */
  readonly members: readonly string[];
}

export interface SlapdOptions {
  readonly servicePassword: string;
  readonly people: readonly LabPerson[];
  readonly groups: readonly LabGroup[];
}

export interface Slapd {
  /** ldap://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly base: string;
  readonly serviceDn: string;
  readonly peopleBase: string;
  readonly groupsBase: string;
  /** slapd's log (stats level), the last 100 kB. */
  output(): string;
  stop(): Promise<void>;
}

/** slappasswd's {SSHA} of a password, read from a 0600 file (never on a command line). */
function hasher(dir: string): (password: string) => string {
  const file = join(dir, 'password');
  return (password) => {
    writeFileSync(file, password, { mode: 0o600 });
    try {
      return execFileSync(SLAPPASSWD, ['-T', file]).toString('utf8').trim();
    } finally {
      rmSync(file, { force: true });
    }
  };
}

const personDn = (uid: string): string => `uid=${uid},${LAB_PEOPLE}`;

function ldif(opts: SlapdOptions, hash: (password: string) => string): string {
  const blocks: string[][] = [
    [
      'dn: dc=lab,dc=test',
      'objectClass: dcObject',
      'objectClass: organization',
      'dc: lab',
      'o: lab',
    ],
    ...['people', 'groups', 'services'].map((ou) => [
      `dn: ou=${ou},${LAB_BASE}`,
      'objectClass: organizationalUnit',
      `ou: ${ou}`,
    ]),
    [
      `dn: ${LAB_SERVICE_DN}`,
      'objectClass: organizationalRole',
      'objectClass: simpleSecurityObject',
      'cn: svc',
      `userPassword: ${hash(opts.servicePassword)}`,
    ],
    ...opts.people.map((p) => [
      `dn: ${personDn(p.uid)}`,
      'objectClass: inetOrgPerson',
      `uid: ${p.uid}`,
      `cn: ${p.name}`,
      `sn: ${p.name.split(' ').at(-1) ?? p.uid}`,
      `mail: ${p.mail}`,
      `userPassword: ${hash(p.password)}`,
    ]),
    ...opts.groups.map((g) => [
      `dn: cn=${g.cn},${LAB_GROUPS}`,
      'objectClass: groupOfNames',
      `cn: ${g.cn}`,
      // groupOfNames needs a member; an empty group names the base itself.
      ...(g.members.length === 0
        ? [`member: ${LAB_BASE}`]
        : g.members.map((u) => `member: ${personDn(u)}`)),
    ]),
  ];
  return blocks.map((b) => b.join('\n')).join('\n\n') + '\n';
}

function config(dir: string): string {
  return [
    ...['core', 'cosine', 'inetorgperson', 'nis'].map((s) => `include ${SCHEMAS}/${s}.schema`),
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    'loglevel stats',
    'database mdb',
    `suffix "${LAB_BASE}"`,
    `rootdn "cn=admin,${LAB_BASE}"`,
    `directory ${join(dir, 'db')}`,
    'maxsize 67108864',
    'index objectClass eq',
    'index uid,mail,member,cn eq',
    // Password hashes are never readable; binding against them is.
    'access to attrs=userPassword by self write by anonymous auth by * none',
    `access to * by dn.exact="${LAB_SERVICE_DN}" read by users read by * none`,
    '',
  ].join('\n');
}

/** Resolves once the port accepts a connection. */
function accepts(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(undefined);
    });
  });
}

export async function startSlapd(opts: SlapdOptions): Promise<Slapd> {
  requireProgram(SLAPD, 'slapd');
  requireProgram(SLAPPASSWD, 'slapd');
  const dir = mkdtempSync(join(tmpdir(), 'lab-slapd-'));
  try {
    mkdirSync(join(dir, 'db'), { mode: 0o700 });
    const conf = join(dir, 'slapd.conf');
    writeFileSync(conf, config(dir), { mode: 0o600 });
    const data = join(dir, 'data.ldif');
    writeFileSync(data, ldif(opts, hasher(dir)), { mode: 0o600 });
    execFileSync(SLAPADD, ['-q', '-f', conf, '-l', data], { stdio: 'pipe' });
    rmSync(data);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`slapd set-up failed: ${e.stderr?.toString() ?? e.message}`);
  }
  const port = await freePort();
  const url = `ldap://127.0.0.1:${String(port)}`;
  // -d keeps it in the foreground and logs to stderr.
  const child = spawn(SLAPD, ['-h', `${url}/`, '-f', join(dir, 'slapd.conf'), '-d', 'stats'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-100_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const stop = stopper(child, dir);
  try {
    await until(
      `slapd on ${url}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`slapd exited: ${out}`);
        return accepts(port);
      },
      15_000,
      100,
    );
  } catch (err) {
    await stop();
    throw new Error(`slapd did not start: ${(err as Error).message}\n${out}`);
  }
  return {
    url,
    port,
    base: LAB_BASE,
    serviceDn: LAB_SERVICE_DN,
    peopleBase: LAB_PEOPLE,
    groupsBase: LAB_GROUPS,
    output: () => out,
    stop,
  };
}

// Connects the service to the lab through its API, as a person would in the console: an
// ssh key pair per host from the service (its public half installed in that host's sshd,
// restricted to the gate), each host key scanned and pinned, and one connector per tool.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATE } from './gate.js';

export interface Api {
  readonly url: string;
  readonly token: string;
}

export async function api<T>(a: Api, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${a.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${a.token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${String(res.status)} ${text.slice(0, 500)}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export interface SshHost {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly hostKey: string;
  /** The sshd's folder: its authorized_keys file is written here. */
  readonly dir: string;
}

interface Keypair {
  readonly authorized_keys: string;
  readonly private_key: { readonly file: string };
}

/** Key pair, authorized_keys, pinned host key, connector: one ssh host. */
export async function connectSsh(a: Api, h: SshHost): Promise<void> {
  const pair = await api<Keypair>(a, 'POST', '/v1/connectors/ssh/keypair', {
    name: h.name,
    gate_path: GATE,
  });
  writeFileSync(join(h.dir, 'authorized_keys'), `${pair.authorized_keys}\n`, { mode: 0o600 });
  const scanned = await api<{ host_key: string }>(a, 'POST', '/v1/connectors/ssh/hostkey', {
    host: h.host,
    port: h.port,
  });
  if (scanned.host_key.trim() !== h.hostKey.trim())
    throw new Error(`ssh ${h.name}: the scanned host key is not the one sshd was given`);
  await api(a, 'PUT', `/v1/connectors/${h.name}`, {
    kind: 'ssh',
    settings: {
      host: h.host,
      port: h.port,
      user: 'root',
      private_key: pair.private_key,
      host_key: scanned.host_key,
    },
  });
}

export interface Tools {
  readonly prometheus: string;
  readonly alertmanager: string;
  readonly site: string;
  /** the lab CA's certificate (PEM), which the site's certificate is signed by */
  readonly ca: string;
  readonly postgres: {
    host: string;
    port: number;
    database: string;
    user: string;
    passwordFile: string;
  };
  readonly deployRepo: string;
}

/** The connectors for the tools (names are what the lab docs and tests use). */
export function toolConnectors(t: Tools): Record<string, unknown> {
  return {
    prometheus: { kind: 'prometheus', settings: { url: t.prometheus } },
    alertmanager: { kind: 'alertmanager', settings: { url: t.alertmanager } },
    // The site's certificate is signed by the lab's own CA; the probe is of nginx's service.
    site: { kind: 'http', settings: { url: t.site, ca_file: t.ca, service: 'nginx' } },
    postgresql: {
      kind: 'postgresql',
      settings: {
        host: t.postgres.host,
        port: t.postgres.port,
        database: t.postgres.database,
        user: t.postgres.user,
        password: { file: t.postgres.passwordFile },
        service: 'postgresql',
      },
    },
    deploys: { kind: 'git', settings: { path: t.deployRepo, service: 'app' } },
  };
}

/**
 * Adds every connector this build has a kind for; answers the ones left out because the
 * service does not know their kind (a build older than the lab).
 */
export async function connectService(a: Api, ssh: readonly SshHost[], t: Tools): Promise<string[]> {
  const catalogue = await api<{ kinds: { kind: string }[] }>(a, 'GET', '/v1/connectors/catalogue');
  const known = new Set(catalogue.kinds.map((k) => k.kind));
  const tools = Object.entries(toolConnectors(t)).filter(([, doc]) =>
    known.has((doc as { kind: string }).kind),
  );
  await Promise.all([
    ...(known.has('ssh') ? ssh.map((h) => connectSsh(a, h)) : []),
    ...tools.map(([name, doc]) => api(a, 'PUT', `/v1/connectors/${name}`, doc)),
  ]);
  return [
    ...(known.has('ssh') ? [] : ssh.map((h) => h.name)),
    ...Object.keys(toolConnectors(t)).filter((n) => !tools.some(([name]) => name === n)),
  ];
}

export interface ConnectorView {
  readonly name: string;
  readonly kind: string;
  readonly problem: string | null;
  readonly last_health: { ok: boolean; detail: string | null } | null;
}

export async function connectors(a: Api): Promise<ConnectorView[]> {
  return (await api<{ connectors: ConnectorView[] }>(a, 'GET', '/v1/connectors')).connectors;
}

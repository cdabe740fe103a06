// What each kind of connector tells discovery, as pure functions of its answers: Prometheus
// targets, a host's units and sockets over ssh, an HTTP probe's URL, and any kind that
// answers the generic `discover` operation (postgresql). Links that join two connectors'
// findings (a connection from one host to a port another host serves) are made later, when
// the estate is read (estate.observed.ts), from the observations returned here.
import { findingsFromTargets, hostOf, type TargetLike } from './estate.model.js';
import {
  NO_OBSERVATIONS,
  type Candidate,
  type ConnectObservation,
  type ListenObservation,
  type Observations,
  type ProbeObservation,
} from './estate.observed.js';
import type { FoundLink, FoundService } from './estate.store.js';

export interface Findings {
  readonly services: FoundService[];
  readonly links: FoundLink[];
  readonly observations: Observations;
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const portOf = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
};
function listOf(answer: unknown, key: string, what: string): unknown[] {
  const v = record(answer)[key];
  if (!Array.isArray(v)) throw new Error(`${what}: the answer has no ${key} list`);
  return v as unknown[];
}

/** What a unit probably is, from its name: web servers, datastores, or just a service. */
export function guessKind(unit: string): 'web' | 'datastore' | 'service' {
  const n = unit.toLowerCase().replace(/\.service$/, '');
  if (n.includes('exporter')) return 'service'; // nginx-exporter watches nginx; it serves no pages
  if (/^(nginx|apache2?|httpd|haproxy)([@._-]|$)/.test(n)) return 'web';
  if (/^(postgres|mysql|mariadb|redis)/.test(n)) return 'datastore';
  return 'service';
}

/**
 * Units that are the host's own plumbing (sshd, systemd's helpers, getty, dbus, cron): never
 * services or candidates, or every host would offer the same dozen names.
 */
const PLUMBING =
  /^(ssh|sshd|dbus|dbus-broker|cron|crond|atd|polkit|getty@.*|serial-getty@.*|user@.*|user-runtime-dir@.*|systemd-.*|unattended-upgrades|networkd-dispatcher)$/;

/** `[::1]` → `::1`; `*` stays. */
const bare = (address: string): string => address.replace(/^\[|\]$/g, '');

/** The Prometheus findings (see findingsFromTargets), plus blackbox-style probes. */
export function findingsFromPrometheus(
  connector: string,
  targets: readonly TargetLike[],
): Findings {
  const found = findingsFromTargets(connector, targets);
  const probes: ProbeObservation[] = [];
  for (const t of targets) {
    // A target whose instance is a URL is a probe of that URL (blackbox exporter); only a
    // `service` label says which service it checks (the job names the probe, not a service).
    const service = text(t.labels['service']);
    const probe = probeOf(service, t.instance);
    if (probe !== null) probes.push(probe);
  }
  return { ...found, observations: { ...NO_OBSERVATIONS, probes } };
}

function probeOf(service: string, url: string): ProbeObservation | null {
  if (service === '' || !/^https?:\/\//i.test(url)) return null;
  try {
    const u = new URL(url);
    const port = u.port !== '' ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    return { service, url, host: hostOf(url), port };
  } catch {
    return null;
  }
}

/**
 * A host's units (`services` → {units: [{name, state, pid}]}) and sockets (`ports` →
 * {listening, established}; `process` names the unit that owns the socket). A unit that
 * listens on a port is a service on the host; a running unit that listens on none is a
 * candidate; each outgoing connection of a unit is an observation, joined to whoever
 * listens at the peer's address and port when the estate is read.
 */
export function findingsFromSsh(
  connector: string,
  host: string,
  servicesAnswer: unknown,
  portsAnswer: unknown,
): Findings {
  const units = new Map<string, string>();
  for (const raw of listOf(servicesAnswer, 'units', 'services')) {
    const u = record(raw);
    const name = text(u['name']).replace(/\.service$/, '');
    if (name !== '' && !PLUMBING.test(name)) units.set(name, text(u['state']));
  }
  const unitOf = (process: unknown): string | null => {
    const p = text(process).replace(/\.service$/, '');
    return p !== '' && units.has(p) ? p : null;
  };
  const listening = new Map<string, Map<number, Set<string>>>();
  const listen: ListenObservation[] = [];
  for (const raw of listOf(portsAnswer, 'listening', 'ports')) {
    const l = record(raw);
    const unit = unitOf(l['process']);
    const port = portOf(l['port']);
    if (unit === null || port === null) continue;
    const address = bare(text(l['address']));
    const ports = listening.get(unit) ?? new Map<number, Set<string>>();
    const addresses = ports.get(port) ?? new Set<string>();
    if (addresses.has(address)) continue;
    addresses.add(address);
    ports.set(port, addresses);
    listening.set(unit, ports);
    listen.push({ service: unit, host, address, port });
  }
  const connect: ConnectObservation[] = [];
  const seen = new Set<string>();
  for (const raw of listOf(portsAnswer, 'established', 'ports')) {
    const c = record(raw);
    const unit = unitOf(c['process']);
    const localPort = portOf(c['local_port']);
    const peerPort = portOf(c['peer_port']);
    const peer = bare(text(c['peer_address']));
    if (unit === null || peerPort === null || peer === '') continue;
    // The server side of a connection (its local port is one the unit listens on) says
    // who calls the unit, not what the unit depends on: the caller's host reports that.
    if (localPort !== null && listening.get(unit)?.has(localPort) === true) continue;
    const key = `${unit}\u0000${peer}\u0000${String(peerPort)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    connect.push({ from: unit, host, peer_address: peer, peer_port: peerPort });
  }
  const services: FoundService[] = [];
  const candidates: Candidate[] = [];
  for (const [name, state] of [...units].sort(([a], [b]) => a.localeCompare(b))) {
    const ports = listening.get(name);
    if (ports !== undefined) {
      const list = [...ports.keys()].sort((a, b) => a - b).join(', ');
      services.push({
        name,
        kind: guessKind(name),
        hosts: host === '' ? [] : [host],
        origin: { connector, how: `ssh unit ${name} listening on ${list}` },
      });
    } else if (state === 'running') {
      candidates.push({ name, host, how: `ssh unit ${name} running, listening on no port` });
    }
  }
  return { services, links: [], observations: { listen, connect, probes: [], candidates } };
}

/** An HTTP probe connector: the probed service (its `service` setting, else the connector's name). */
export function findingsFromHttp(
  connector: string,
  settings: Readonly<Record<string, unknown>>,
): Findings {
  const url = text(settings['url']);
  if (url === '') throw new Error('the connector has no url setting');
  const service = text(settings['service']) || connector;
  const host = hostOf(url);
  const probe = probeOf(service, url);
  return {
    services: [
      {
        name: service,
        kind: null,
        hosts: host === '' ? [] : [host],
        origin: { connector, how: `http probe ${url}` },
      },
    ],
    links: [],
    observations: { ...NO_OBSERVATIONS, probes: probe === null ? [] : [probe] },
  };
}

/**
 * The generic `discover` operation (postgresql and any kind that offers it):
 * {services: [{name, kind?, hosts?, how?}], links?: [{from, to, how?}]}.
 */
export function findingsFromDiscover(connector: string, kind: string, answer: unknown): Findings {
  const services: FoundService[] = [];
  for (const raw of listOf(answer, 'services', 'discover')) {
    const s = record(raw);
    const name = text(s['name']);
    if (name === '') continue;
    const hosts = Array.isArray(s['hosts'])
      ? (s['hosts'] as unknown[]).map(text).filter((h) => h !== '')
      : [];
    services.push({
      name,
      kind: text(s['kind']) || null,
      hosts: [...new Set(hosts)].sort(),
      origin: { connector, how: text(s['how']) || `${kind} discover` },
    });
  }
  const rawLinks = record(answer)['links'];
  const links: FoundLink[] = [];
  for (const raw of Array.isArray(rawLinks) ? (rawLinks as unknown[]) : []) {
    const l = record(raw);
    const from = text(l['from']);
    const to = text(l['to']);
    if (from === '' || to === '' || from === to) continue;
    links.push({ from, to, origin: { connector, how: text(l['how']) || `${kind} discover` } });
  }
  return { services, links, observations: NO_OBSERVATIONS };
}

/** The parts of a kind's catalogue entry discovery looks at. */
export interface KindInfo {
  readonly kind: string;
  readonly capabilities: readonly string[];
  readonly operations: readonly string[];
}

/** How discovery reads a connector of this kind, or null when the kind cannot tell it anything. */
export type ReaderName = 'prometheus' | 'ssh' | 'http' | 'discover';
export function readerOf(kind: string, info?: KindInfo): ReaderName | null {
  if (kind === 'prometheus') return 'prometheus';
  if (kind === 'ssh') return 'ssh';
  if (kind === 'http') return 'http';
  if (kind === 'postgresql') return 'discover';
  if (info?.capabilities.includes('discover') === true && info.operations.includes('discover'))
    return 'discover';
  return null;
}

// What discovery saw beside services and links (listening ports, outgoing connections,
// probed URLs, candidate units), and the links made from it when the estate is read: each
// connector's observations are stored apart, so a connection seen on one host is joined to
// the service another host's connector found listening at the peer's address and port.
import type { EstateLink } from './estate.schemas.js';

/** A unit or service listening on a TCP port of a host. */
export interface ListenObservation {
  readonly service: string;
  /** The connector's host (ssh `host` setting). */
  readonly host: string;
  /** The literal listening address (`0.0.0.0`, `::`, `*` mean every address). */
  readonly address: string;
  readonly port: number;
}
/** An established outgoing connection of a unit. */
export interface ConnectObservation {
  readonly from: string;
  readonly host: string;
  readonly peer_address: string;
  readonly peer_port: number;
}
/** A service checked by a probe at a URL (the host and port the URL reaches). */
export interface ProbeObservation {
  readonly service: string;
  readonly url: string;
  readonly host: string;
  readonly port: number;
}
/** A running unit with no listening port: not a service unless an override makes it one. */
export interface Candidate {
  readonly name: string;
  readonly host: string;
  readonly how: string;
}
export interface Observations {
  readonly listen: ListenObservation[];
  readonly connect: ConnectObservation[];
  readonly probes: ProbeObservation[];
  readonly candidates: Candidate[];
}
export interface Observations {
  readonly listen: ListenObservation[];
  readonly connect: ConnectObservation[];
  readonly probes: ProbeObservation[];
  readonly candidates: Candidate[];
}

/** One connector's stored observations. */
export interface ObservationRow {
  readonly connector: string;
  readonly observations: Observations;
}

export const NO_OBSERVATIONS: Observations = {
  listen: [],
  connect: [],
  probes: [],
  candidates: [],
};

const EVERY_ADDRESS = new Set(['0.0.0.0', '::', '*', '']);
/** A listening address that means every address of the host. */
export const isWildcard = (address: string): boolean => EVERY_ADDRESS.has(address);

const endpoint = (address: string, port: number): string =>
  `${address.includes(':') ? `[${address}]` : address}:${String(port)}`;

/**
 * Who listens where, across every connector: `address:port` → services. A unit listening on
 * every address is reached at its host's address; one bound to an address only there.
 * Addresses are compared literally (127.0.0.1 on one host is not the same as on another,
 * but the lab's hosts are loopback addresses, which this keeps apart).
 */
export function listeners(rows: readonly ObservationRow[]): Map<string, Set<string>> {
  const byEndpoint = new Map<string, Set<string>>();
  const add = (address: string, port: number, service: string) => {
    if (address === '') return;
    const key = endpoint(address, port);
    const owners = byEndpoint.get(key) ?? new Set<string>();
    owners.add(service);
    byEndpoint.set(key, owners);
  };
  for (const row of rows) {
    for (const l of row.observations.listen) {
      if (isWildcard(l.address)) add(l.host, l.port, l.service);
      else add(l.address, l.port, l.service);
    }
  }
  return byEndpoint;
}

/**
 * Links from observed connections: a unit's connection to `peer:port` where another
 * service listens is a link from the unit to it, made by the connector that saw the
 * connection. Only units that are services (or that an override makes one) get links.
 */
export function observedLinks(
  rows: readonly ObservationRow[],
  isService: (name: string) => boolean,
): EstateLink[] {
  const byEndpoint = listeners(rows);
  const links: EstateLink[] = [];
  for (const row of rows) {
    for (const c of row.observations.connect) {
      if (!isService(c.from)) continue;
      const peer = endpoint(c.peer_address, c.peer_port);
      for (const to of byEndpoint.get(peer) ?? []) {
        if (to === c.from || !isService(to)) continue;
        links.push({
          from: c.from,
          to,
          origin: { connector: row.connector, how: `observed tcp connection ${c.from} → ${peer}` },
        });
      }
    }
  }
  return links;
}

/** Candidates that are not services (nor ignored), once per name, host and connector. */
export function candidatesOf(
  rows: readonly ObservationRow[],
  isOut: (name: string) => boolean,
): (Candidate & { connector: string })[] {
  const out = new Map<string, Candidate & { connector: string }>();
  for (const row of rows) {
    for (const c of row.observations.candidates) {
      if (isOut(c.name)) continue;
      out.set(`${c.name}\u0000${c.host}\u0000${row.connector}`, { ...c, connector: row.connector });
    }
  }
  return [...out.values()].sort(
    (a, b) =>
      a.name.localeCompare(b.name) ||
      a.host.localeCompare(b.host) ||
      a.connector.localeCompare(b.connector),
  );
}

/** A stored observations document, every list present (a missing or odd one is empty). */
export function observationsOf(document: unknown): Observations {
  const d = (typeof document === 'object' && document !== null ? document : {}) as Record<
    string,
    unknown
  >;
  const list = <T>(key: string): T[] => (Array.isArray(d[key]) ? (d[key] as T[]) : []);
  return {
    listen: list('listen'),
    connect: list('connect'),
    probes: list('probes'),
    candidates: list('candidates'),
  };
}

/** Whether any list holds something. */
export const anyObservations = (o: Observations): boolean =>
  o.listen.length + o.connect.length + o.probes.length + o.candidates.length > 0;

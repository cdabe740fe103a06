// Forwards security and licence events from the ledger to syslog (SVC_SYSLOG,
// SVC_SYSLOG_EVENTS, SVC_SYSLOG_FACILITY), seal checkpoints included: a copy held outside
// the service, against which a truncated or restored ledger shows.
//
// The ledger calls forward() for every committed event; the forwarder picks the selected
// ones, formats them as RFC 5424 (format.ts) and hands them to one transport
// (transports.ts):
//   off            nothing
//   stdout         one line per message
//   auto           /dev/log when it exists, else stdout
//   /path          a unix socket: a stream socket takes octet-counted frames; a datagram
//                  socket (the usual /dev/log) goes through `logger`, since Node cannot
//                  write unix datagrams
//   udp://h[:514]  one datagram per message, at most 2,048 bytes
//   tcp://h[:514]  RFC 6587 octet counting; tls://h[:6514] the same over TLS (RFC 5425)
// forward() never throws and never waits: a collector that is down costs a bounded queue
// and one warning per 30 seconds.

import { existsSync } from 'node:fs';
import net from 'node:net';
import { facilityCode, formatMessage, MAX_MESSAGE_BYTES, MAX_UDP_BYTES } from './format.js';
import { isSelected } from './select.js';
import {
  rateLimited,
  stdoutTransport,
  streamTransport,
  tcpTarget,
  tlsTarget,
  udpTransport,
  unixTarget,
  type Transport,
} from './transports.js';

export { SECURITY_PREFIXES, isSelected } from './select.js';

export interface SyslogEvent {
  seq: number;
  ts: string;
  type: string;
  actor: string;
  data: Readonly<Record<string, unknown>>;
  reason: string | null;
  trace_id: string | null;
}

export interface SyslogForwarder {
  forward(event: SyslogEvent): void;
  close(): Promise<void>;
  readonly destination: string;
  stats(): { sent: number; dropped: number; queued: number };
}

export interface SyslogSettings {
  destination: string;
  events: readonly string[];
  facility: string;
}

export interface SyslogDeps {
  instance: string;
  /** APP-NAME of the messages; 'svc' by default. */
  appName?: string;
  log: { warn(obj: object, msg: string): void };
  stdout?: NodeJS.WritableStream;
  /** CA certificate(s) for tls:// instead of the system CAs. */
  ca?: string | Buffer;
}

export const CLOSE_DEADLINE_MS = 2000;
const DEV_LOG = '/dev/log';

/** Where SVC_SYSLOG points, resolved (`auto` decided, default ports filled in). */
export type Destination =
  | { readonly kind: 'off' }
  | { readonly kind: 'stdout' }
  | { readonly kind: 'unix'; readonly path: string }
  | { readonly kind: 'udp' | 'tcp' | 'tls'; readonly host: string; readonly port: number };

const DEFAULT_PORTS = { udp: 514, tcp: 514, tls: 6514 } as const;

/** Parses what config.ts accepts for SVC_SYSLOG; throws on anything else. */
export function parseDestination(
  raw: string,
  devLogExists = () => existsSync(DEV_LOG),
): Destination {
  const v = raw.trim();
  if (v === 'off' || v === 'stdout') return { kind: v };
  if (v === 'auto') return devLogExists() ? { kind: 'unix', path: DEV_LOG } : { kind: 'stdout' };
  if (v.startsWith('/')) return { kind: 'unix', path: v };
  let url: URL | null = null;
  try {
    url = new URL(v);
  } catch {
    // reported below
  }
  const kind = url?.protocol.slice(0, -1);
  if (url === null || (kind !== 'udp' && kind !== 'tcp' && kind !== 'tls') || url.hostname === '') {
    throw new Error(
      'SVC_SYSLOG: accepts auto, off, stdout, a socket path, udp://, tcp:// or tls://host[:port]',
    );
  }
  const port = url.port === '' ? DEFAULT_PORTS[kind] : Number(url.port);
  if (port === 0) throw new Error('SVC_SYSLOG: the port must be from 1 to 65535');
  return { kind, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** How a destination shows in `destination` and in warnings: never with credentials. */
export function describeDestination(d: Destination): string {
  switch (d.kind) {
    case 'off':
    case 'stdout':
      return d.kind;
    case 'unix':
      return d.path;
    default:
      return `${d.kind}://${net.isIPv6(d.host) ? `[${d.host}]` : d.host}:${d.port}`;
  }
}

export function createSyslogForwarder(settings: SyslogSettings, deps: SyslogDeps): SyslogForwarder {
  const facility = facilityCode(settings.facility);
  const target = parseDestination(settings.destination);
  const destination = describeDestination(target);
  const appName = deps.appName ?? 'svc';
  const warn = rateLimited((obj, msg) => deps.log.warn(obj, msg));
  const transport = openTransport(target, destination, appName, deps, warn);
  const maxBytes = target.kind === 'udp' ? MAX_UDP_BYTES : MAX_MESSAGE_BYTES;
  const format = {
    facility,
    hostname: deps.instance,
    appName,
    procId: String(process.pid),
    maxBytes,
  };
  let unformatted = 0; // events that could not be formatted
  let closing: Promise<void> | null = null;

  return {
    destination,
    forward(event) {
      if (transport === null) return;
      try {
        if (!isSelected(event.type, settings.events)) return;
        transport.send(formatMessage(event, format));
      } catch (err) {
        unformatted++;
        // The error's name only: its message could quote the event.
        warn(
          { destination, error: err instanceof Error ? err.name : typeof err },
          'syslog: could not format an event',
        );
      }
    },
    close() {
      closing ??= transport?.close(CLOSE_DEADLINE_MS) ?? Promise.resolve();
      return closing;
    },
    stats() {
      const s = transport?.stats() ?? { sent: 0, dropped: 0, queued: 0 };
      return { sent: s.sent, dropped: s.dropped + unformatted, queued: s.queued };
    },
  };
}

function openTransport(
  target: Destination,
  label: string,
  appName: string,
  deps: SyslogDeps,
  warn: (obj: object, msg: string) => void,
): Transport | null {
  switch (target.kind) {
    case 'off':
      return null;
    case 'stdout':
      return stdoutTransport(deps.stdout ?? process.stdout, warn);
    case 'unix':
      return streamTransport(unixTarget(target.path, appName), warn);
    case 'udp':
      return udpTransport(target.host, target.port, label, warn);
    case 'tcp':
      return streamTransport(tcpTarget(target.host, target.port), warn);
    case 'tls':
      return streamTransport(tlsTarget(target.host, target.port, deps.ca), warn);
  }
}

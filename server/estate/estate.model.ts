// Pure estate logic: targets → findings, findings + overrides → the estate, labels → service.
import { candidatesOf, observedLinks, type ObservationRow } from './estate.observed.js';
import type { EstateLink, EstateService, Origin, Overrides } from './estate.schemas.js';
import type { FoundLink, FoundService, LinkRow, ServiceRow } from './estate.store.js';

/** The part of a Prometheus target that discovery reads (prometheus.parse.ts `Target`). */
export interface TargetLike {
  readonly job: string;
  readonly instance: string;
  readonly labels: Readonly<Record<string, string>>;
}

export const NO_OVERRIDES: Overrides = { services: {}, links: [], ignore: [] };
const OVERRIDE: Origin = { connector: null, how: 'override' };

/** The host part of an instance: `10.0.0.1:9100` → `10.0.0.1`, `[::1]:80` → `::1`, a URL's host. */
export function hostOf(instance: string): string {
  const s = instance.trim();
  if (s === '') return '';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    try {
      return new URL(s).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return s;
    }
  }
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed?.[1] !== undefined) return bracketed[1];
  const colons = s.split(':').length - 1;
  if (colons === 1) return s.slice(0, s.indexOf(':'));
  return s; // a bare name, or an IPv6 address without brackets
}

/**
 * What one Prometheus connector's targets say: each target's `service` label (else its job)
 * is a service with the instance's host; a `depends_on` label (comma-separated names) gives
 * links. Nothing else is inferred.
 */
export function findingsFromTargets(
  connector: string,
  targets: readonly TargetLike[],
): { services: FoundService[]; links: FoundLink[] } {
  const services = new Map<string, { kind: string | null; hosts: Set<string>; how: string }>();
  const links = new Map<string, FoundLink>();
  for (const t of targets) {
    const name = (t.labels['service'] ?? '').trim() || t.job.trim();
    if (name === '') continue;
    const s = services.get(name) ?? {
      kind: null,
      hosts: new Set<string>(),
      how: `prometheus target job=${t.job}`,
    };
    const host = hostOf(t.instance || (t.labels['instance'] ?? ''));
    if (host !== '') s.hosts.add(host);
    services.set(name, s);
    for (const to of (t.labels['depends_on'] ?? '').split(',')) {
      const target = to.trim();
      if (target === '' || target === name) continue;
      links.set(`${name}\u0000${target}`, {
        from: name,
        to: target,
        origin: { connector, how: 'label depends_on' },
      });
    }
  }
  return {
    services: [...services].map(([name, s]) => ({
      name,
      kind: s.kind,
      hosts: [...s.hosts].sort(),
      origin: { connector, how: s.how },
    })),
    links: [...links.values()],
  };
}

export interface Estate {
  readonly services: EstateService[];
  readonly links: EstateLink[];
  readonly problems: { what: string; detail: string }[];
  readonly unlinked: string[];
  readonly candidates: { name: string; host: string; connector: string; how: string }[];
}

/** What the estate is built from beside services and links: observations and confirmed suggestions. */
export interface BuildExtra {
  readonly observations?: readonly ObservationRow[];
  readonly confirmed?: readonly { from: string; to: string; evidence: string }[];
}

/**
 * Every connector's findings merged, with the overrides applied (ignore, kinds, hand-made
 * services, placed links), confirmed suggestions as links, and the links observed
 * connections make across connectors.
 */
export function buildEstate(
  serviceRows: readonly ServiceRow[],
  linkRows: readonly LinkRow[],
  overrides: Overrides,
  extra: BuildExtra = {},
): Estate {
  const observations = extra.observations ?? [];
  const ignored = new Set(overrides.ignore);
  const byName = new Map<string, { kind: string | null; hosts: Set<string>; origins: Origin[] }>();
  const originKey = (o: Origin) => `${o.connector ?? ''}\u0000${o.how}`;
  const add = (name: string, kind: string | null, hosts: readonly string[], origins: Origin[]) => {
    if (ignored.has(name)) return;
    const s = byName.get(name) ?? { kind: null, hosts: new Set<string>(), origins: [] };
    s.kind ??= kind;
    for (const h of hosts) s.hosts.add(h);
    for (const o of origins)
      if (!s.origins.some((p) => originKey(p) === originKey(o))) s.origins.push(o);
    byName.set(name, s);
  };
  for (const r of serviceRows) add(r.name, r.kind, r.hosts, r.origins);
  // A candidate an override names is promoted: its hosts and how it was seen come along.
  const candidates = candidatesOf(observations, () => false);
  for (const [name, o] of Object.entries(overrides.services)) {
    const known = byName.get(name);
    if (known === undefined) {
      const seen = candidates.filter((c) => c.name === name);
      add(
        name,
        o.kind ?? null,
        seen.map((c) => c.host).filter((h) => h !== ''),
        [...seen.map((c) => ({ connector: c.connector, how: c.how })), OVERRIDE],
      );
    } else if (o.kind !== undefined) known.kind = o.kind;
  }
  const links = new Map<string, EstateLink>();
  const placeLink = (from: string, to: string, origin: Origin) => {
    if (ignored.has(from) || ignored.has(to)) return;
    const key = `${from}\u0000${to}\u0000${originKey(origin)}`;
    if (!links.has(key)) links.set(key, { from, to, origin });
  };
  for (const l of linkRows) placeLink(l.from, l.to, l.origin);
  for (const l of overrides.links) placeLink(l.from, l.to, OVERRIDE);
  for (const c of extra.confirmed ?? [])
    placeLink(c.from, c.to, { connector: null, how: `confirmed suggestion: ${c.evidence}` });
  for (const l of observedLinks(observations, (n) => byName.has(n)))
    placeLink(l.from, l.to, l.origin);

  const problems: { what: string; detail: string }[] = [];
  for (const l of links.values()) {
    for (const end of [l.from, l.to]) {
      if (!byName.has(end)) {
        problems.push({
          what: 'link_unknown_service',
          detail: `link ${l.from} → ${l.to} (${l.origin.how}) names ${end}, which no connector found and no override makes`,
        });
      }
    }
  }
  const linked = new Set([...links.values()].flatMap((l) => [l.from, l.to]));
  const names = [...byName.keys()].sort();
  return {
    services: names.map((name) => {
      const s = byName.get(name);
      return {
        name,
        kind: s?.kind ?? null,
        hosts: [...(s?.hosts ?? [])].sort(),
        origins: s?.origins ?? [],
      };
    }),
    links: [...links.values()].sort(
      (a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
    ),
    problems,
    unlinked: names.filter((n) => !linked.has(n)),
    candidates: candidatesOf(observations, (n) => byName.has(n) || ignored.has(n)).map((c) => ({
      name: c.name,
      host: c.host,
      connector: c.connector,
      how: c.how,
    })),
  };
}

/** The label keys whose values may name a service, in the order they are tried. */
export const SERVICE_LABELS = ['service', 'job', 'app', 'namespace', 'host'] as const;
/** The label keys whose values may name a host, in the order they are tried. */
export const HOST_LABELS = ['host', 'instance'] as const;

export interface Resolution {
  readonly service: string;
  /** How: `alias <key>`, `label <key>` or `host <key>`. */
  readonly by: string;
}

/**
 * Which service an alert's labels mean, or null when they name none (or more than one host
 * owner). Aliases from the overrides come first, then service/job/app/namespace/host values
 * equal to a known service name, then host/instance values whose host part belongs to
 * exactly one service.
 */
export function resolveService(
  labels: Readonly<Record<string, string>>,
  estate: { readonly services: readonly Pick<EstateService, 'name' | 'hosts'>[] },
  overrides: Overrides = NO_OVERRIDES,
): Resolution | null {
  return createResolver(estate, overrides)(labels);
}

/**
 * resolveService with its look-ups built once: intake asks for every alert, so aliases,
 * names and host owners are maps, and an alert costs a few map reads whatever the estate's size.
 */
export function createResolver(
  estate: { readonly services: readonly Pick<EstateService, 'name' | 'hosts'>[] },
  overrides: Overrides = NO_OVERRIDES,
): (labels: Readonly<Record<string, string>>) => Resolution | null {
  const ignored = new Set(overrides.ignore);
  // An alias belongs to the first service (by name) that lists it.
  const aliasOwner = new Map<string, string>();
  for (const [name, o] of Object.entries(overrides.services).sort(([x], [y]) =>
    x.localeCompare(y),
  )) {
    if (ignored.has(name)) continue;
    for (const alias of o.aliases) if (!aliasOwner.has(alias)) aliasOwner.set(alias, name);
  }
  const known = estate.services.filter((s) => !ignored.has(s.name));
  const names = new Set([...known.map((s) => s.name), ...Object.keys(overrides.services)]);
  for (const n of ignored) names.delete(n);
  const hostOwners = new Map<string, Set<string>>();
  for (const svc of known) {
    for (const h of svc.hosts) {
      const owners = hostOwners.get(h) ?? new Set<string>();
      owners.add(svc.name);
      hostOwners.set(h, owners);
    }
  }
  const serviceLabels = SERVICE_LABELS as readonly string[];

  return (labels) => {
    if (aliasOwner.size > 0) {
      const keys = [
        ...SERVICE_LABELS,
        ...Object.keys(labels)
          .filter((k) => !serviceLabels.includes(k))
          .sort(),
      ];
      for (const key of keys) {
        const value = labels[key];
        if (value === undefined || value === '') continue;
        const owner = aliasOwner.get(value);
        if (owner !== undefined) return { service: owner, by: `alias ${key}` };
      }
    }
    for (const key of SERVICE_LABELS) {
      const value = labels[key];
      if (value !== undefined && names.has(value)) return { service: value, by: `label ${key}` };
    }
    for (const key of HOST_LABELS) {
      const value = labels[key];
      if (value === undefined || value === '') continue;
      const owners = new Set([
        ...(hostOwners.get(hostOf(value)) ?? []),
        ...(hostOwners.get(value) ?? []),
      ]);
      if (owners.size === 1) return { service: [...owners][0] ?? '', by: `host ${key}` };
    }
    return null;
  };
}

/** A stored overrides document with every section present. */
export function overridesOf(document: Readonly<Record<string, unknown>> | null): Overrides {
  if (document === null) return NO_OVERRIDES;
  const d = document as Partial<Overrides>;
  return { services: d.services ?? {}, links: d.links ?? [], ignore: d.ignore ?? [] };
}

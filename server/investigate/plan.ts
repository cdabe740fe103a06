// Which checks run for an episode, for which service and through which connector.
//   - Every check of a matching pack runs against the episode's service.
//   - A `scope: dependency` check (of any pack) also runs against each service the episode's
//     service depends on: estate links one hop, and two (nginx → app → postgresql), so a
//     cause proven there can be `linked`.
//   - ssh, postgresql and http checks go to the connectors that reach that service: one that
//     is an origin of the service in the estate, an http or postgresql connector whose
//     `service` setting names it, an ssh connector whose `host` setting is one of its hosts.
//     prometheus and git checks go to every connector of their kind.
//   - A check no connector reaches is still planned, with the problem that becomes its
//     unreadable finding: "no <kind> connector reaches <service>".
import type { Pack, PackCheck } from '../packs/index.js';

export interface EstateServiceLike {
  readonly name: string;
  readonly kind?: string | null;
  readonly hosts: readonly string[];
  readonly origins: readonly { readonly connector: string | null; readonly how: string }[];
}

export interface EstateLike {
  readonly services: readonly EstateServiceLike[];
  /** `from` depends on `to` */
  readonly links: readonly { readonly from: string; readonly to: string }[];
}

export interface ConnectorLike {
  readonly name: string;
  readonly kind: string;
  /** as the connectors list shows them (secrets only as references) */
  readonly settings?: Readonly<Record<string, unknown>>;
}

export interface PlannedCheck {
  readonly pack: string;
  readonly check: PackCheck;
  /** the service it is read for: the episode's, or one it depends on */
  readonly service: string;
  readonly connector: string | null;
  /** why it cannot run; null when it can */
  readonly problem: string | null;
}

const EVERY_CONNECTOR: readonly string[] = ['prometheus', 'git'];

/**
 * The services `service` depends on, nearest first (then by name), up to `hops` links away;
 * never the service itself.
 */
export function dependenciesOf(service: string, links: EstateLike['links'], hops = 2): string[] {
  const seen = new Set<string>([service]);
  const out: string[] = [];
  let frontier = [service];
  for (let hop = 0; hop < hops && frontier.length > 0; hop++) {
    const next = [
      ...new Set(links.filter((l) => frontier.includes(l.from)).map((l) => l.to)),
    ].sort();
    frontier = next.filter((s) => !seen.has(s));
    for (const s of frontier) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
}

const settingText = (c: ConnectorLike, name: string): string | null => {
  const v = c.settings?.[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
};

/** The connectors of `kind` that reach `service`, in name order. */
export function connectorsReaching(
  kind: string,
  service: string,
  estate: EstateLike,
  connectors: readonly ConnectorLike[],
): string[] {
  const ofKind = connectors.filter((c) => c.kind === kind);
  if (EVERY_CONNECTOR.includes(kind)) return ofKind.map((c) => c.name).sort();
  const known = estate.services.find((s) => s.name === service);
  const origins = new Set((known?.origins ?? []).map((o) => o.connector));
  const hosts = new Set(known?.hosts ?? []);
  return ofKind
    .filter((c) => {
      if (origins.has(c.name)) return true;
      if ((kind === 'http' || kind === 'postgresql') && settingText(c, 'service') === service)
        return true;
      const host = settingText(c, 'host');
      return kind === 'ssh' && host !== null && hosts.has(host);
    })
    .map((c) => c.name)
    .sort();
}

export interface PlanInput {
  /** every loaded pack (dependency checks come from all of them) */
  readonly packs: readonly Pack[];
  /** ids of the packs that match the episode's signal */
  readonly matched: readonly string[];
  readonly service: string;
  readonly estate: EstateLike;
  readonly connectors: readonly ConnectorLike[];
  /** how many links away dependencies are looked for (default 2) */
  readonly hops?: number;
}

/** One entry per (check, service, connector), in pack and check order. */
export function planChecks(input: PlanInput): PlannedCheck[] {
  const deps = dependenciesOf(input.service, input.estate.links, input.hops ?? 2);
  const out: PlannedCheck[] = [];
  for (const pack of input.packs) {
    const matched = input.matched.includes(pack.id);
    for (const check of pack.checks) {
      const targets = [
        ...(matched ? [input.service] : []),
        ...(check.scope === 'dependency' ? deps : []),
      ];
      for (const service of new Set(targets)) {
        const reach = connectorsReaching(check.connector, service, input.estate, input.connectors);
        if (reach.length === 0) {
          out.push({
            pack: pack.id,
            check,
            service,
            connector: null,
            problem: `no ${check.connector} connector reaches ${service}`,
          });
          continue;
        }
        for (const connector of reach)
          out.push({ pack: pack.id, check, service, connector, problem: null });
      }
    }
  }
  return out;
}

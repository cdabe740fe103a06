// What a study reads for a service, worked out without reading anything: the key readings
// (PromQL range queries), the causes the packs know (each with the checks it rests on), and
// how an unreadable check becomes an obstacle with a fix the operator can act on.
import { globMatches } from '../investigate/index.js';
import type { Pack } from '../packs/index.js';

export interface Reading {
  readonly reading: string;
  readonly query: string;
}

/** A service name inside a PromQL double-quoted string. */
const quoted = (s: string): string => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/**
 * The key readings of a service, by the `service` label discovery names services by (and
 * `job` for `up`, as targets without that label are named by their job). `rateS`: the rate
 * window, at least two scrapes long.
 */
export function readingsOf(service: string, rateS: number): Reading[] {
  const s = quoted(service);
  const sel = `service="${s}"`;
  const w = `${String(rateS)}s`;
  return [
    { reading: 'up', query: `avg(up{${sel}} or up{job="${s}"})` },
    { reading: 'cpu', query: `sum(rate(process_cpu_seconds_total{${sel}}[${w}]))` },
    { reading: 'memory', query: `sum(process_resident_memory_bytes{${sel}})` },
    { reading: 'open_fds', query: `sum(process_open_fds{${sel}})` },
    {
      reading: 'host_cpu_busy',
      query: `1 - avg(rate(node_cpu_seconds_total{${sel},mode="idle"}[${w}]))`,
    },
    { reading: 'host_memory_available', query: `sum(node_memory_MemAvailable_bytes{${sel}})` },
  ];
}

export interface CausePlan {
  readonly cause: string;
  /** the packs that name it (the same id in two packs is the same cause) */
  readonly packs: readonly string[];
  /** the checks its findings come from, sorted */
  readonly checks: readonly string[];
}

/** `<check id>.<rule id>` → the check id. */
const checkOf = (finding: string): string => finding.slice(0, finding.lastIndexOf('.'));

/**
 * Whether a pack may apply to the service: a match entry that names services must name this
 * one (or its kind); an entry that names none applies to any service once its alerts fire.
 */
function mayApply(pack: Pack, service: string, kind: string | null): boolean {
  return pack.matches.some(
    (m) =>
      m.services === undefined ||
      m.services.some((g) => globMatches(g, service) || (kind !== null && globMatches(g, kind))),
  );
}

/** The causes the packs know for a service, by id, with every check they rest on. */
export function causesOf(
  packs: readonly Pack[],
  service: string,
  kind: string | null,
): CausePlan[] {
  const byCause = new Map<string, { packs: Set<string>; checks: Set<string> }>();
  for (const pack of packs) {
    if (!mayApply(pack, service, kind)) continue;
    const known = new Set(pack.checks.map((c) => c.id));
    for (const cause of pack.causes) {
      const entry = byCause.get(cause.id) ?? { packs: new Set(), checks: new Set() };
      entry.packs.add(pack.id);
      for (const f of [
        ...cause.proves,
        ...cause.supports,
        ...cause.refutes,
        ...(cause.requires ?? []),
      ]) {
        const check = checkOf(f);
        // A finding of another pack's check is read through that pack; it still counts.
        if (
          check !== '' &&
          (known.has(check) || packs.some((p) => p.checks.some((c) => c.id === check)))
        )
          entry.checks.add(check);
      }
      byCause.set(cause.id, entry);
    }
  }
  return [...byCause]
    .map(([cause, e]) => ({ cause, packs: [...e.packs].sort(), checks: [...e.checks].sort() }))
    .sort((a, b) => a.cause.localeCompare(b.cause));
}

export interface ObstacleView {
  readonly what: string;
  readonly reason: string;
  readonly fix: string;
}

/**
 * A check not run for want of a value only an episode gives (the alert's name or labels) or
 * another check reads (`{config.changes.change_offset}`, whose own obstacle is shown): no
 * obstacle of its own, nothing to fix. The estate's host and dependencies are fixable.
 */
export const NEEDS_EPISODE = /^not run: no value for \{(?!host\}|dependencies\})/;

/**
 * An unreadable check's reason as an obstacle with its fix, or null when nothing the
 * operator can change would make it readable (it needs an alert's values).
 */
export function obstacleOf(
  check: string,
  why: string,
  service: string,
  hosts: readonly string[],
): ObstacleView | null {
  if (NEEDS_EPISODE.test(why)) return null;
  const what = `check ${check} for ${service}`;
  const reach = /^no (\w+) connector reaches (.+)$/.exec(why);
  if (reach !== null) {
    const kind = reach[1] ?? '';
    const where =
      kind === 'ssh'
        ? hosts.length > 0
          ? `an ssh connector whose host is ${hosts.join(' or ')}`
          : `an ssh connector, once discovery knows ${service}'s host`
        : kind === 'http' || kind === 'postgresql'
          ? `a ${kind} connector whose service setting is ${service}`
          : `a ${kind} connector`;
    return { what, reason: why, fix: `no ${kind} connector reaches ${service}: add ${where}` };
  }
  if (/\b(401|403)\b|permission|denied|not permitted|unauthori[sz]ed|forbidden/i.test(why))
    return {
      what,
      reason: why,
      fix: `permission refused: grant the connector's account read access to what ${check} reads`,
    };
  if (/no value for \{(host|dependencies)\}/.test(why))
    return {
      what,
      reason: why,
      fix: `the estate does not know ${service}'s ${why.includes('{host}') ? 'host' : 'dependencies'}: run discovery (POST /v1/discover) or place it in the estate overrides`,
    };
  return {
    what,
    reason: why,
    fix: 'the connector did not answer as expected: check it with GET /v1/doctor and its health',
  };
}

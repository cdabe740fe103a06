// Which packs apply to a signal. A pack matches when any one of its `matches` entries does;
// an entry matches when every field it has holds: `alerts` (any of the signal's alert names
// matches any glob), `labels` (every label present and matching its glob), `services` (the
// service's name or its estate kind matches any glob). An entry with no fields matches every
// signal; a pack with `matches: []` matches none (it is used only for its dependency checks).
import type { Pack, PackMatch } from '../packs/index.js';
import { wildcardMatch } from '../shared/wildcard.js';

/** `*` any run of characters, `?` one; case-sensitive; the whole name must match. */
export function globMatches(glob: string, name: string): boolean {
  return wildcardMatch(glob, name, { anyOne: true });
}

export interface Signal {
  /** the episode's alert names */
  readonly alerts: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly service: string;
  /** the service's kind in the estate (web, datastore, service), when known */
  readonly serviceKind?: string | null;
}

export function entryMatches(m: PackMatch, s: Signal): boolean {
  if (m.alerts !== undefined && !s.alerts.some((a) => m.alerts?.some((g) => globMatches(g, a))))
    return false;
  if (m.labels !== undefined) {
    for (const [key, glob] of Object.entries(m.labels)) {
      const v = s.labels[key];
      if (v === undefined || !globMatches(glob, v)) return false;
    }
  }
  if (m.services !== undefined) {
    const names = [s.service, ...(s.serviceKind ? [s.serviceKind] : [])];
    if (!names.some((n) => m.services?.some((g) => globMatches(g, n)))) return false;
  }
  return true;
}

export function packMatches(pack: Pack, s: Signal): boolean {
  return pack.matches.some((m) => entryMatches(m, s));
}

/** The packs that match, in the order given. */
export function matchPacks(packs: readonly Pack[], s: Signal): Pack[] {
  return packs.filter((p) => packMatches(p, s));
}

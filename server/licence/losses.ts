// What a replacement licence gives up against the one in force (licence.md §3.3): installing it
// needs `acknowledge: true`, as Elastic's licence API asks, so nobody loses a feature by accident.
import type { LicencePayload } from './document/licence-doc.js';

const RANK = { trial: 0, starter: 1, enterprise: 2, strategic: 3 } as const;
const lower = (a: number | null, b: number | null): boolean =>
  a === null ? b !== null : b !== null && b < a;

export function lossesOf(from: LicencePayload, to: LicencePayload): string[] {
  const out: string[] = [];
  if (RANK[to.tier] < RANK[from.tier]) out.push(`tier ${from.tier} → ${to.tier}`);
  if (lower(from.limits.services, to.limits.services)) {
    out.push(
      `services limit ${String(from.limits.services ?? 'unlimited')} → ${String(to.limits.services)}`,
    );
  }
  if (lower(from.limits.installs, to.limits.installs)) {
    out.push(
      `installs limit ${String(from.limits.installs ?? 'unlimited')} → ${String(to.limits.installs)}`,
    );
  }
  if (from.features.keychain && !to.features.keychain) out.push('the keychain');
  if (from.site !== null && to.site === null) out.push('the site licence');
  const packsLost =
    from.features.packs === '*'
      ? to.features.packs === '*'
        ? []
        : ['every pack not listed']
      : from.features.packs.filter(
          (p) => to.features.packs !== '*' && !to.features.packs.includes(p),
        );
  if (packsLost.length > 0) out.push(`packs ${packsLost.join(', ')}`);
  if (
    from.expires_at !== null &&
    to.expires_at !== null &&
    Date.parse(to.expires_at) < Date.parse(from.expires_at)
  ) {
    out.push(`expiry ${from.expires_at} → ${to.expires_at}`);
  } else if (from.expires_at === null && to.expires_at !== null) {
    out.push(`a perpetual licence → expiry ${to.expires_at}`);
  }
  return out;
}

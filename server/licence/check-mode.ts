// Which confirmation mode is in force (licence.md §3.6): SVC_LICENCE_CHECK, raised to the
// licence's `check.min_mode` when the licence asks for more (a vendor may require auto for
// trials); never lowered by it.
import type { LicencePayload } from './document/licence-doc.js';

export type CheckMode = 'offline' | 'auto' | 'strict';

const RANK: Record<CheckMode, number> = { offline: 0, auto: 1, strict: 2 };

/** strict: unconfirmed for more than this, the licence is not valid (setup) */
export const STRICT_UNCONFIRMED_MS = 72 * 3_600_000;

export function effectiveCheckMode(
  configured: CheckMode,
  licence: Pick<LicencePayload, 'check'> | null,
): CheckMode {
  const floor = licence?.check?.min_mode;
  return floor !== undefined && RANK[floor] > RANK[configured] ? floor : configured;
}

/** Since when the licence counts as unconfirmed: the last confirmation, else its install. */
export function unconfirmedSince(confirmedAt: string | null, installedAt: string): number {
  return Date.parse(confirmedAt ?? installedAt);
}

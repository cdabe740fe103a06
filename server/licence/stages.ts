// Where a licence stands at an effective time (licence.md §3.8): before its start, valid,
// expiring (inside its warning days), in grace (expired, everything still works), lapsed.
import type { LicencePayload } from './document/licence-doc.js';

export type LicenceStage = 'not_yet' | 'valid' | 'expiring' | 'in_grace' | 'lapsed';
const DAY_MS = 86_400_000;

export interface StageView {
  readonly stage: LicenceStage;
  /** whole days until expires_at (0 once past it); null for a perpetual licence */
  readonly days_left: number | null;
  readonly grace_ends_at: string | null;
  /** the warning threshold crossed (the smallest of warn_days at or above days_left), if any */
  readonly warn_threshold: number | null;
}

export function stageOf(
  licence: Pick<LicencePayload, 'not_before' | 'expires_at' | 'grace_days' | 'warn_days'>,
  tEff: number,
): StageView {
  if (licence.expires_at === null) {
    return {
      stage: tEff < Date.parse(licence.not_before) ? 'not_yet' : 'valid',
      days_left: null,
      grace_ends_at: null,
      warn_threshold: null,
    };
  }
  const expires = Date.parse(licence.expires_at);
  const graceEnd = expires + licence.grace_days * DAY_MS;
  const daysLeft = Math.max(0, Math.ceil((expires - tEff) / DAY_MS));
  const base = { days_left: daysLeft, grace_ends_at: new Date(graceEnd).toISOString() };
  if (tEff < Date.parse(licence.not_before))
    return { ...base, stage: 'not_yet', warn_threshold: null };
  if (tEff >= graceEnd) return { ...base, stage: 'lapsed', warn_threshold: null };
  if (tEff >= expires) return { ...base, stage: 'in_grace', warn_threshold: null };
  const crossed = licence.warn_days.filter((d) => expires - tEff <= d * DAY_MS);
  if (crossed.length === 0) return { ...base, stage: 'valid', warn_threshold: null };
  return { ...base, stage: 'expiring', warn_threshold: Math.min(...crossed) };
}

/** Whether the stage lets the service operate (everything works up to the end of grace). */
export const stageOperates = (s: LicenceStage): boolean =>
  s === 'valid' || s === 'expiring' || s === 'in_grace';

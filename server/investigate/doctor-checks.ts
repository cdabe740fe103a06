// Doctor's Diagnosis / accuracy: of the labelled diagnoses the service claimed (proven or
// linked), at least 90% right, and no cause demoted by its labels. (Core / Investigations is
// a core check: svc-core doctor reports it too.)
import type { CheckResult, DoctorCheck } from '../doctor/index.js';

/** Below this share of labelled claims right, doctor warns (the specification's limit). */
export const ACCURACY_FLOOR = 0.9;

export interface Accuracy {
  /** labelled diagnoses claimed at proven or linked, and those labelled right */
  readonly claims: number;
  readonly right: number;
  /** causes their labels keep from proven */
  readonly demoted: readonly string[];
}

export function accuracyCheck(accuracy: () => Accuracy): DoctorCheck {
  return {
    area: 'Diagnosis',
    name: 'accuracy',
    run(): CheckResult {
      const { right, claims, demoted } = accuracy();
      const demotedText =
        demoted.length === 0
          ? ''
          : `; demoted by their labels: ${demoted.slice(0, 5).join(', ')}${demoted.length > 5 ? ` and ${String(demoted.length - 5)} more` : ''}`;
      if (claims === 0)
        return {
          status: demoted.length === 0 ? 'ok' : 'warn',
          detail: `no proven or linked diagnosis labelled yet${demotedText}`,
          hint: 'record what the team did on closed episodes (the episode page, or POST /v1/episodes/<id>/team) to measure accuracy',
        };
      const share = right / claims;
      const detail = `${String(right)} of ${String(claims)} labelled diagnoses right (${(share * 100).toFixed(1)}%)${demotedText}`;
      if (share >= ACCURACY_FLOOR && demoted.length === 0)
        return { status: 'ok', detail, hint: '' };
      return {
        status: 'warn',
        detail,
        hint:
          share < ACCURACY_FLOOR
            ? 'below 90%: read the episodes labelled wrong (Learning page), and keep autonomy at shadow or L1 until it recovers'
            : 'a demoted cause is held at suspected until its labels recover: read its wrong labels on the Learning page',
      };
    },
  };
}

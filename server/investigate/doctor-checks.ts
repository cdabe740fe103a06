// Doctor's Diagnosis / accuracy: at least 90% of judged diagnoses right. (Core /
// Investigations is a core check: svc-core doctor reports it too.)
import type { CheckResult, DoctorCheck } from '../doctor/index.js';

/** Below this share of judged diagnoses right, doctor warns (the specification's limit). */
export const ACCURACY_FLOOR = 0.9;

export function accuracyCheck(judged: () => { agreed: number; judged: number }): DoctorCheck {
  return {
    area: 'Diagnosis',
    name: 'accuracy',
    run(): CheckResult {
      const { agreed, judged: n } = judged();
      if (n === 0)
        return {
          status: 'ok',
          detail: 'no diagnosis judged yet',
          hint: 'record what the team did on closed episodes (POST /v1/episodes/<id>/team) to measure accuracy',
        };
      const share = agreed / n;
      const detail = `${String(agreed)} of ${String(n)} judged diagnoses right (${(share * 100).toFixed(1)}%)`;
      return share >= ACCURACY_FLOOR
        ? { status: 'ok', detail, hint: '' }
        : {
            status: 'warn',
            detail,
            hint: 'below 90%: look at the episodes the team marked other, and keep autonomy at shadow or L1 until it recovers',
          };
    },
  };
}

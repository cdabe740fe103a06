// Doctor: Policy / fix mode, raising autonomy. Informational: the fix mode in force, the
// quorum a raise needs, and whether enough people can approve one now.
import type { CheckResult, DoctorCheck } from '../doctor/index.js';
import { DRAFTED_QUORUM, RAISE_QUORUM } from './autonomy.schemas.js';
import type { AutonomyService } from './autonomy.service.js';

export function autonomyPolicyCheck(
  autonomy: Pick<AutonomyService, 'fixMode' | 'approversFor' | 'levelOf'>,
): DoctorCheck {
  return {
    area: 'Policy',
    name: 'fix mode, raising autonomy',
    run(): CheckResult {
      const mode = autonomy.fixMode();
      const n = autonomy.approversFor(null);
      const modeText =
        mode === 'advise'
          ? 'fix mode advise: restore fixes are named as advice and handed over'
          : `fix mode draft: restore fixes are drafted as requests needing ${String(DRAFTED_QUORUM)} approvers`;
      const raise = `raising autonomy needs ${String(RAISE_QUORUM)} approvers with the admin role besides the requester (${String(n)} ${n === 1 ? 'person holds' : 'people hold'} admin or owner)`;
      return {
        status: 'ok',
        detail: `${modeText}; default autonomy ${autonomy.levelOf('*')}; ${raise}`,
        hint:
          n <= RAISE_QUORUM
            ? `with ${String(n)} admins, a raise asked by one of them cannot reach its quorum; add admins under People`
            : '',
      };
    },
  };
}

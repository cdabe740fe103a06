// Packs / signatures: every pack file loaded. A refused file is a failure, not a warning: the
// checks it holds silently do not run, so investigations would diagnose less than people think.
import type { CheckResult, DoctorCheck } from '../doctor/index.js';
import type { PacksService } from './packs.service.js';

export type PacksCheckDeps = Pick<PacksService, 'list' | 'refused' | 'dirs'>;

/** The reason of a pack the licence simply does not include (server/licence PACK_CLOSED). */
const NOT_IN_LICENCE = 'not in licence.features.packs';

export function packsCheck(packs: PacksCheckDeps): DoctorCheck {
  return {
    area: 'Packs',
    name: 'signatures',
    run(): CheckResult {
      const loaded = packs.list();
      const refused = packs.refused();
      const names = loaded.map((p) => `${p.id} v${String(p.version)}`).join(', ');
      if (refused.length > 0) {
        const n = refused.length;
        return {
          status: 'fail',
          detail: `${String(n)} pack ${n === 1 ? 'file' : 'files'} refused: ${refused.map((r) => `${r.file}: ${r.why}`).join('; ')}${loaded.length > 0 ? `; loaded ${names}` : ''}`,
          hint: 'replace each refused file with one signed by the packing tool (npm run packs), or remove it; then restart the service',
        };
      }
      if (loaded.length === 0) {
        const where = packs
          .dirs()
          .map((d) => `${d.dir}${d.found ? '' : ' (missing)'}`)
          .join(', ');
        return {
          status: 'warn',
          detail: `no check packs loaded (looked in ${where === '' ? 'no folder' : where}): investigations cannot run checks`,
          hint: 'put signed *.pack.json files in SVC_PACKS, or install a build that ships its built-in packs',
        };
      }
      return {
        status: 'ok',
        detail: `${String(loaded.length)} ${loaded.length === 1 ? 'pack' : 'packs'} loaded, signatures valid: ${names}`,
        hint: '',
      };
    },
  };
}

/**
 * Packs / licence: which loaded packs the licence does not open, and why. A pack the licence
 * leaves out on purpose is reported, not warned about; one closed because the licence lapsed
 * or is not in force warns (the Licence check says what to do about the licence).
 */
export function packsLicenceCheck(packs: Pick<PacksService, 'list' | 'closed'>): DoctorCheck {
  return {
    area: 'Packs',
    name: 'licence',
    run(): CheckResult {
      const loaded = packs.list().length;
      const closed = packs.closed();
      if (closed.length === 0) {
        return {
          status: 'ok',
          detail:
            loaded === 0
              ? 'no packs loaded'
              : `the licence opens every loaded pack (${String(loaded)})`,
          hint: '',
        };
      }
      const detail = `closed by the licence: ${closed.map((c) => `${c.id} v${String(c.version)} (${c.why})`).join('; ')}; ${String(loaded - closed.length)} of ${String(loaded)} open`;
      if (closed.every((c) => c.why === NOT_IN_LICENCE))
        return {
          status: 'ok',
          detail,
          hint: 'investigations do not run the checks of a closed pack; a licence whose features.packs names it opens it',
        };
      return {
        status: 'warn',
        detail,
        hint: 'investigations do not run the checks of a closed pack; see Licence / confirmation',
      };
    },
  };
}

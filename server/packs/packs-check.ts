// Packs / signatures: every pack file loaded. A refused file is a failure, not a warning: the
// checks it holds silently do not run, so investigations would diagnose less than people think.
import type { CheckResult, DoctorCheck } from '../doctor/index.js';
import type { PacksService } from './packs.service.js';

export type PacksCheckDeps = Pick<PacksService, 'list' | 'refused' | 'dirs'>;

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

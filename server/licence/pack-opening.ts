// Which check packs the licence opens (licence.md §3.3 `features.packs`, §3.12): a signed
// licence opens the packs it names ('*' for all); the offline trial opens every pack; with no
// licence, or one that has lapsed or is not in force, none is open (setup mode runs nothing
// anyway, so this only matters to what doctor and `svc-core packs list` say).
import type { LicenceService } from './licence.service.js';

export type PackOpening =
  { readonly opened: true } | { readonly opened: false; readonly why: string };

/** The reasons `svc-core packs list` and doctor give for a closed pack. */
export const PACK_CLOSED = {
  notInLicence: 'not in licence.features.packs',
  lapsed: 'licence lapsed',
  none: 'no licence',
} as const;

const OPEN: PackOpening = { opened: true };

/** Every pack closed: a data folder with no licence yet. */
export const noLicenceOpener = (): PackOpening => ({ opened: false, why: PACK_CLOSED.none });

/** Reads the licence in force at each call, so an installed or removed licence applies at once. */
export function packOpener(
  licence: Pick<LicenceService, 'view' | 'current'>,
): (packId: string) => PackOpening {
  return (packId) => {
    const v = licence.view();
    if (v === null) return { opened: false, why: PACK_CLOSED.none };
    if (!v.valid) {
      return {
        opened: false,
        why: v.stage === 'lapsed' ? PACK_CLOSED.lapsed : `licence not in force: ${v.why ?? '?'}`,
      };
    }
    if (v.kind === 'trial') return OPEN;
    const packs = licence.current()?.licence.features.packs;
    if (packs === '*' || packs?.includes(packId) === true) return OPEN;
    return { opened: false, why: PACK_CLOSED.notInLicence };
  };
}

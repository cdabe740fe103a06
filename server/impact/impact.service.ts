// Impact figures: the caller's own costs and times, so that the scorecard's minutes_saved
// is computed from them and never from figures the service made up.
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Actor } from '../shared/types.js';
import { NOT_SET, type ImpactFigures } from './impact.schemas.js';
import { IMPACT_SET, type ImpactStore } from './impact.store.js';
import type { ImpactEvents } from './impact.events.js';

interface Deps {
  readonly store: ImpactStore;
  readonly ledger: DomainLedger<ImpactEvents>;
  readonly writer: Writer;
}

export function createImpactService({ store, ledger, writer }: Deps) {
  function get() {
    const row = store.get();
    const figures = { ...NOT_SET, ...(row?.figures as Partial<ImpactFigures> | undefined) };
    const { currency: _currency, ...amounts } = figures;
    return {
      figures,
      set: Object.values(amounts).some((v) => v > 0),
      set_by: row?.set_by ?? null,
      set_at: row?.set_at ?? null,
    };
  }
  return {
    get,
    /** Whether any figure is set (GET /v1/status `impact_set`). */
    isSet: (): boolean => get().set,
    async put(figures: ImpactFigures, actor: Actor) {
      await writer.transact(() =>
        ledger.append({
          type: IMPACT_SET,
          actor: actor.name,
          data: { figures, ...(actor.via !== undefined && { via: actor.via }) },
        }),
      );
      return get();
    },
  };
}
export type ImpactService = ReturnType<typeof createImpactService>;

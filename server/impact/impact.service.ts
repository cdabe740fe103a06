// Impact figures: the caller's own costs and times, so that the scorecard's minutes_saved
// is computed from them and never from figures the service made up.
import { Value } from 'typebox/value';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { refuseIfCarried } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { ImpactFigures, NOT_SET } from './impact.schemas.js';
import { IMPACT_SET, type ImpactStore } from './impact.store.js';
import type { ImpactEvents } from './impact.events.js';

interface Deps {
  readonly store: ImpactStore;
  readonly ledger: DomainLedger<ImpactEvents>;
  readonly writer: Writer;
  /** Where the figures are changed when a keychain home carries them here ("numbers"), or null. */
  readonly carriedBy?: () => string | null;
}

export function createImpactService({ store, ledger, writer, carriedBy }: Deps) {
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
      refuseIfCarried(carriedBy?.() ?? null, 'numbers', 'the impact figures are');
      await writer.transact(() =>
        ledger.append({
          type: IMPACT_SET,
          actor: actor.name,
          data: { figures, ...(actor.via !== undefined && { via: actor.via }) },
        }),
      );
      return get();
    },
    /** The figures in force, as a keychain home carries them (the "numbers" part). */
    document: (): ImpactFigures => get().figures,
    /** Inside a writer job: record figures a keychain home carried here (checked as a PUT is). */
    applyCarried(input: unknown, actor: string): void {
      if (!Value.Check(ImpactFigures, input)) {
        const first = Value.Errors(ImpactFigures, input)[0];
        throw new Error(
          `the figures do not hold: ${first?.instancePath ?? ''} ${first?.message ?? ''}`,
        );
      }
      ledger.append({ type: IMPACT_SET, actor, data: { figures: input } });
    },
  };
}
export type ImpactService = ReturnType<typeof createImpactService>;

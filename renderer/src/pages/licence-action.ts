// One action of the Licence page (install, remove, ask, look, vouch, poll, download) on TanStack
// Query's useMutation: busy while it runs, the last error until the next run or a reset, and
// what the licence and status show asked again after each success. `then` runs with the
// answer before that, whether or not the form is still shown.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { keys } from '../queries.js';
import { licenceKeys } from './licence-queries.js';

export interface LicenceAction {
  readonly busy: boolean;
  readonly error: unknown;
  /** Forget the last error (a Cancel, a Keep). */
  readonly reset: () => void;
  readonly run: <T>(work: () => Promise<T>, then?: (answer: T) => void) => void;
}

export function useLicenceAction(): LicenceAction {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (job: () => Promise<void>) => job(),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: licenceKeys.all });
      await qc.invalidateQueries({ queryKey: keys.status });
    },
  });
  return {
    busy: m.isPending,
    error: m.error,
    reset: () => {
      m.reset();
    },
    run: (work, then) => {
      m.mutate(async () => {
        const answer = await work();
        then?.(answer);
      });
    },
  };
}

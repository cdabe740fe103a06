// One action of a page on TanStack Query's useMutation: busy while it runs, the last error
// until the next run or a reset, and the queries it names (its page's own, and the status)
// asked again after each success. `then` runs with the answer before that, whether or not the form is still
// shown. The Licence and Keychain pages run every form through it.
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';

export interface PageAction {
  readonly busy: boolean;
  readonly error: unknown;
  /** Forget the last error (a Cancel, a Keep). */
  readonly reset: () => void;
  readonly run: <T>(work: () => Promise<T>, then?: (answer: T) => void) => void;
}

export function usePageAction(...queryKeys: QueryKey[]): PageAction {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (job: () => Promise<void>) => job(),
    // Answers may hold what is shown once (site keys): nothing is kept once the form is gone.
    gcTime: 0,
    onSuccess: async () => {
      for (const queryKey of queryKeys) await qc.invalidateQueries({ queryKey });
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

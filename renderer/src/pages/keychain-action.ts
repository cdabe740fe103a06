// One action of the Keychain page on TanStack Query's useMutation: busy while it runs, the
// last error until the next run or a reset. An answer that is the keychain view replaces the
// cached one at once; the view is asked again after every success either way, with the status
// (a member's carried parts change what other pages may do).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { keys } from '../queries.js';
import { keychainKeys, type KeychainView } from './keychain-queries.js';

export interface KeychainAction {
  readonly busy: boolean;
  readonly error: unknown;
  /** Forget the last error (a Cancel). */
  readonly reset: () => void;
  readonly run: (work: () => Promise<KeychainView>, then?: (view: KeychainView) => void) => void;
}

export function useKeychainAction(): KeychainAction {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (job: () => Promise<KeychainView>) => job(),
    // Nothing here is secret, but nothing needs keeping once the form is gone either.
    gcTime: 0,
    onSuccess: async (view) => {
      qc.setQueryData(keychainKeys.all, view);
      await qc.invalidateQueries({ queryKey: keychainKeys.all });
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
      m.mutate(work, { onSuccess: (view) => then?.(view) });
    },
  };
}

// The Keychain page's forms run through the shared page action. An answer that is the
// keychain view replaces the cached one at once, before the view and the status are asked
// again (a member's carried parts change what other pages may do).
import { useQueryClient } from '@tanstack/react-query';
import { keychainKeys, type KeychainView } from './keychain-queries.js';
import { usePageAction } from './page-action.js';

export interface KeychainAction {
  readonly busy: boolean;
  readonly error: unknown;
  /** Forget the last error (a Cancel). */
  readonly reset: () => void;
  readonly run: (work: () => Promise<KeychainView>, then?: (view: KeychainView) => void) => void;
}

export function useKeychainAction(): KeychainAction {
  const qc = useQueryClient();
  const action = usePageAction(keychainKeys.all);
  return {
    ...action,
    run: (work, then) => {
      action.run(work, (view) => {
        qc.setQueryData(keychainKeys.all, view);
        then?.(view);
      });
    },
  };
}

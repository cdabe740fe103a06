// The Keychain page's forms run through the shared page action. An answer that is the
// keychain view replaces the cached one at once, before the view and the status are asked
// again (a member's carried parts change what other pages may do). A refusal asks for the
// view again too: a wrong pairing code refused ends the request, and the page shows it ended.
import { statusKeys } from '../status/index.js';
import { useQueryClient } from '@tanstack/react-query';
import { type KeychainView } from './api.js';
import { keychainKeys } from './queries.js';
import { usePageAction } from '../../shared/page-action.js';

export interface KeychainAction {
  readonly busy: boolean;
  readonly error: unknown;
  /** Forget the last error (a Cancel). */
  readonly reset: () => void;
  readonly run: (work: () => Promise<KeychainView>, then?: (view: KeychainView) => void) => void;
}

export function useKeychainAction(): KeychainAction {
  const qc = useQueryClient();
  const action = usePageAction(keychainKeys.all, statusKeys.status);
  return {
    ...action,
    run: (work, then) => {
      action.run(
        async () => {
          try {
            return await work();
          } catch (err) {
            void qc.invalidateQueries({ queryKey: keychainKeys.all });
            throw err;
          }
        },
        (view) => {
          qc.setQueryData(keychainKeys.all, view);
          then?.(view);
        },
      );
    },
  };
}

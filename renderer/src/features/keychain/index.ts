// The keychain feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Opened to set up sites and seal files, rarely otherwise: loaded on demand.
export const KeychainPage = lazy(() =>
  import('./keychain.js').then((m) => ({ default: m.KeychainPage })),
);
export { keychainKeys } from './queries.js';

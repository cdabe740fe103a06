// The estate feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// The estate graph (React Flow, dagre) loads only when its page is opened.
export const EstatePage = lazy(() =>
  import('./estate.js').then((m) => ({ default: m.EstatePage })),
);
export { estateKeys } from './queries.js';

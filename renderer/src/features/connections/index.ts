// The connections feature as other folders see it: they import from here, never its files.
export { ConnectionsPage } from './connections.js';

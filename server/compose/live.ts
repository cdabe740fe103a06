// The live stream's hub, fed by the ledger's commits; a commit of the access or people
// domains (sign-out, a person disabled, deleted or re-roled) makes every stream check its
// caller again at once.
import { accessEvents } from '../access/index.js';
import { createLiveHub, type LiveHubOptions } from '../episodes/index.js';
import { peopleEvents } from '../people/index.js';
import type { Runtime } from './runtime.js';

/** What tests may shorten: the heartbeat, the coalescing and the caps. */
export type LiveStreamOptions = Omit<LiveHubOptions, 'seq' | 'touchesAccess'>;

export function buildLiveHub(rt: Runtime, options: LiveStreamOptions = {}) {
  const access = new Set<string>([...Object.keys(accessEvents), ...Object.keys(peopleEvents)]);
  const hub = createLiveHub({
    ...options,
    seq: () => rt.ledger.headSeq(),
    touchesAccess: (type) => access.has(type),
  });
  rt.ledger.onCommit((event) => {
    hub.committed(event);
  });
  return hub;
}

// The wire shape of GET /v1/digest (the server's own type, server/digest/digest.wire.ts) and
// its call.
import type { Digest } from '../../../../server/digest/digest.wire.js';
import { call } from '../../shared/api.js';

export type { Digest };

export const digestApi = {
  /** The digest of `days` whole UTC days ending today (so far). */
  get: (days: number) => call<Digest>('GET', `/v1/digest?days=${String(days)}`),
};

// The impact figures (GET and PUT /v1/impact): calls; the wire shapes are the server's own
// (server/impact/impact.schemas.ts).
import type { ImpactBody, ImpactFigures } from '../../../../server/impact/impact.schemas.js';
import { call } from '../../shared/api.js';

export type { ImpactBody, ImpactFigures };

export const impactApi = {
  get: () => call<ImpactBody>('GET', '/v1/impact'),
  /** Replaces the whole set: every figure is sent, 0 = not counted. */
  put: (figures: ImpactFigures) => call<ImpactBody>('PUT', '/v1/impact', figures),
};

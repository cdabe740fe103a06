// The policy document (docs/policy.md): GET /v1/policy and PUT /v1/policy (the whole
// document; 400 names the field, 409 when the SVC_POLICY file manages it). The view is the
// server's own type (server/policy/policy.schemas.ts).
import type { PolicyView } from '../../../../server/policy/policy.schemas.js';
import { call } from '../../shared/api.js';

export type { PolicyView };

/** The document as the editor handles it: sections by name, each as typed JSON. */
export type PolicyDocument = Readonly<Record<string, unknown>>;

export const policyApi = {
  get: () => call<PolicyView>('GET', '/v1/policy'),
  /** What was typed, parsed but unchecked: the server checks it and names a bad field (400). */
  put: (policy: PolicyDocument) => call<PolicyView>('PUT', '/v1/policy', policy),
};

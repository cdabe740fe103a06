// The policy document (docs/policy.md): GET /v1/policy and PUT /v1/policy (the whole
// document; 400 names the field, 409 when the SVC_POLICY file manages it).
import { call } from '../../shared/api.js';

export interface PolicyView {
  policy: Record<string, unknown>;
  source: 'default' | 'api' | 'file';
  file: string | null;
  sha256: string;
  set_by: string | null;
  set_at: string | null;
}

export const policyKey = ['policy'] as const;

export const policyApi = {
  get: () => call<PolicyView>('GET', '/v1/policy'),
  put: (policy: Record<string, unknown>) => call<PolicyView>('PUT', '/v1/policy', policy),
};

// The ledger (GET /v1/ledger) and its verification (GET /v1/ledger/verify): wire shapes and calls.
import { type TimelineEvent } from '../episodes/index.js';
import { call } from '../../shared/api.js';

/** GET /v1/ledger/verify: the whole chain checked, and the first failure when there is one. */
export interface VerifyReport {
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string | null };
  segments: number;
  sealed_through: number;
  failure: { seq: number; check: string; segment: number | null; message: string } | null;
  duration_ms: number;
}

export interface LedgerPage {
  events: (TimelineEvent & { hash?: string })[];
  more: boolean;
  head: { seq: number; hash: string | null };
}

export const auditApi = {
  ledger: (query: string) =>
    call<LedgerPage>('GET', `/v1/ledger${query === '' ? '' : `?${query}`}`),
  verify: () => call<VerifyReport>('GET', '/v1/ledger/verify'),
};

// The ledger (GET /v1/ledger) and its verification (GET /v1/ledger/verify): wire shapes and calls.
import type { LedgerListBody, VerifyReportBody } from '../../../../server/ledger/ledger.schemas.js';
import { call } from '../../shared/api.js';

/** GET /v1/ledger/verify: the whole chain checked, and the first failure when there is one. */
export type VerifyReport = VerifyReportBody;

/** GET /v1/ledger: a page of events, newest first unless asked otherwise. */
export type LedgerPage = LedgerListBody;

export const auditApi = {
  ledger: (query: string) =>
    call<LedgerPage>('GET', `/v1/ledger${query === '' ? '' : `?${query}`}`),
  verify: () => call<VerifyReport>('GET', '/v1/ledger/verify'),
};

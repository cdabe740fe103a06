// The wire shapes of GET and POST /v1/lookback (the server's own types,
// server/lookback/lookback.schemas.ts) and their calls.
import type {
  HistoryConnection,
  LookbackBody,
  LookbackReport,
  LookbackView,
} from '../../../../server/lookback/lookback.schemas.js';
import { call } from '../../shared/api.js';

export type { HistoryConnection, LookbackReport, LookbackView };
export type ConnectionCount = LookbackReport['connections'][number];

export const lookbackApi = {
  view: () => call<LookbackView>('GET', '/v1/lookback'),
  run: (days: number) =>
    call<LookbackReport>('POST', '/v1/lookback', { days } satisfies LookbackBody),
};

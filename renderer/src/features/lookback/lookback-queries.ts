// The wire shapes of GET and POST /v1/lookback (server/lookback/lookback.schemas.ts), their
// calls and query key.
import { call } from '../../shared/api.js';

export const lookbackKeys = { all: ['lookback'] as const };

export interface ConnectionCount {
  name: string;
  kind: string;
  count: number | null;
  error: string | null;
  detail: string | null;
}

export interface LookbackReport {
  days: number;
  since: string;
  until: string;
  total: number;
  connections: ConnectionCount[];
  run_by: string;
  run_at: string;
  seq: number;
}

export interface HistoryConnection {
  name: string;
  kind: string;
  problem: string | null;
  last_health: { ok: boolean; detail: string; at: string } | null;
}

export interface LookbackView {
  report: LookbackReport | null;
  connections: HistoryConnection[];
  kinds: string[];
  days: { minimum: number; maximum: number };
}

export const lookbackApi = {
  view: () => call<LookbackView>('GET', '/v1/lookback'),
  run: (days: number) => call<LookbackReport>('POST', '/v1/lookback', { days }),
};

/** Readable names of the kinds that keep history. */
export const KIND_TITLES: Readonly<Record<string, string>> = {
  pagerduty: 'PagerDuty',
  opsgenie: 'Opsgenie',
  jira_service_management: 'Jira Service Management',
  servicenow: 'ServiceNow',
};
export const kindTitle = (kind: string): string => KIND_TITLES[kind] ?? kind;

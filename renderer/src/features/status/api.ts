// The service status (GET /v1/status) and the doctor (GET /v1/doctor): wire shapes and calls.
import { call } from '../../shared/api.js';

/** GET /v1/doctor: each check's result, the worst of them as the report's status. */
export interface DoctorCheck {
  area: string;
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  hint: string;
  duration_ms: number;
}
export interface DoctorReport {
  status: 'ok' | 'warn' | 'fail';
  checked_at: string;
  cached: boolean;
  checks: DoctorCheck[];
}

export interface Status {
  version: string;
  instance: string;
  mode: 'setup' | 'configuring' | 'operating';
  /** This install's fingerprint (six groups of four), null when the host gives none. */
  fingerprint?: string | null;
  licence: StatusLicence | null;
  setup: {
    steps: { id: string; title: string; done: boolean; hint: string }[];
    done: number;
    of: number;
  };
  orchestrate: boolean;
  impact_set: boolean;
  ledger: { seq: number; segments: number };
  /** The sign-in methods offered now: token, password, code, ldap, sso. */
  auth?: { sso: boolean; methods: string[] };
}

/** Where a licence stands (server/licence/stages.ts). */
export type LicenceStage = 'not_yet' | 'valid' | 'expiring' | 'in_grace' | 'lapsed';

/** GET /v1/status `licence`: the licence in force (the offline trial or a signed licence). */
export interface StatusLicence {
  tier: string;
  /** trial: the offline trial; licence: a signed licence */
  kind: 'trial' | 'licence';
  customer: string | null;
  /** the licensed number of services; null = unlimited */
  services: number | null;
  /** services counted against the limit (null when there is nothing to count against) */
  services_used?: number | null;
  /** installs listed on the licence */
  installs: number;
  /** null = unlimited (a site licence) */
  install_limit: number | null;
  /** null = perpetual */
  expires_at: string | null;
  grace_ends_at: string | null;
  in_grace: boolean;
  stage: LicenceStage;
  valid: boolean;
  /** why the licence does not let the service operate */
  why: string | null;
  /** whole days until expires_at; null for a perpetual licence */
  days_left: number | null;
  /** SVC_LICENCE_CHECK in force: auto, strict or offline */
  check: string;
  /** the last confirmation by the licence authority, where the service reports it */
  confirmed_at?: string | null;
  /** false for the offline trial: nobody vouched for it */
  verified: boolean;
  /** the mounted licence file (SVC_LICENCE) when the licence is managed as a file */
  file_mounted: string | null;
}

export const statusApi = {
  status: () => call<Status>('GET', '/v1/status'),
  doctor: (fresh: boolean) => call<DoctorReport>('GET', `/v1/doctor${fresh ? '?fresh=1' : ''}`),
};

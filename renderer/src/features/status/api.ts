// The service status (GET /v1/status) and the doctor (GET /v1/doctor): wire shapes and calls.
import { call } from '../../shared/api.js';
import type { DoctorReportBody } from '../../../../server/doctor/doctor.schemas.js';
import type { StatusBody } from '../../../../server/status/status.schemas.js';

/** GET /v1/doctor: each check's result, the worst of them as the report's status. */
export type DoctorReport = DoctorReportBody;
export type DoctorCheck = DoctorReport['checks'][number];

/** GET /v1/status, as the server's schema types it. */
export type Status = StatusBody;

/** GET /v1/status `licence`: the licence in force (the offline trial or a signed licence). */
export type StatusLicence = NonNullable<Status['licence']>;

/** Where a licence stands (server/licence/stages.ts). */
export type LicenceStage = StatusLicence['stage'];

export const statusApi = {
  status: () => call<Status>('GET', '/v1/status'),
  doctor: (fresh: boolean) => call<DoctorReport>('GET', `/v1/doctor${fresh ? '?fresh=1' : ''}`),
};

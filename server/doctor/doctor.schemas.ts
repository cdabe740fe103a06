// GET /v1/doctor's answer: the route's response schema, and its type for the console.
import { Type, type Static } from 'typebox';

const Status = Type.Union([Type.Literal('ok'), Type.Literal('warn'), Type.Literal('fail')]);
export const DoctorReportBody = Type.Object({
  status: Status,
  checked_at: Type.String(),
  cached: Type.Boolean(),
  checks: Type.Array(
    Type.Object({
      area: Type.String(),
      check: Type.String(),
      status: Status,
      detail: Type.String(),
      hint: Type.String(),
      duration_ms: Type.Integer(),
    }),
  ),
});
export type DoctorReportBody = Static<typeof DoctorReportBody>;

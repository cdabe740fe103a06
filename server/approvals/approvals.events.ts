// The events approvals append: a request opened, decided, closed, and sent to a channel.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const MaybeText = Type.Union([Type.String(), Type.Null()]);

export const approvalEvents = {
  'approval.requested': Type.Object({
    request_id: Type.String(),
    kind: Type.String(),
    title: Type.String(),
    summary: Type.String(),
    service: MaybeText,
    risk: Type.String(),
    episode_id: MaybeText,
    subject: Type.Record(Type.String(), Type.Unknown(), {
      description: 'what an approval binds to',
    }),
    subject_sha256: Type.String(),
    quorum: Type.Number(),
    approver_role: Type.String(),
    requested_by: Type.String(),
    requested_by_id: Type.String(),
    expires_at: Type.String(),
  }),
  'approval.decided': Type.Object({
    request_id: Type.String(),
    decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
    by: Type.String(),
    by_id: Type.String(),
    via: Type.String({ description: 'the channel it was decided in' }),
    reason: MaybeText,
    subject_sha256: Type.String(),
    on_behalf_of: Type.Optional(Type.String()),
    acting_via: Type.Optional(Type.String()),
    channel: Type.Optional(
      Type.String({ description: 'the notify connector whose signed link decided it' }),
    ),
  }),
  'approval.closed': Type.Object({
    request_id: Type.String(),
    status: Type.String(),
    reason: MaybeText,
    by_id: Type.String(),
  }),
  'approval.sent': Type.Object({
    request_id: Type.String(),
    channel: Type.String(),
    step: Type.Number(),
    ok: Type.Boolean(),
    detail: Type.String(),
    link_ids: Type.Optional(Type.Array(Type.String())),
  }),
} as const;
export type ApprovalEvents = EventsOf<typeof approvalEvents>;

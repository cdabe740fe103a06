// Wire shapes of the approvals: GET /v1/approvals (+ /<id>), approve, deny, withdraw, and the
// signed channel links (GET and POST /v1/approvals/link).
import { Type, type Static } from 'typebox';
import { TimeOrDate } from '../http/common.schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

export const MAX_LIMIT = 500;

/** What GET /v1/approvals sorts by (a leading minus: descending). */
export const SORT_FIELDS = [
  'requested_at',
  'expires_at',
  'closed_at',
  'status',
  'risk',
  'kind',
  'service',
] as const;
export type ApprovalSortField = (typeof SORT_FIELDS)[number];

export const ApprovalDecisionEntry = Type.Object({
  by: Type.String({ description: 'a person, admin-token, channel:<connector> or lab-approver' }),
  by_id: Type.String({
    description: "who counts: a person's id, admin-token, channel:<connector> or lab-approver",
  }),
  on_behalf_of: Type.Optional(
    Type.String({ description: 'with the admin token: the id of the person `by` named' }),
  ),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
  at: Type.String(),
  via: Type.String({ description: 'console, link or lab-approver' }),
  reason: Nullable(Type.String()),
});

export const ApprovalChannelEntry = Type.Object({
  channel: Type.String(),
  step: Type.Integer({ description: "index of the policy's escalation step" }),
  at: Type.String(),
  ok: Type.Boolean(),
  detail: Type.String(),
});

export const ApprovalRequestBody = Type.Object(
  {
    request_id: Type.String(),
    kind: Type.Union([Type.Literal('action'), Type.Literal('autonomy'), Type.Literal('fix_mode')]),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('approved'),
      Type.Literal('denied'),
      Type.Literal('withdrawn'),
      Type.Literal('expired'),
    ]),
    title: Type.String(),
    summary: Type.String(),
    service: Nullable(Type.String()),
    risk: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
    episode_id: Nullable(Type.String()),
    subject: Type.Record(Type.String(), Type.Unknown(), {
      description: 'what is approved, exactly; the approval binds to subject_sha256',
    }),
    subject_sha256: Type.String(),
    quorum: Type.Integer(),
    approver_role: Type.Union([Type.Literal('responder'), Type.Literal('admin')]),
    requested_by: Type.String(),
    requested_by_id: Type.String(),
    requested_by_name: Type.Optional(
      Nullable(
        Type.String({
          description: "the requesting person's name now; null when the requester is no person",
        }),
      ),
    ),
    requested_by_removed: Type.Optional(
      Type.Boolean({ description: 'the requester was a person who has since been removed' }),
    ),
    requested_at: Type.String(),
    expires_at: Type.String(),
    decisions: Type.Immutable(Type.Array(ApprovalDecisionEntry)),
    channels: Type.Immutable(Type.Array(ApprovalChannelEntry)),
    closed_at: Nullable(Type.String()),
    reason: Nullable(Type.String()),
  },
  { $id: 'ApprovalRequest' },
);
export type ApprovalRequestBody = Static<typeof ApprovalRequestBody>;
export type ApprovalDecisionEntry = Static<typeof ApprovalDecisionEntry>;
export type ApprovalChannelEntry = Static<typeof ApprovalChannelEntry>;

const Csv = Type.String({ maxLength: 1000 });

export const ApprovalListQuery = Type.Object(
  {
    status: Type.Optional(Csv),
    risk: Type.Optional(Csv),
    kind: Type.Optional(Csv),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    query: Type.Optional(Type.String({ maxLength: 2000 })),
    since: Type.Optional(TimeOrDate),
    until: Type.Optional(TimeOrDate),
    sort: Type.String({
      pattern: `^-?(${SORT_FIELDS.join('|')})$`,
      default: '-requested_at',
      description: `a field of ${SORT_FIELDS.join(', ')}; a leading minus sorts descending`,
    }),
    limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 50 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  },
  { additionalProperties: false },
);
export type ApprovalListQuery = Static<typeof ApprovalListQuery>;

const Counts = Type.Record(Type.String(), Type.Integer());

export const ApprovalList = Type.Object({
  requests: Type.Immutable(Type.Array(ApprovalRequestBody)),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  sort: Type.String(),
  facets: Type.Object(
    { status: Counts, risk: Counts, kind: Counts },
    { description: "each facet's counts apply every filter but its own" },
  ),
});
export type ApprovalList = Static<typeof ApprovalList>;

export const RequestIdParams = Type.Object({
  request_id: Type.String({ minLength: 1, maxLength: 200 }),
});

const Reason = Type.String({ minLength: 1, maxLength: 2000 });
const By = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'who acts; honoured only with the admin token',
});

export const ApproveBody = Type.Object(
  { reason: Type.Optional(Reason), by: Type.Optional(By) },
  { additionalProperties: false },
);
export const DenyBody = Type.Object(
  { reason: Reason, by: Type.Optional(By) },
  { additionalProperties: false },
);
export const WithdrawBody = Type.Object(
  { reason: Type.Optional(Reason), by: Type.Optional(By) },
  { additionalProperties: false },
);

const Token = Type.String({ minLength: 1, maxLength: 2048 });

export const LinkQuery = Type.Object({ token: Token }, { additionalProperties: false });
export const LinkBody = Type.Object(
  { token: Token, reason: Type.Optional(Reason) },
  { additionalProperties: false },
);

/** GET /v1/approvals/link: what the link would do; nothing is used. */
export const LinkPreview = Type.Object({
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
  channel: Nullable(Type.String()),
  counts_as: Type.String({
    description: 'who using it counts as: the person it was sent to, or channel:<connector>',
  }),
  expires_at: Type.String(),
  request: ApprovalRequestBody,
});
export type LinkPreview = Static<typeof LinkPreview>;

/** POST /v1/approvals/link: the decision recorded, and the request after it. */
export const LinkUsed = Type.Object({
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
  by: Type.String(),
  request: ApprovalRequestBody,
});
export type LinkUsed = Static<typeof LinkUsed>;

import { Type, type Static } from 'typebox';
import { TimeOrDate } from '../http/common.schemas.js';

export const MAX_LEDGER_LIMIT = 2000;

export const LedgerQuery = Type.Object(
  {
    order: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        description: 'asc for oldest first; default newest first',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LEDGER_LIMIT, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    type: Type.Optional(
      Type.String({ description: 'comma-separated event type prefixes, e.g. approval.,action.' }),
    ),
    trace: Type.Optional(Type.String({ minLength: 1 })),
    actor: Type.Optional(Type.String({ minLength: 1 })),
    q: Type.Optional(Type.String({ maxLength: 500 })),
    query: Type.Optional(Type.String({ maxLength: 2000 })),
    since: Type.Optional(TimeOrDate),
    until: Type.Optional(TimeOrDate),
    before_seq: Type.Optional(Type.Integer({ minimum: 1 })),
    after_seq: Type.Optional(Type.Integer({ minimum: 0 })),
    latest: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type LedgerQuery = Static<typeof LedgerQuery>;

export const LedgerEventBody = Type.Object({
  seq: Type.Integer(),
  ts: Type.String(),
  type: Type.String(),
  actor: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  reason: Type.Union([Type.String(), Type.Null()]),
  trace_id: Type.Union([Type.String(), Type.Null()]),
  hash: Type.String({ description: 'chain hash, hex' }),
});

export const LedgerList = Type.Object({
  events: Type.Array(LedgerEventBody),
  more: Type.Boolean(),
  counts: Type.Record(Type.String(), Type.Integer(), {
    description: 'events per category under every filter but type',
  }),
  head: Type.Object({ seq: Type.Integer(), hash: Type.Union([Type.String(), Type.Null()]) }),
  checkpoint: Type.Union([Type.String(), Type.Null()], {
    description: 'the newest seal, a C2SP signed checkpoint, for offline verification of exports',
  }),
});

export const VerifyQuery = Type.Object(
  {
    checkpoint: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description:
          'a checkpoint saved elsewhere (the signed note of a seal, URL-encoded): the ledger must still contain it',
      }),
    ),
  },
  { additionalProperties: false },
);
export type VerifyQuery = Static<typeof VerifyQuery>;

export const VerifyReportBody = Type.Object({
  ok: Type.Boolean(),
  checked: Type.Integer(),
  head: Type.Object({ seq: Type.Integer(), hash: Type.Union([Type.String(), Type.Null()]) }),
  segments: Type.Integer(),
  sealed_through: Type.Integer(),
  failure: Type.Union([
    Type.Null(),
    Type.Object({
      seq: Type.Integer(),
      check: Type.String(),
      segment: Type.Union([Type.Integer(), Type.Null()]),
      message: Type.String(),
    }),
  ]),
  duration_ms: Type.Integer(),
  events_per_s: Type.Integer(),
  algorithm: Type.String(),
  key_fingerprint: Type.String(),
  verified_at: Type.String({
    description: 'when the chain was recomputed; the report is reused until the head moves',
  }),
});

/** GET /v1/ledger and GET /v1/ledger/verify as the console reads them (features/audit). */
export type LedgerListBody = Static<typeof LedgerList>;
export type VerifyReportBody = Static<typeof VerifyReportBody>;

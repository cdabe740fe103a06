import { Type, type Static } from 'typebox';

/** The error body of every status but 503 (docs/decisions.md). */
export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    message: Type.String(),
    field: Type.Optional(Type.String()),
    role: Type.Optional(Type.String()),
    why: Type.Optional(Type.String()),
    position: Type.Optional(Type.Integer()),
    tried: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'ErrorBody', additionalProperties: true },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** The 503 body fixed by the specification. */
export const NotOperatingBody = Type.Object(
  { error: Type.Literal('not operating yet'), mode: Type.String() },
  { $id: 'NotOperatingBody' },
);

export const IsoTime = Type.String({ format: 'date-time' });

/** A timestamp or a date, as the list filters accept (since inclusive, until exclusive). */
export const TimeOrDate = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$',
  description: 'ISO 8601 timestamp or date (YYYY-MM-DD)',
});

export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  503: Type.Union([NotOperatingBody, ErrorBody]),
} as const;

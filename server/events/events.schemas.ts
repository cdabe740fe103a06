import { Type, type Static } from 'typebox';

/** The prefixes an ingested event type must start with (specification, Events). */
export const INGEST_PREFIXES = [
  'signal.',
  'retrieval.',
  'model.',
  'check.',
  'decision.',
  'approval.',
  'action.',
  'outcome.',
  'config.',
  'connector.',
  'system.',
  'human.',
] as const;

export const IngestEventBody = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 128,
      description: `starts with one of ${INGEST_PREFIXES.join(' ')}`,
    }),
    actor: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'who or what, e.g. human:<name>, ci:<project>',
    }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    reason: Type.Optional(Type.String({ maxLength: 4000 })),
    trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: false },
);
export type IngestEventBody = Static<typeof IngestEventBody>;

export const IngestedEvent = Type.Object({
  seq: Type.Integer(),
  ts: Type.String(),
  type: Type.String(),
  trace_id: Type.Union([Type.String(), Type.Null()]),
});

import { Type, type Static } from 'typebox';

/** The only bound on a webhook body (and so on the alerts of one group): 4 MiB. */
export const ALERT_BODY_LIMIT = 4 * 1024 * 1024;

export const SourceParams = Type.Object({
  source: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9-]*$' }),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

export const AcceptedSignal = Type.Object({
  source: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
  severity: Type.String(),
  service: Type.String(),
  resource: Nullable(Type.String()),
  fingerprint: Type.String(),
  outcome: Type.Union(
    [Type.Literal('fired'), Type.Literal('resolved'), Type.Literal('duplicate')],
    {
      description: 'fired: it started firing; resolved: it ended; duplicate: no change (a repeat)',
    },
  ),
  seq: Nullable(Type.Integer()),
  note: Type.Optional(
    Type.String({
      description: 'why the service differs from the alert (an unsafe name normalised)',
    }),
  ),
  episode_id: Nullable(
    Type.String({ description: 'the episode the signal opened, joined or ended in' }),
  ),
});

export const IntakeResult = Type.Object({
  source: Type.String({ description: 'the normaliser that read the body' }),
  accepted: Type.Integer({ description: 'signals read from the body' }),
  resolved: Type.Integer({ description: 'of which resolved' }),
  duplicates: Type.Integer({ description: 'of which repeats that changed nothing' }),
  ignored: Type.Optional(
    Type.String({ description: 'a control message, acknowledged and not an alert' }),
  ),
  signals: Type.Array(AcceptedSignal),
});
export type IntakeResult = Static<typeof IntakeResult>;

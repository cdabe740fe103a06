// Wire shapes of the estate: GET /v1/estate, GET/PUT /v1/estate/overrides, POST /v1/discover,
// GET /v1/jobs/<id> and the suggestions (GET /v1/estate/suggestions, confirm, dismiss).
import { Type, type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

const ServiceName = Type.String({ minLength: 1, maxLength: 200 });

/** How a service or link was made: which connector and how, or `{connector: null, how: 'override'}`. */
export const Origin = Type.Object({
  connector: Nullable(Type.String()),
  how: Type.String(),
});
export type Origin = Static<typeof Origin>;

export const EstateOverrides = Type.Object(
  {
    services: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          {
            aliases: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }),
            kind: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          },
          { additionalProperties: false },
        ),
        { description: 'hand-made services by name, each with the label values that mean it' },
      ),
    ),
    links: Type.Optional(
      Type.Array(
        Type.Object({ from: ServiceName, to: ServiceName }, { additionalProperties: false }),
        { maxItems: 1000, description: 'placed links: from depends on to' },
      ),
    ),
    ignore: Type.Optional(
      Type.Array(ServiceName, { maxItems: 1000, description: 'service names to leave out' }),
    ),
  },
  { additionalProperties: false },
);
export type EstateOverridesInput = Static<typeof EstateOverrides>;

/** The overrides with every section present. */
export interface Overrides {
  readonly services: Readonly<Record<string, { aliases: string[]; kind?: string }>>;
  readonly links: readonly { from: string; to: string }[];
  readonly ignore: readonly string[];
}

export const OverridesView = Type.Object({
  overrides: Type.Object({
    services: Type.Record(
      Type.String(),
      Type.Object({ aliases: Type.Array(Type.String()), kind: Type.Optional(Type.String()) }),
    ),
    links: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
    ignore: Type.Array(Type.String()),
  }),
  set_by: Nullable(Type.String()),
  set_at: Nullable(Type.String()),
});
export type OverridesView = Static<typeof OverridesView>;

export const EstateService = Type.Object({
  name: Type.String(),
  kind: Nullable(Type.String()),
  hosts: Type.Array(Type.String()),
  origins: Type.Array(Origin),
});
export type EstateService = Static<typeof EstateService>;

export const EstateLink = Type.Object({ from: Type.String(), to: Type.String(), origin: Origin });
export type EstateLink = Static<typeof EstateLink>;

export const ConnectorStatus = { Ok: 'ok', Stale: 'stale', Failed: 'failed' } as const;
export type ConnectorStatus = (typeof ConnectorStatus)[keyof typeof ConnectorStatus];

export const EstateView = Type.Object({
  services: Type.Array(EstateService),
  links: Type.Array(EstateLink),
  connectors: Type.Record(
    Type.String(),
    Type.Object({
      status: Type.Union([Type.Literal('ok'), Type.Literal('stale'), Type.Literal('failed')]),
      at: Type.String({ description: 'the last discovery attempt' }),
      detail: Nullable(Type.String()),
    }),
  ),
  problems: Type.Array(
    Type.Object({
      what: Type.String({ description: 'link_unknown_service, connector_failed, …' }),
      detail: Type.String(),
    }),
  ),
  unlinked: Type.Array(Type.String(), { description: 'services with no link either way' }),
  candidates: Type.Array(
    Type.Object({
      name: Type.String(),
      host: Type.String(),
      connector: Type.String(),
      how: Type.String(),
    }),
    {
      description:
        'units seen running that listen on no port: not services unless an override names them',
    },
  ),
});
export type EstateView = Static<typeof EstateView>;

export const JobStatus = { Running: 'running', Done: 'done', Failed: 'failed' } as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

export const JobView = Type.Object({
  id: Type.String(),
  kind: Type.Literal('discover'),
  status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
  progress: Type.Object({
    done: Type.Integer(),
    total: Type.Integer(),
    step: Type.Optional(
      Type.String({ description: 'what the job did last, e.g. "ssh-web: ports"' }),
    ),
  }),
  started_at: Type.String(),
  finished_at: Nullable(Type.String()),
  result: Nullable(
    Type.Object({
      services: Type.Integer({ description: 'services in the estate after the run' }),
      links: Type.Integer({ description: 'links in the estate after the run' }),
      per_connector: Type.Record(
        Type.String(),
        Type.Object({
          status: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
          detail: Nullable(Type.String()),
        }),
      ),
    }),
  ),
});
export type JobView = Static<typeof JobView>;

export const Suggestion = Type.Object({
  id: Type.String({ description: 'stable for the pair: a hash of from and to' }),
  from: Type.String(),
  to: Type.String({ description: 'the service that from depends on' }),
  evidence: Type.String(),
  score: Type.Number({ minimum: 0, maximum: 1 }),
});
export type Suggestion = Static<typeof Suggestion>;

export const SuggestionList = Type.Object({ suggestions: Type.Array(Suggestion) });
export type SuggestionList = Static<typeof SuggestionList>;

const SuggestionIdField = Type.String({ minLength: 1, maxLength: 100 });
export const ConfirmSuggestion = Type.Object(
  { id: SuggestionIdField },
  { additionalProperties: false },
);
export type ConfirmSuggestion = Static<typeof ConfirmSuggestion>;
export const DismissSuggestion = Type.Object(
  { id: SuggestionIdField, reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
export type DismissSuggestion = Static<typeof DismissSuggestion>;

export const SuggestionDecided = Type.Object({
  id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  status: Type.Union([Type.Literal('confirmed'), Type.Literal('dismissed')]),
  evidence: Type.String(),
  reason: Nullable(Type.String()),
  link: Nullable(EstateLink),
});
export type SuggestionDecided = Static<typeof SuggestionDecided>;

export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const JobAccepted = Type.Object({ job_id: Type.String() });
export type JobAccepted = Static<typeof JobAccepted>;

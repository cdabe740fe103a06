import { Type, type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

export const HealthBody = Type.Object({ status: Type.Literal('ok') });

export const StatusBody = Type.Object({
  version: Type.String(),
  instance: Type.String(),
  fingerprint: Nullable(Type.String()),
  mode: Type.Union([Type.Literal('setup'), Type.Literal('configuring'), Type.Literal('operating')]),
  licence: Nullable(
    Type.Object({
      tier: Type.String(),
      /** trial (the offline trial) or licence (a signed licence) */
      kind: Type.Unsafe<'trial' | 'licence'>(Type.String()),
      customer: Nullable(Type.String()),
      /** the licensed number of services; null for unlimited */
      services: Nullable(Type.Integer()),
      /** the services counted now: a signal in the last 30 days, or pinned */
      services_used: Nullable(Type.Integer()),
      installs: Type.Integer(),
      install_limit: Nullable(Type.Integer()),
      expires_at: Nullable(Type.String()),
      grace_ends_at: Nullable(Type.String()),
      in_grace: Type.Boolean(),
      /** not_yet, valid, expiring, in_grace or lapsed (server/licence/stages.ts) */
      stage: Type.Unsafe<'not_yet' | 'valid' | 'expiring' | 'in_grace' | 'lapsed'>(Type.String()),
      valid: Type.Boolean(),
      /** why the licence does not let the service operate */
      why: Nullable(Type.String()),
      days_left: Nullable(Type.Integer()),
      /** SVC_LICENCE_CHECK in force (offline for the offline trial) */
      check: Type.String(),
      /** the last confirmation by the licence authority (null: never, or offline) */
      confirmed_at: Nullable(Type.String()),
      /** false for the offline trial: nobody vouched for it */
      verified: Type.Boolean(),
      /** the mounted licence file, when the licence is managed as a file */
      file_mounted: Nullable(Type.String()),
      /** until when an offline grant from an install on the licence lets this one run */
      vouched_until: Nullable(Type.String()),
    }),
  ),
  setup: Type.Object({
    steps: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        done: Type.Boolean(),
        hint: Type.String(),
      }),
    ),
    done: Type.Integer(),
    of: Type.Integer(),
  }),
  impact_set: Type.Boolean(),
  auth: Type.Object({ sso: Type.Boolean(), methods: Type.Array(Type.String()) }),
  ledger: Type.Object({
    seq: Type.Integer(),
    hash: Nullable(Type.String()),
    segments: Type.Integer(),
    sealed_through: Type.Integer(),
  }),
  models: Type.Object({
    placement: Type.Union([
      Type.Literal('local'),
      Type.Literal('endpoint'),
      Type.Literal('cassette'),
      Type.Literal('missing'),
    ]),
    system2: Type.Object({
      configured: Type.Boolean(),
      model: Nullable(Type.String()),
      url_origin: Nullable(Type.String()),
      investigator: Type.String(),
      /** the investigator's bounds (SVC_MCTS_*), which the ledger's model.investigated shows met */
      investigator_bounds: Type.Object({
        s2_calls: Type.Integer(),
        reads: Type.Integer(),
        depth: Type.Integer(),
      }),
      tokens_today: Type.Integer(),
      daily_tokens: Type.Integer(),
    }),
    system1: Type.Object({
      configured: Type.Boolean(),
      model: Nullable(Type.String()),
      url_origin: Nullable(Type.String()),
      tokens_today: Type.Integer(),
      daily_tokens: Type.Integer(),
    }),
    cassette: Nullable(Type.String()),
    local: Nullable(
      Type.Object({
        file: Type.String(),
        state: Type.Union([
          Type.Literal('loading'),
          Type.Literal('ready'),
          Type.Literal('refused'),
        ]),
        gpu: Nullable(Type.String()),
        reason: Nullable(Type.String()),
      }),
    ),
  }),
  orchestrate: Type.Boolean(),
  ingest: Type.Boolean(),
  started_at: Type.String(),
});
/** GET /v1/status as the console reads it (renderer/src/features/status/api.ts). */
export type StatusBody = Static<typeof StatusBody>;

// Wire shapes of autonomy, fix mode and halt: GET/POST /v1/autonomy, POST /v1/fix-mode,
// POST /v1/halt, POST /v1/resume.
import { Type, type Static } from 'typebox';
import { ApprovalRequestBody } from '../approvals/index.js';
import type { AutonomyLevel, FixMode } from '../investigate/index.js';

export type { AutonomyLevel, FixMode };

export const LEVELS = ['off', 'shadow', 'L1', 'L2'] as const satisfies readonly AutonomyLevel[];
export const FIX_MODES = ['advise', 'draft'] as const satisfies readonly FixMode[];
/** Distinct approvers a raise of autonomy (and fix mode draft) needs. */
export const RAISE_QUORUM = 2;
/** Distinct approvers each drafted restore fix needs. */
export const DRAFTED_QUORUM = 2;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

const Level = Type.Union([
  Type.Literal('off'),
  Type.Literal('shadow'),
  Type.Literal('L1'),
  Type.Literal('L2'),
]);
const Mode = Type.Union([Type.Literal('advise'), Type.Literal('draft')]);
const By = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'who acts; honoured only with the admin token',
});

export const Halted = Type.Object({
  reason: Type.String(),
  by: Type.String(),
  at: Type.String(),
});
export type Halted = Static<typeof Halted>;

export const AutonomyView = Type.Object({
  default: Level,
  services: Type.Immutable(Type.Array(Type.Object({ service: Type.String(), level: Level }))),
  halted: Nullable(Halted),
  raise_quorum: Type.Integer(),
  raise_impossible: Nullable(Type.String({ description: 'why raising is impossible now' })),
  fix_mode: Mode,
  drafted_quorum: Type.Integer(),
  requests: Type.Immutable(
    Type.Array(ApprovalRequestBody, { description: 'pending autonomy and fix mode requests' }),
  ),
});
export type AutonomyView = Static<typeof AutonomyView>;

export const SetAutonomy = Type.Object(
  {
    service: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'a service name, or * for the default level',
    }),
    level: Level,
    by: Type.Optional(By),
  },
  { additionalProperties: false },
);
export const AutonomySet = Type.Object({ service: Type.String(), level: Level });
export type AutonomySet = Static<typeof AutonomySet>;

export const SetFixMode = Type.Object(
  { mode: Mode, by: Type.Optional(By) },
  { additionalProperties: false },
);
export const FixModeSet = Type.Object({ mode: Mode });
export type FixModeSet = Static<typeof FixModeSet>;

export const Requested = Type.Object({ request: ApprovalRequestBody });
export type Requested = Static<typeof Requested>;

export const HaltBody = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' }),
    by: Type.Optional(By),
  },
  { additionalProperties: false },
);
export const ResumeBody = Type.Object(
  { by: Type.Optional(By), reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })) },
  { additionalProperties: false },
);
export const HaltState = Type.Object({ halted: Nullable(Halted) });
export type HaltState = Static<typeof HaltState>;

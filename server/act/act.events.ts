// The events an action appends, from its dry run to its verification or take-back. Each names
// its episode and the fix (pack, id, title, risk, kind).
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Fix = Type.Object({
  pack: Type.String(),
  id: Type.String(),
  title: Type.String(),
  risk: Type.String(),
  kind: Type.String(),
});
const Action = { episode_id: Type.String(), fix: Fix };
const RequestId = Type.Optional(Type.String({ description: 'the approval request it ran under' }));
const Call = {
  connector: Type.String(),
  call: Type.String({ description: 'the operation and its arguments, as canonical JSON' }),
};
const Checked = {
  ...Action,
  findings: Type.Array(Type.Unknown()),
  detail: Type.String(),
};

export const actEvents = {
  'action.dry_run': Type.Object({
    ...Action,
    request_id: RequestId,
    connector: Type.String(),
    call: Type.Union([Type.String(), Type.Null()], { description: 'null: no dry run exists' }),
    ok: Type.Boolean(),
    detail: Type.String(),
  }),
  'action.shadow': Type.Object({
    ...Action,
    ...Call,
    would: Type.Union([Type.Literal('act'), Type.Literal('ask')]),
  }),
  'action.refused': Type.Object({
    ...Action,
    why: Type.String(),
    detail: Type.String(),
    request_id: RequestId,
  }),
  'action.started': Type.Object({ ...Action, ...Call, request_id: RequestId }),
  'action.done': Type.Object({ ...Action, ...Call, ok: Type.Boolean(), detail: Type.String() }),
  'action.verified': Type.Object(Checked),
  'action.verify_failed': Type.Object(Checked),
  'action.taken_back': Type.Object({
    ...Action,
    call: Type.String(),
    ok: Type.Boolean(),
    detail: Type.String(),
  }),
} as const;
export type ActEvents = EventsOf<typeof actEvents>;

/** What each action event makes of its fix's status in the investigation's list of actions. */
export const ACTION_FIX_STATUS: { readonly [K in keyof ActEvents]: string } = {
  'action.dry_run': 'dry_run',
  'action.shadow': 'shadow',
  'action.refused': 'refused',
  'action.started': 'running',
  'action.done': 'running',
  'action.verified': 'verified',
  'action.verify_failed': 'not_verified',
  'action.taken_back': 'taken_back',
};

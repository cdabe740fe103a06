// Wire shapes of sign-in and sessions: POST /v1/login and the sign-in methods' answer
// (LoginReply), GET /v1/me (MeBody). Types only besides typebox: the console takes them too.
import { Type, type Static } from 'typebox';
import { IsoTime } from '../http/common.schemas.js';
import { Role } from '../shared/roles.js';

const RoleBody = Type.Union([
  Type.Literal(Role.Viewer),
  Type.Literal(Role.Responder),
  Type.Literal(Role.Admin),
  Type.Literal(Role.Owner),
]);

export const LoginBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 1024, description: 'the admin token' }) },
  { additionalProperties: false },
);

export const SessionBody = Type.Object({
  id: Type.String({ description: 'safe to show and log; not a credential' }),
  user_id: Type.String(),
  name: Type.String(),
  role: RoleBody,
  method: Type.String({ description: 'how the person signed in: admin-token' }),
  created_at: IsoTime,
  expires_at: IsoTime,
  idle_expires_at: IsoTime,
});

export const LoginReply = Type.Object({
  token: Type.String({ description: 'svs_…: send as Authorization: Bearer <token>' }),
  session: SessionBody,
});
export type LoginReply = Static<typeof LoginReply>;

export const MeBody = Type.Object({
  name: Type.String(),
  role: RoleBody,
  user_id: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([Type.Literal('session'), Type.Literal('admin-token')]),
  session: Type.Union([
    Type.Object({
      id: Type.String(),
      // Added (issue 22): the admin token's session is the first owner's, named "owner" like
      // a person could be; the console names it by how it signed in instead.
      method: Type.String({ description: 'how the session signed in: admin-token, code, …' }),
      created_at: IsoTime,
      expires_at: IsoTime,
      idle_expires_at: IsoTime,
    }),
    Type.Null(),
  ]),
  // A person's session only (server/people): their e-mail, channel handles and team ids.
  email: Type.Optional(Type.String()),
  handles: Type.Optional(
    Type.Object({
      slack: Type.Optional(Type.String()),
      mattermost: Type.Optional(Type.String()),
      teams: Type.Optional(Type.String()),
      phone: Type.Optional(Type.String()),
    }),
  ),
  teams: Type.Optional(Type.Array(Type.String())),
});
export type MeBody = Static<typeof MeBody>;

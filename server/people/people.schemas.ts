// Wire shapes of people, teams and access settings (GET/POST /v1/users, PUT/DELETE
// /v1/users/<id>, /v1/teams…, /v1/settings/access, PUT /v1/me).
import { Type, type Static } from 'typebox';
import { IsoTime } from '../http/common.schemas.js';
import { Role } from '../shared/roles.js';

export const RoleSchema = Type.Union([
  Type.Literal(Role.Viewer),
  Type.Literal(Role.Responder),
  Type.Literal(Role.Admin),
  Type.Literal(Role.Owner),
]);

/** The channels a person can be reached on; each at most 200 characters. */
export const HANDLE_KINDS = ['slack', 'mattermost', 'teams', 'phone'] as const;
export type HandleKind = (typeof HANDLE_KINDS)[number];

const Handle = Type.String({ minLength: 1, maxLength: 200 });
export const Handles = Type.Object(
  {
    slack: Type.Optional(Handle),
    mattermost: Type.Optional(Handle),
    teams: Type.Optional(Handle),
    phone: Type.Optional(Handle),
  },
  { additionalProperties: false },
);
export type Handles = { -readonly [K in HandleKind]?: string };

/** In a change: a handle set to null is removed. */
const HandleChange = Type.Union([Handle, Type.Null()]);
export const HandlesInput = Type.Object(
  {
    slack: Type.Optional(HandleChange),
    mattermost: Type.Optional(HandleChange),
    teams: Type.Optional(HandleChange),
    phone: Type.Optional(HandleChange),
  },
  { additionalProperties: false },
);
export type HandlesInput = Static<typeof HandlesInput>;

const Email = Type.String({ minLength: 3, maxLength: 254 });
const Name = Type.String({ maxLength: 200 });
const By = Type.Optional(
  Type.String({ maxLength: 200, description: 'acting for this person (admin token only)' }),
);

export const UserView = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  handles: Handles,
  teams: Type.Array(Type.String(), { description: 'ids of the teams the person is in' }),
  disabled: Type.Boolean(),
  password_set: Type.Boolean(),
  created_at: IsoTime,
  updated_at: IsoTime,
  last_sign_in_at: Type.Union([IsoTime, Type.Null()]),
});
export type User = Static<typeof UserView>;

export const UserList = Type.Object({ users: Type.Array(UserView) });
export type UserList = Static<typeof UserList>;

export const UserCreate = Type.Object(
  {
    email: Email,
    name: Type.Optional(Name),
    role: Type.Optional(RoleSchema),
    handles: Type.Optional(Handles),
    by: By,
  },
  { additionalProperties: false },
);
export type UserCreate = Static<typeof UserCreate>;

export const UserChange = Type.Object(
  {
    email: Type.Optional(Email),
    name: Type.Optional(Name),
    role: Type.Optional(RoleSchema),
    handles: Type.Optional(HandlesInput),
    disabled: Type.Optional(Type.Boolean()),
    by: By,
  },
  { additionalProperties: false },
);
export type UserChange = Static<typeof UserChange>;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const Deleted = Type.Object({
  deleted: Type.Literal(true),
  id: Type.String(),
  ended_sessions: Type.Optional(Type.Integer()),
});
export type Deleted = Static<typeof Deleted>;

export const TeamView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  leads: Type.Array(Type.String(), { description: 'user ids; each is also in members' }),
  members: Type.Array(Type.String(), { description: 'user ids of everyone in the team' }),
  created_at: IsoTime,
  updated_at: IsoTime,
});
export type Team = Static<typeof TeamView>;

/** GET /v1/teams: the teams and the names of the people in them (no e-mail, no handles). */
export const TeamList = Type.Object({
  teams: Type.Array(TeamView),
  people: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
});
export type TeamList = Static<typeof TeamList>;

const Ids = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000 });
export const TeamCreate = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    leads: Type.Optional(Ids),
    members: Type.Optional(Ids),
    by: By,
  },
  { additionalProperties: false },
);
export type TeamCreate = Static<typeof TeamCreate>;

export const TeamChange = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    leads: Type.Optional(Ids),
    members: Type.Optional(Ids),
    by: By,
  },
  { additionalProperties: false },
);
export type TeamChange = Static<typeof TeamChange>;

export const DefaultRole = Type.Union([Type.Literal(Role.Viewer), Type.Literal(Role.Responder)]);

const Groups = Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 500 });
export const AccessSettingsInput = Type.Object(
  {
    domains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 500 })),
    directory_groups: Type.Optional(Groups),
    sso_groups: Type.Optional(Groups),
    default_role: Type.Optional(DefaultRole),
    by: By,
  },
  { additionalProperties: false },
);
export type AccessSettingsInput = Static<typeof AccessSettingsInput>;

export interface AccessSettings {
  readonly domains: string[];
  readonly directory_groups: string[];
  readonly sso_groups: string[];
  readonly default_role: 'viewer' | 'responder';
}

export const AccessSettingsView = Type.Object({
  domains: Type.Array(Type.String()),
  directory_groups: Type.Array(Type.String()),
  sso_groups: Type.Array(Type.String()),
  default_role: DefaultRole,
  set_by: Type.Union([Type.String(), Type.Null()]),
  set_at: Type.Union([IsoTime, Type.Null()]),
});
export type AccessSettingsView = Static<typeof AccessSettingsView>;

export const DEFAULT_ACCESS: AccessSettings = Object.freeze({
  domains: [],
  directory_groups: [],
  sso_groups: [],
  default_role: 'viewer',
});

export const MeChange = Type.Object(
  {
    name: Type.Optional(Name),
    handles: Type.Optional(HandlesInput),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    current_password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);
export type MeChange = Static<typeof MeChange>;

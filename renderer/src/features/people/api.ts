// People, teams and "me" (docs/people.md): calls; the wire shapes are the server's own
// (server/people/people.schemas.ts, server/access/sessions.schemas.ts).
import type { MeBody } from '../../../../server/access/sessions.schemas.js';
import type {
  Deleted,
  HandleKind,
  MeChange,
  Team,
  TeamChange,
  TeamCreate,
  TeamList,
  User,
  UserChange,
  UserCreate,
  UserList,
} from '../../../../server/people/people.schemas.js';
import { call } from '../../shared/api.js';

export type {
  Handles,
  HandleKind,
  HandlesInput,
  Team,
  TeamList,
  UserChange,
} from '../../../../server/people/people.schemas.js';
/** GET /v1/me: the caller; a person's session adds their e-mail, handles and team ids. */
export type Me = MeBody;
export type Person = User;

export const HANDLE_KINDS: readonly HandleKind[] = ['slack', 'mattermost', 'teams', 'phone'];

const userPath = (id: string) => `/v1/users/${encodeURIComponent(id)}`;
const teamPath = (id: string) => `/v1/teams/${encodeURIComponent(id)}`;

export const peopleApi = {
  me: () => call<Me>('GET', '/v1/me'),
  putMe: (body: MeChange) => call<Me>('PUT', '/v1/me', body),
  list: () => call<UserList>('GET', '/v1/users'),
  create: (body: UserCreate) => call<Person>('POST', '/v1/users', body),
  update: (id: string, body: UserChange) => call<Person>('PUT', userPath(id), body),
  remove: (id: string) => call<Deleted>('DELETE', userPath(id)),
  teams: () => call<TeamList>('GET', '/v1/teams'),
  createTeam: (body: TeamCreate) => call<Team>('POST', '/v1/teams', body),
  updateTeam: (id: string, body: TeamChange) => call<Team>('PUT', teamPath(id), body),
  removeTeam: (id: string) => call<Deleted>('DELETE', teamPath(id)),
};

// People, teams and "me" (docs/people.md): wire shapes and calls.
import { type AccessSettings } from '../access/index.js';
import { call, type Role } from '../../shared/api.js';

export interface Me {
  name: string;
  role: string;
  kind: string;
  /** A person's session: their id, e-mail, handles and team ids. */
  user_id?: string | null;
  email?: string;
  handles?: Partial<Record<'slack' | 'mattermost' | 'teams' | 'phone', string>>;
  teams?: string[];
  /** A session's: how it signed in (admin-token for the first owner's); null for the token. */
  session?: { id: string; method?: string; expires_at: string } | null;
}

export type HandleKind = 'slack' | 'mattermost' | 'teams' | 'phone';
export const HANDLE_KINDS: readonly HandleKind[] = ['slack', 'mattermost', 'teams', 'phone'];
export type Handles = Partial<Record<HandleKind, string>>;
/** In a change: a handle set to null is removed, a missing one stays. */
export type HandlesInput = Partial<Record<HandleKind, string | null>>;

export interface Person {
  id: string;
  email: string;
  name: string;
  role: Role;
  handles: Handles;
  teams: string[];
  disabled: boolean;
  password_set: boolean;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

export interface Team {
  id: string;
  name: string;
  leads: string[];
  members: string[];
  created_at: string;
  updated_at: string;
}

export interface TeamList {
  teams: Team[];
  people: { id: string; name: string }[];
}

const userPath = (id: string) => `/v1/users/${encodeURIComponent(id)}`;
const teamPath = (id: string) => `/v1/teams/${encodeURIComponent(id)}`;

export const peopleApi = {
  me: () => call<Me>('GET', '/v1/me'),
  putMe: (body: {
    name?: string;
    handles?: HandlesInput;
    password?: string;
    current_password?: string;
  }) => call<Me>('PUT', '/v1/me', body),
  list: () => call<{ users: Person[] }>('GET', '/v1/users'),
  create: (body: { email: string; name?: string; role?: Role; handles?: Handles }) =>
    call<Person>('POST', '/v1/users', body),
  update: (
    id: string,
    body: {
      email?: string;
      name?: string;
      role?: Role;
      handles?: HandlesInput;
      disabled?: boolean;
    },
  ) => call<Person>('PUT', userPath(id), body),
  remove: (id: string) => call<{ deleted: true; id: string }>('DELETE', userPath(id)),
  teams: () => call<TeamList>('GET', '/v1/teams'),
  createTeam: (body: { name: string; leads?: string[]; members?: string[] }) =>
    call<Team>('POST', '/v1/teams', body),
  updateTeam: (id: string, body: { name?: string; leads?: string[]; members?: string[] }) =>
    call<Team>('PUT', teamPath(id), body),
  removeTeam: (id: string) => call<{ deleted: true; id: string }>('DELETE', teamPath(id)),
  access: () => call<AccessSettings>('GET', '/v1/settings/access'),
  putAccess: (body: Omit<AccessSettings, 'set_by' | 'set_at'>) =>
    call<AccessSettings>('PUT', '/v1/settings/access', body),
};

// People, teams and access settings in SQLite: projections of access.* ledger events (the
// ledger is the record; these tables are rebuilt from it), plus the last sign-in of each
// person, which is operational state outside the projection.
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { PeopleEvents } from './people.events.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { Role } from '../shared/roles.js';
import {
  DEFAULT_ACCESS,
  HANDLE_KINDS,
  type AccessSettings,
  type Handles,
  type Team,
  type User,
} from './people.schemas.js';

export const USER_CREATED = 'access.user_created';
export const USER_UPDATED = 'access.user_updated';
export const USER_DELETED = 'access.user_deleted';
export const ROLE_CHANGED = 'access.role_changed';
export const TEAM_CREATED = 'access.team_created';
export const TEAM_UPDATED = 'access.team_updated';
export const TEAM_DELETED = 'access.team_deleted';
export const ACCESS_SETTINGS_SET = 'access.access_settings_set';

/** A person as stored (without password_set, which is the sign-in domain's). */
export type UserRecord = Omit<User, 'password_set'>;

interface UserRow {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly handles: string;
  readonly disabled: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_sign_in_at: string | null;
  readonly teams: string | null;
}

interface TeamRow {
  readonly id: string;
  readonly name: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly leads: string | null;
  readonly members: string | null;
}

export interface AccessRow {
  readonly settings: AccessSettings;
  readonly set_by: string;
  readonly set_at: string;
}

const ROLES: readonly string[] = Object.values(Role);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const ids = (csv: string | null): string[] => (csv === null || csv === '' ? [] : csv.split(','));

/** Only the known handle kinds, only text. */
export function handlesOf(v: unknown): Handles {
  const out: Handles = {};
  if (v === null || typeof v !== 'object') return out;
  for (const k of HANDLE_KINDS) {
    const h = (v as Record<string, unknown>)[k];
    if (typeof h === 'string' && h !== '') out[k] = h;
  }
  return out;
}

const USER_SELECT = `SELECT p.id, p.email, p.name, p.role, p.handles, p.disabled, p.created_at,
    p.updated_at, s.last_sign_in_at,
    (SELECT group_concat(team_id, ',') FROM (SELECT team_id FROM team_members m
       WHERE m.user_id = p.id ORDER BY team_id)) AS teams
  FROM people p LEFT JOIN people_sign_ins s ON s.user_id = p.id`;

const TEAM_SELECT = `SELECT t.id, t.name, t.created_at, t.updated_at,
    (SELECT group_concat(user_id, ',') FROM (SELECT user_id FROM team_members m
       WHERE m.team_id = t.id AND m.lead = 1 ORDER BY user_id)) AS leads,
    (SELECT group_concat(user_id, ',') FROM (SELECT user_id FROM team_members m
       WHERE m.team_id = t.id ORDER BY user_id)) AS members
  FROM teams t`;

const userOf = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role,
  handles: handlesOf(JSON.parse(r.handles) as unknown),
  teams: ids(r.teams),
  disabled: r.disabled === 1,
  created_at: r.created_at,
  updated_at: r.updated_at,
  last_sign_in_at: r.last_sign_in_at,
});

const teamOf = (r: TeamRow): Team => ({
  id: r.id,
  name: r.name,
  leads: ids(r.leads),
  members: ids(r.members),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export function createPeopleStore(db: Database) {
  const userById = db.prepare<[string], UserRow>(`${USER_SELECT} WHERE p.id = ?`);
  const userByEmail = db.prepare<[string], UserRow>(`${USER_SELECT} WHERE p.email = ?`);
  const allUsers = db.prepare<[], UserRow>(`${USER_SELECT} ORDER BY p.email`);
  const enabledOwners = db.prepare<[], { n: number }>(
    `SELECT count(*) AS n FROM people WHERE role = 'owner' AND disabled = 0`,
  );
  const teamById = db.prepare<[string], TeamRow>(`${TEAM_SELECT} WHERE t.id = ?`);
  const teamByName = db.prepare<[string], TeamRow>(`${TEAM_SELECT} WHERE t.name = ?`);
  const allTeams = db.prepare<[], TeamRow>(`${TEAM_SELECT} ORDER BY t.name COLLATE NOCASE, t.id`);
  const isLead = db.prepare<[string, string], { n: number }>(
    `SELECT count(*) AS n FROM team_members WHERE team_id = ? AND user_id = ? AND lead = 1`,
  );
  const leadsAny = db.prepare<[string], { n: number }>(
    `SELECT count(*) AS n FROM team_members WHERE user_id = ? AND lead = 1`,
  );
  const namesOf = db.prepare<[], { id: string; name: string }>(
    `SELECT DISTINCT p.id, p.name FROM people p JOIN team_members m ON m.user_id = p.id
     ORDER BY p.id`,
  );
  const getAccess = db.prepare<[], { document: string; set_by: string; set_at: string }>(
    'SELECT document, set_by, set_at FROM access_settings WHERE id = 1',
  );
  const noteSignIn = db.prepare<[string, string]>(
    `INSERT INTO people_sign_ins (user_id, last_sign_in_at) VALUES (?, ?)
     ON CONFLICT (user_id) DO UPDATE SET last_sign_in_at = excluded.last_sign_in_at`,
  );
  const forgetSignIn = db.prepare<[string]>('DELETE FROM people_sign_ins WHERE user_id = ?');

  // Projection writes.
  const putUser = db.prepare<
    [
      {
        id: string;
        email: string;
        name: string;
        role: string;
        handles: string;
        disabled: number;
        at: string;
        seq: number;
      },
    ]
  >(
    `INSERT INTO people (id, email, name, role, handles, disabled, created_at, updated_at, seq)
     VALUES (@id, @email, @name, @role, @handles, @disabled, @at, @at, @seq)
     ON CONFLICT (id) DO UPDATE SET email = excluded.email, name = excluded.name,
       role = excluded.role, handles = excluded.handles, disabled = excluded.disabled,
       updated_at = excluded.updated_at, seq = excluded.seq`,
  );
  const setRole = db.prepare<[string, string, number, string]>(
    'UPDATE people SET role = ?, updated_at = ?, seq = ? WHERE id = ?',
  );
  const deleteUser = db.prepare<[string]>('DELETE FROM people WHERE id = ?');
  const deleteMemberships = db.prepare<[string]>('DELETE FROM team_members WHERE user_id = ?');
  const putTeam = db.prepare<[{ id: string; name: string; at: string; seq: number }]>(
    `INSERT INTO teams (id, name, created_at, updated_at, seq) VALUES (@id, @name, @at, @at, @seq)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at,
       seq = excluded.seq`,
  );
  const clearTeam = db.prepare<[string]>('DELETE FROM team_members WHERE team_id = ?');
  const addMember = db.prepare<[string, string, number]>(
    'INSERT OR REPLACE INTO team_members (team_id, user_id, lead) VALUES (?, ?, ?)',
  );
  const deleteTeam = db.prepare<[string]>('DELETE FROM teams WHERE id = ?');
  const putAccess = db.prepare<[string, string, string, number]>(
    `INSERT OR REPLACE INTO access_settings (id, document, set_by, set_at, seq)
     VALUES (1, ?, ?, ?, ?)`,
  );

  function applyUser(u: Record<string, unknown>, at: string, seq: number): void {
    const role = text(u['role']);
    putUser.run({
      id: text(u['id']),
      email: text(u['email']),
      name: text(u['name']),
      role: ROLES.includes(role) ? role : Role.Viewer,
      handles: canonicalJson(handlesOf(u['handles'])),
      disabled: u['disabled'] === true ? 1 : 0,
      at,
      seq,
    });
  }

  function applyTeam(t: Record<string, unknown>, at: string, seq: number): void {
    const id = text(t['id']);
    putTeam.run({ id, name: text(t['name']), at, seq });
    clearTeam.run(id);
    const leads = new Set(list(t['leads']));
    for (const m of new Set([...list(t['members']), ...leads])) {
      addMember.run(id, m, leads.has(m) ? 1 : 0);
    }
  }

  return {
    userById: (id: string): UserRecord | null => {
      const r = userById.get(id);
      return r === undefined ? null : userOf(r);
    },
    userByEmail: (email: string): UserRecord | null => {
      const r = userByEmail.get(email);
      return r === undefined ? null : userOf(r);
    },
    users: (): UserRecord[] => allUsers.all().map(userOf),
    enabledOwners: (): number => enabledOwners.get()?.n ?? 0,
    teamById: (id: string): Team | null => {
      const r = teamById.get(id);
      return r === undefined ? null : teamOf(r);
    },
    teamByName: (name: string): Team | null => {
      const r = teamByName.get(name);
      return r === undefined ? null : teamOf(r);
    },
    teams: (): Team[] => allTeams.all().map(teamOf),
    /** Names of everyone in some team, for GET /v1/teams. */
    memberNames: (): { id: string; name: string }[] => namesOf.all(),
    isLead: (teamId: string, userId: string): boolean => (isLead.get(teamId, userId)?.n ?? 0) > 0,
    leadsAnyTeam: (userId: string): boolean => (leadsAny.get(userId)?.n ?? 0) > 0,
    access(): AccessRow | null {
      const r = getAccess.get();
      if (r === undefined) return null;
      const d = JSON.parse(r.document) as Partial<AccessSettings>;
      return { settings: { ...DEFAULT_ACCESS, ...d }, set_by: r.set_by, set_at: r.set_at };
    },
    /** Operational: when a person last signed in (no ledger event; not rebuilt). */
    noteSignIn(userId: string, at: string): void {
      noteSignIn.run(userId, at);
    },
    forgetSignIn(userId: string): void {
      forgetSignIn.run(userId);
    },
    projection: projectionOf<PeopleEvents>({
      name: 'people',
      tables: ['people', 'teams', 'team_members', 'access_settings'],
      on: {
        [USER_CREATED]: (d, e) => {
          applyUser((d.user ?? {}) as Record<string, unknown>, e.ts, e.seq);
        },
        [USER_UPDATED]: (d, e) => {
          applyUser((d.user ?? {}) as Record<string, unknown>, e.ts, e.seq);
        },
        [ROLE_CHANGED]: (d, e) => {
          const to = text(d.to);
          if (ROLES.includes(to)) setRole.run(to, e.ts, e.seq, text(d.id));
        },
        [USER_DELETED]: (d) => {
          deleteUser.run(text(d.id));
          deleteMemberships.run(text(d.id));
        },
        [TEAM_CREATED]: (d, e) => {
          applyTeam((d.team ?? {}) as Record<string, unknown>, e.ts, e.seq);
        },
        [TEAM_UPDATED]: (d, e) => {
          applyTeam((d.team ?? {}) as Record<string, unknown>, e.ts, e.seq);
        },
        [TEAM_DELETED]: (d) => {
          clearTeam.run(text(d.id));
          deleteTeam.run(text(d.id));
        },
        [ACCESS_SETTINGS_SET]: (d, e) => {
          putAccess.run(canonicalJson(d.settings ?? {}), e.actor, e.ts, e.seq);
        },
      },
    }),
  };
}
export type PeopleStore = ReturnType<typeof createPeopleStore>;

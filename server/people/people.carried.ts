// The "people" part a keychain home carries (docs/keychain.md): the home's people and teams,
// matched on a member by e-mail and team name, and the ones the home deleted. A member takes
// them as the home has them (role, name, handles, disabled); a person the home deleted is
// disabled there, never deleted (the member's ledger names them). People the home never
// had (the member's own from before it joined, or admitted there by the sign-in rules) stay
// as they are: joining never locks a member's own people out. Passwords are each install's.
import type { DomainLedger } from '../ledger/index.js';
import { Role } from '../shared/roles.js';
import type { Actor } from '../shared/types.js';
import type { Handles, Team } from './people.schemas.js';
import {
  TEAM_CREATED,
  TEAM_DELETED,
  TEAM_UPDATED,
  type PeopleStore,
  type UserRecord,
} from './people.store.js';
import { changedFields, checkEmail, checkHandles, checkName, nameRefusal } from './people.rules.js';
import type { PeopleEvents } from './people.events.js';

export interface CarriedPerson {
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly handles: Handles;
  readonly disabled: boolean;
}

/** A team with its leads and members by e-mail (ids are each install's own). */
export interface CarriedTeam {
  readonly name: string;
  readonly leads: string[];
  readonly members: string[];
}

export interface PeopleDocument {
  readonly people: CarriedPerson[];
  readonly teams: CarriedTeam[];
  /** What the home deleted: people by e-mail, teams by name. */
  readonly removed: { readonly people: string[]; readonly teams: string[] };
}

/** What the people service lends the carrier: its own recording steps. */
export interface CarrierDeps {
  readonly store: PeopleStore;
  readonly ledger: DomainLedger<PeopleEvents>;
  created(
    input: { email: string; name: string; role: Role; handles: Handles },
    actor: Actor,
    extra: Record<string, unknown>,
  ): UserRecord;
  updated(before: UserRecord, next: UserRecord, actor: Actor, extra?: object): void;
  changeRole(u: UserRecord, to: Role, actor: Actor): void;
  endSessionsOf(userId: string): number;
  personChanged(userId: string, actor: Actor): void;
  newTeamId(): string;
}

const ROLES: readonly string[] = Object.values(Role);

function personOf(x: unknown, i: number): CarriedPerson {
  const p = (x ?? {}) as Record<string, unknown>;
  const role = String(p['role']);
  if (!ROLES.includes(role)) throw new Error(`people.${String(i)}.role is not a role`);
  return {
    email: checkEmail(
      typeof p['email'] === 'string' ? p['email'] : '',
      `people.${String(i)}.email`,
    ),
    name: checkName(
      typeof p['name'] === 'string' ? p['name'] : '',
      `people.${String(i)}.name`,
      200,
      true,
    ),
    role: role as Role,
    handles: checkHandles(p['handles'] as Handles | undefined),
    disabled: p['disabled'] === true,
  };
}

const texts = (x: unknown): string[] => (Array.isArray(x) ? x.map(String) : []);

/** The document as it travelled, checked as the API checks a person. */
export function readPeopleDocument(doc: unknown): PeopleDocument {
  const d = (doc ?? {}) as Record<string, unknown>;
  const removed = (d['removed'] ?? {}) as Record<string, unknown>;
  return {
    people: (Array.isArray(d['people']) ? d['people'] : []).map(personOf),
    teams: (Array.isArray(d['teams']) ? d['teams'] : []).map((t: unknown) => {
      const r = (t ?? {}) as Record<string, unknown>;
      return {
        name: checkName(typeof r['name'] === 'string' ? r['name'] : '', 'teams.name', 100, false),
        leads: texts(r['leads']),
        members: texts(r['members']),
      };
    }),
    removed: { people: texts(removed['people']), teams: texts(removed['teams']) },
  };
}

export function createPeopleCarrier(d: CarrierDeps) {
  const { store, ledger } = d;

  /** A carried name another person here holds already is left out (the e-mail shows). */
  const freeName = (name: string, except: string | null): string =>
    nameRefusal(name, store.users(), except) === null ? name : '';

  function takePerson(p: CarriedPerson, actor: Actor): void {
    const u = store.userByEmail(p.email);
    if (u === null) {
      const made = d.created(
        { email: p.email, name: freeName(p.name, null), role: p.role, handles: p.handles },
        actor,
        { via: 'keychain' },
      );
      if (p.disabled) d.updated(made, { ...made, disabled: true }, actor);
      return;
    }
    if (u.role !== p.role) d.changeRole(u, p.role, actor);
    const before = { ...u, role: p.role };
    const next: UserRecord = {
      ...before,
      name: p.name === u.name ? u.name : freeName(p.name, u.id),
      handles: p.handles,
      disabled: p.disabled,
    };
    if (changedFields(before, next).length > 0) {
      const ended = p.disabled && !u.disabled ? d.endSessionsOf(u.id) : 0;
      d.updated(before, next, actor, ended > 0 ? { ended_sessions: ended } : {});
    }
    if (u.role !== p.role || u.disabled !== p.disabled) d.personChanged(u.id, actor);
  }

  function disableRemoved(email: string, actor: Actor): void {
    const u = store.userByEmail(email);
    if (u === null || u.disabled) return;
    const ended = d.endSessionsOf(u.id);
    d.updated(u, { ...u, disabled: true }, actor, ended > 0 ? { ended_sessions: ended } : {});
    d.personChanged(u.id, actor);
  }

  /** A carried team's leads and members as this install's ids (people it lacks left out). */
  function idsOf(t: CarriedTeam): { leads: string[]; members: string[] } {
    const ids = (emails: readonly string[]) =>
      emails.flatMap((e) => store.userByEmail(e)?.id ?? []);
    const leads = [...new Set(ids(t.leads))].sort();
    return { leads, members: [...new Set([...ids(t.members), ...leads])].sort() };
  }

  /** Whether a team here has exactly these leads and members. */
  const sameTeam = (team: Team, ids: { leads: string[]; members: string[] }): boolean =>
    [...team.leads].sort().join() === ids.leads.join() &&
    [...team.members].sort().join() === ids.members.join();

  function takeTeam(t: CarriedTeam, actor: Actor): void {
    const ids = idsOf(t);
    const before: Team | null = store.teamByName(t.name);
    if (before !== null && sameTeam(before, ids)) return;
    const team = { id: before?.id ?? d.newTeamId(), name: t.name, ...ids };
    ledger.append({
      type: before === null ? TEAM_CREATED : TEAM_UPDATED,
      actor: actor.name,
      data: { team },
    });
  }

  return {
    /** The people part as this install (a home) has it. */
    document(removed: { people: string[]; teams: string[] }): PeopleDocument {
      const users = store.users();
      const emailOf = new Map(users.map((u) => [u.id, u.email]));
      const emails = (ids: readonly string[]) => ids.flatMap((id) => emailOf.get(id) ?? []).sort();
      const here = new Set(users.map((u) => u.email));
      const teams = store.teams();
      const teamNames = new Set(teams.map((t) => t.name));
      return {
        people: users
          .map((u) => ({
            email: u.email,
            name: u.name,
            role: u.role,
            handles: u.handles,
            disabled: u.disabled,
          }))
          .sort((a, b) => a.email.localeCompare(b.email)),
        teams: teams
          .map((t) => ({ name: t.name, leads: emails(t.leads), members: emails(t.members) }))
          .sort((a, b) => a.name.localeCompare(b.name)),
        removed: {
          people: [...new Set(removed.people)].filter((e) => !here.has(e)).sort(),
          teams: [...new Set(removed.teams)].filter((n) => !teamNames.has(n)).sort(),
        },
      };
    },

    /**
     * Whether this install holds the home's people and teams already: its own people (and a
     * carried name left out because someone here holds it) do not count as a difference.
     */
    holds(doc: unknown): boolean {
      let carried: PeopleDocument;
      try {
        carried = readPeopleDocument(doc);
      } catch {
        return false;
      }
      const kept = new Set(carried.people.map((p) => p.email));
      return (
        carried.people.every((p) => {
          const u = store.userByEmail(p.email);
          return (
            u !== null &&
            u.role === p.role &&
            u.disabled === p.disabled &&
            (u.name === p.name || (u.name === '' && freeName(p.name, u.id) === '')) &&
            changedFields(u, { ...u, handles: p.handles }).length === 0
          );
        }) &&
        carried.removed.people.every(
          (e) => kept.has(e) || (store.userByEmail(e)?.disabled ?? true),
        ) &&
        carried.teams.every((t) => {
          const team = store.teamByName(t.name);
          return team !== null && sameTeam(team, idsOf(t));
        }) &&
        carried.removed.teams.every(
          (n) => carried.teams.some((t) => t.name === n) || store.teamByName(n) === null,
        )
      );
    },

    /**
     * Inside a writer job: take the home's people and teams. Throws, so that nothing is
     * taken, when the result would leave this install with no enabled owner.
     */
    apply(doc: unknown, actorName: string): void {
      const carried = readPeopleDocument(doc);
      const actor: Actor = { name: actorName };
      const owners = store.enabledOwners();
      const kept = new Set(carried.people.map((p) => p.email));
      for (const p of carried.people) takePerson(p, actor);
      for (const email of carried.removed.people)
        if (!kept.has(email)) disableRemoved(email, actor);
      for (const t of carried.teams) takeTeam(t, actor);
      const keptTeams = new Set(carried.teams.map((t) => t.name));
      for (const name of carried.removed.teams) {
        const team = keptTeams.has(name) ? null : store.teamByName(name);
        if (team !== null)
          ledger.append({ type: TEAM_DELETED, actor: actorName, data: { id: team.id, name } });
      }
      if (owners > 0 && store.enabledOwners() === 0)
        throw new Error("the home's people would leave this install without an enabled owner");
    },
  };
}

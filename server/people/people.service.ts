// People, teams and who may sign in. Every change is an access.* ledger event (projected
// into the people tables in the same transaction); a role change, a disable or a delete
// reaches the person's open sessions at once.
import { randomBytes } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError, ForbiddenError, NotFoundError, refuseIfCarried } from '../shared/errors.js';
import { roleAtLeast, Role } from '../shared/roles.js';
import type { Actor } from '../shared/types.js';
import {
  DEFAULT_ACCESS,
  type AccessSettings,
  type AccessSettingsInput,
  type AccessSettingsView,
  type Handles,
  type MeChange,
  type Team,
  type TeamChange,
  type TeamCreate,
  type User,
  type UserChange,
  type UserCreate,
} from './people.schemas.js';
import {
  ACCESS_SETTINGS_SET,
  ROLE_CHANGED,
  TEAM_CREATED,
  TEAM_DELETED,
  TEAM_UPDATED,
  USER_CREATED,
  USER_DELETED,
  USER_UPDATED,
  type PeopleStore,
  type UserRecord,
} from './people.store.js';
import {
  changeHandles,
  changedFields,
  checkAccess,
  checkEmail,
  checkHandles,
  checkName,
  refusalOf,
  checkNameFree,
  nameRefusal,
  invalid,
  unique,
} from './people.rules.js';
import type { PeopleEvents } from './people.events.js';
import { createPeopleCarrier } from './people.carried.js';

/** How someone proved who they are when admitted (the contract's `via`). */
export type AdmitVia = 'code' | 'password' | 'ldap' | 'sso';

export interface AdmitIdentity {
  readonly email: string;
  readonly name?: string;
  readonly groups?: readonly string[];
  readonly via: AdmitVia;
}

/** Who a session is for (the shape of sessions.signIn's first argument). */
export interface PersonIdentity {
  readonly userId: string;
  readonly name: string;
  readonly role: Role;
}

/** Who is asking: the actor the ledger records, the role they hold, and their person id. */
export interface Caller {
  readonly actor: Actor;
  readonly role: Role;
  /** null for the admin token and the first owner's session (no person). */
  readonly userId: string | null;
}

/** What people needs of the sessions: run inside the writer job of the change. */
export interface SessionControl {
  /** End every open session of a person; returns how many ended. */
  endSessionsOf(userId: string, why: 'disabled' | 'deleted'): number;
  /** A person's new name and role hold for their open sessions from the next request. */
  updateSessionsOf(userId: string, who: { name: string; role: Role }): number;
}

interface Deps {
  readonly store: PeopleStore;
  readonly ledger: DomainLedger<PeopleEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly sessions?: SessionControl;
  /** The sign-in domain's: whether a person has a password (User.password_set). */
  readonly hasPassword?: (userId: string) => boolean;
  /** The sign-in domain's: set a person's password (PUT /v1/me {password}). */
  /** `keepToken`: the caller's session, which stays; the person's others end. */
  readonly setPassword?: (
    userId: string,
    password: string,
    current?: string,
    keepToken?: string | null,
  ) => Promise<void>;
  /**
   * Inside the writer job that disabled, demoted or deleted a person (approvals withdraw
   * the pending requests whose approval by them no longer stands).
   */
  readonly personChanged?: (userId: string, actor: Actor) => void;
  /** Where who may sign in is changed when a keychain home carries sign-in here, or null. */
  readonly signinCarriedBy?: () => string | null;
  /** Where people and teams are changed when a keychain home carries them here, or null. */
  readonly peopleCarriedBy?: () => string | null;
}

const newUserId = (): string => `usr-${randomBytes(8).toString('hex')}`;
const newTeamId = (): string => `team-${randomBytes(8).toString('hex')}`;
const via = (actor: Actor): Record<string, string> =>
  actor.via === undefined ? {} : { via: actor.via };

/** What an event records of a person (everything the projection needs). */
const userData = (u: {
  id: string;
  email: string;
  name: string;
  role: Role;
  handles: Handles;
  disabled: boolean;
}) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  handles: u.handles,
  disabled: u.disabled,
});

export function createPeopleService({
  store,
  ledger,
  writer,
  clock,
  sessions,
  hasPassword,
  setPassword,
  personChanged,
  signinCarriedBy,
  peopleCarriedBy,
}: Deps) {
  const view = (u: UserRecord): User => ({ ...u, password_set: hasPassword?.(u.id) ?? false });

  function mustUser(id: string): UserRecord {
    const u = store.userById(id);
    if (u === null) throw new NotFoundError('not_found', `no person ${id}`);
    return u;
  }

  function accessSettings(): AccessSettings {
    return store.access()?.settings ?? DEFAULT_ACCESS;
  }

  function accessView(): AccessSettingsView {
    const row = store.access();
    return {
      ...(row?.settings ?? DEFAULT_ACCESS),
      set_by: row?.set_by ?? null,
      set_at: row?.set_at ?? null,
    };
  }

  /** Changing a person needs the caller's role to be at least theirs and the one granted. */
  function mayTouch(caller: Caller, target: Role, granted?: Role): void {
    for (const needed of [target, granted]) {
      if (needed !== undefined && !roleAtLeast(caller.role, needed)) {
        throw new ForbiddenError(
          'role_required',
          needed === Role.Owner
            ? 'this call needs the owner role: only an owner may make, change or remove an owner'
            : `this call needs the ${needed} role`,
          { role: needed },
        );
      }
    }
  }

  function notLastOwner(u: UserRecord, what: string): void {
    if (u.role === Role.Owner && !u.disabled && store.enabledOwners() <= 1) {
      throw new ConflictError(
        'last_owner',
        `${u.email} is the last owner and cannot be ${what}; make someone else owner first`,
        { why: 'last_owner' },
      );
    }
  }

  /** Unique and unreserved (people.rules checkNameFree): approvals tell people apart. */
  const nameFree = (name: string, except: string | null): void => {
    checkNameFree(name, store.users(), except);
  };

  /** A name from a directory or SSO at sign-in: dropped (the e-mail shows) when not free. */
  function admittedName(name: string, except: string | null): string {
    return nameRefusal(name, store.users(), except) === null ? name : '';
  }

  function emailFree(email: string, except: string | null): void {
    const other = store.userByEmail(email);
    if (other !== null && other.id !== except) {
      throw new ConflictError('email_taken', `${email} belongs to someone already`, {
        why: 'email_taken',
        field: 'email',
      });
    }
  }

  function mayManageTeam(caller: Caller, id: string, team: Team | null): void {
    if (roleAtLeast(caller.role, Role.Admin)) return;
    if (caller.userId !== null && team !== null && store.isLead(id, caller.userId)) return;
    throw new ForbiddenError(
      'role_required',
      `this call needs admin or a lead of team ${team?.name ?? id}`,
      { role: Role.Admin },
    );
  }

  function checkMembers(field: 'leads' | 'members', xs: readonly string[]): string[] {
    const out = unique(xs);
    for (const id of out) {
      if (store.userById(id) === null) invalid(field, `${field} names ${id}, who is not a person`);
    }
    return out;
  }

  function teamName(value: string, except: string | null): string {
    const name = checkName(value, 'name', 100, false);
    const other = store.teamByName(name);
    if (other !== null && other.id !== except) {
      throw new ConflictError('name_taken', `there is a team named ${other.name} already`, {
        why: 'name_taken',
        field: 'name',
      });
    }
    return name;
  }

  function created(
    input: { email: string; name: string; role: Role; handles: Handles },
    actor: Actor,
    extra: Record<string, unknown>,
  ): UserRecord {
    const u = { id: newUserId(), ...input, disabled: false };
    ledger.append({
      type: USER_CREATED,
      actor: actor.name,
      data: { user: userData(u), ...via(actor), ...extra },
    });
    return mustUser(u.id);
  }

  /** Inside a job: record a new role, and apply it to the person's open sessions. */
  function changeRole(u: UserRecord, to: Role, actor: Actor): void {
    const moved = sessions?.updateSessionsOf(u.id, { name: u.name || u.email, role: to }) ?? 0;
    ledger.append({
      type: ROLE_CHANGED,
      actor: actor.name,
      data: { id: u.id, email: u.email, from: u.role, to, sessions: moved, ...via(actor) },
    });
  }

  function updated(u: UserRecord, next: UserRecord, actor: Actor, extra = {}): void {
    ledger.append({
      type: USER_UPDATED,
      actor: actor.name,
      data: { user: userData(next), changed: changedFields(u, next), ...via(actor), ...extra },
    });
  }

  const carrier = createPeopleCarrier({
    store,
    ledger,
    created,
    updated,
    changeRole,
    endSessionsOf: (id) => sessions?.endSessionsOf(id, 'disabled') ?? 0,
    personChanged: (id, actor) => personChanged?.(id, actor),
    newTeamId,
  });
  const refuseCarried = (): void => {
    refuseIfCarried(peopleCarriedBy?.() ?? null, 'people', 'people and teams are');
  };

  return {
    /** The people part as a keychain home carries it (people.carried.ts). */
    document: (removed: { people: string[]; teams: string[] }) => carrier.document(removed),
    /** Inside a writer job: take the people part a keychain home carried. */
    applyCarried: (doc: unknown, actor: string): void => {
      carrier.apply(doc, actor);
    },
    /** Whether this install holds the people part a keychain home carries already. */
    holdsCarried: (doc: unknown): boolean => carrier.holds(doc),

    byId: (id: string): User | null => {
      const u = store.userById(id);
      return u === null ? null : view(u);
    },
    byEmail: (email: string): User | null => {
      const u = store.userByEmail(email.trim().toLowerCase());
      return u === null ? null : view(u);
    },
    /** What sessions.signIn takes for a person. */
    identity: (user: Pick<User, 'id' | 'name' | 'email' | 'role'>): PersonIdentity => ({
      userId: user.id,
      name: user.name === '' ? user.email : user.name,
      role: user.role,
    }),
    /** For GET /v1/me: what a person's session adds to the answer; null for no person. */
    profile: (userId: string): { email: string; handles: Handles; teams: string[] } | null => {
      const u = store.userById(userId);
      return u === null ? null : { email: u.email, handles: u.handles, teams: u.teams };
    },

    /**
     * A person who proved their e-mail (code, password), directory or SSO identity: a known,
     * enabled person as they are; an unknown one created with the default role when the
     * access settings allow them; anyone else refused (403 without a role).
     */
    /**
     * Whether someone unknown would be admitted, without creating them: null when they would
     * be, else why not. A code request asks this, so nobody is created before the mailbox
     * is proven.
     */
    mayAdmit(who: AdmitIdentity): string | null {
      const email = checkEmail(who.email);
      const known = store.userByEmail(email);
      if (known !== null) return known.disabled ? 'account_disabled' : null;
      return refusalOf(email, who, accessSettings()) === null ? null : 'sign_in_not_allowed';
    },

    async admit(who: AdmitIdentity, actor: Actor = { name: 'system' }): Promise<User> {
      const email = checkEmail(who.email);
      const name = who.name === undefined ? '' : checkName(who.name, 'name', 200, true);
      const u = await writer.transact((): UserRecord => {
        const known = store.userByEmail(email);
        if (known !== null) {
          if (known.disabled) {
            throw new ForbiddenError(
              'account_disabled',
              `${email} is disabled and may not sign in; ask an admin`,
            );
          }
          if (known.name !== '' || admittedName(name, known.id) === '') return known;
          const next = { ...known, name };
          updated(known, next, actor, { via: who.via });
          sessions?.updateSessionsOf(known.id, { name, role: known.role });
          return mustUser(known.id);
        }
        const access = accessSettings();
        const why = refusalOf(email, who, access);
        if (why !== null) {
          throw new ForbiddenError('sign_in_not_allowed', `${email} may not sign in: ${why}`);
        }
        return created(
          { email, name: admittedName(name, null), role: access.default_role, handles: {} },
          actor,
          { via: who.via },
        );
      });
      return view(u);
    },

    /**
     * Break-glass (POST /v1/auth/bootstrap): this person, created if need be, enabled and
     * owner. The caller records system.bootstrap.
     */
    async bootstrapOwner(input: { email: string; name?: string }, actor: Actor): Promise<User> {
      const email = checkEmail(input.email);
      const name = input.name === undefined ? '' : checkName(input.name, 'name', 200, true);
      const u = await writer.transact((): UserRecord => {
        const known = store.userByEmail(email);
        nameFree(name, known?.id ?? null);
        if (known === null) {
          return created({ email, name, role: Role.Owner, handles: {} }, actor, {
            via: 'bootstrap',
          });
        }
        if (known.role !== Role.Owner) changeRole(known, Role.Owner, actor);
        const now = mustUser(known.id);
        if (now.disabled || (name !== '' && name !== now.name)) {
          updated(now, { ...now, disabled: false, name: name === '' ? now.name : name }, actor, {
            via: 'bootstrap',
          });
        }
        return mustUser(known.id);
      });
      return view(u);
    },

    /** When a person last signed in (no ledger event: the session records auth.signed_in). */
    async noteSignIn(userId: string): Promise<void> {
      await writer.transact(() => {
        if (store.userById(userId) !== null) store.noteSignIn(userId, clock.nowIso());
      });
    },

    /** GET /v1/users */
    list: (): User[] => store.users().map(view),

    /** POST /v1/users */
    async create(input: Omit<UserCreate, 'by'>, caller: Caller): Promise<User> {
      refuseCarried();
      const email = checkEmail(input.email);
      const name = checkName(input.name ?? '', 'name', 200, true);
      const role = input.role ?? accessSettings().default_role;
      const handles = checkHandles(input.handles);
      mayTouch(caller, Role.Viewer, role);
      const u = await writer.transact(() => {
        emailFree(email, null);
        nameFree(name, null);
        return created({ email, name, role, handles }, caller.actor, {});
      });
      return view(u);
    },

    /** PUT /v1/users/<id>: the fields given change; role and disabled reach sessions at once. */
    async update(id: string, change: Omit<UserChange, 'by'>, caller: Caller): Promise<User> {
      refuseCarried();
      const email = change.email === undefined ? undefined : checkEmail(change.email);
      const name =
        change.name === undefined ? undefined : checkName(change.name, 'name', 200, true);
      const u = await writer.transact((): UserRecord => {
        const before = mustUser(id);
        mayTouch(caller, before.role, change.role);
        if (email !== undefined) emailFree(email, id);
        if (name !== undefined) nameFree(name, id);
        const handles =
          change.handles === undefined
            ? before.handles
            : changeHandles(before.handles, change.handles);
        const role = change.role ?? before.role;
        const disabled = change.disabled ?? before.disabled;
        if (before.role === Role.Owner && role !== Role.Owner) notLastOwner(before, 'demoted');
        if (disabled && !before.disabled) notLastOwner(before, 'disabled');
        if (role !== before.role) changeRole(before, role, caller.actor);
        const next: UserRecord = {
          ...before,
          role,
          email: email ?? before.email,
          name: name ?? before.name,
          handles,
          disabled,
        };
        const changed = changedFields({ ...before, role }, next);
        if (changed.length > 0) {
          let ended = 0;
          if (disabled && !before.disabled) ended = sessions?.endSessionsOf(id, 'disabled') ?? 0;
          updated(
            { ...before, role },
            next,
            caller.actor,
            ended > 0 ? { ended_sessions: ended } : {},
          );
          if (!disabled && next.name !== before.name) {
            sessions?.updateSessionsOf(id, { name: next.name || next.email, role });
          }
        }
        if (role !== before.role || disabled !== before.disabled) personChanged?.(id, caller.actor);
        return mustUser(id);
      });
      return view(u);
    },

    /** DELETE /v1/users/<id>: the person, their team places and their sessions go. */
    async remove(
      id: string,
      caller: Caller,
    ): Promise<{ deleted: true; id: string; ended_sessions: number }> {
      refuseCarried();
      return writer.transact(() => {
        const before = mustUser(id);
        mayTouch(caller, before.role);
        notLastOwner(before, 'deleted');
        const ended = sessions?.endSessionsOf(id, 'deleted') ?? 0;
        ledger.append({
          type: USER_DELETED,
          actor: caller.actor.name,
          data: { id, email: before.email, ended_sessions: ended, ...via(caller.actor) },
        });
        store.forgetSignIn(id);
        personChanged?.(id, caller.actor);
        return { deleted: true as const, id, ended_sessions: ended };
      });
    },

    /** PUT /v1/me: a person's own name, handles and password (never their role). */
    async updateMe(
      userId: string,
      change: MeChange,
      actor: Actor,
      keepToken: string | null = null,
    ): Promise<User> {
      const name =
        change.name === undefined ? undefined : checkName(change.name, 'name', 200, true);
      if (change.current_password !== undefined && change.password === undefined) {
        invalid('password', 'password is required with current_password');
      }
      if (change.password !== undefined && setPassword === undefined) {
        invalid('password', 'passwords cannot be set on this server');
      }
      const before = store.userById(userId);
      if (before === null) {
        throw new ConflictError(
          'not_a_person',
          'this sign-in is not a person (the admin token or the first owner): nothing to change',
          { why: 'not_a_person' },
        );
      }
      const handles =
        change.handles === undefined
          ? before.handles
          : changeHandles(before.handles, change.handles);
      // A name that is not free refuses the whole change, the password included.
      if (name !== undefined && name !== before.name) nameFree(name, userId);
      // The password first: a wrong current password changes nothing.
      if (change.password !== undefined && setPassword !== undefined) {
        await setPassword(userId, change.password, change.current_password, keepToken);
      }
      const u = await writer.transact((): UserRecord => {
        const now = store.userById(userId);
        if (now === null) throw new NotFoundError('not_found', `no person ${userId}`);
        if (name !== undefined && name !== now.name) nameFree(name, userId);
        const next = { ...now, name: name ?? now.name, handles };
        if (changedFields(now, next).length > 0) {
          updated(now, next, actor);
          if (next.name !== now.name) {
            sessions?.updateSessionsOf(userId, { name: next.name || next.email, role: now.role });
          }
        }
        return mustUser(userId);
      });
      return view(u);
    },

    /** GET /v1/teams: teams, and the names of their people. */
    teams: (): { teams: Team[]; people: { id: string; name: string }[] } => ({
      teams: store.teams(),
      people: store.memberNames(),
    }),

    /** POST /v1/teams: an admin, or someone who leads a team (made a lead of the new one). */
    async createTeam(input: Omit<TeamCreate, 'by'>, caller: Caller): Promise<Team> {
      refuseCarried();
      return writer.transact(() => {
        const admin = roleAtLeast(caller.role, Role.Admin);
        if (!admin && (caller.userId === null || !store.leadsAnyTeam(caller.userId))) {
          throw new ForbiddenError('role_required', 'this call needs admin or a lead of a team', {
            role: Role.Admin,
          });
        }
        const name = teamName(input.name, null);
        const leads = checkMembers('leads', [
          ...(input.leads ?? []),
          ...(admin || caller.userId === null ? [] : [caller.userId]),
        ]);
        const members = unique([...checkMembers('members', input.members ?? []), ...leads]);
        const team = { id: newTeamId(), name, leads, members };
        ledger.append({
          type: TEAM_CREATED,
          actor: caller.actor.name,
          data: { team, ...via(caller.actor) },
        });
        const made = store.teamById(team.id);
        if (made === null) throw new Error('the team projection did not apply');
        return made;
      });
    },

    /** PUT /v1/teams/<id>: an admin or a lead of that team; given fields replace. */
    async updateTeam(id: string, change: Omit<TeamChange, 'by'>, caller: Caller): Promise<Team> {
      refuseCarried();
      return writer.transact(() => {
        const before = store.teamById(id);
        mayManageTeam(caller, id, before);
        if (before === null) throw new NotFoundError('not_found', `no team ${id}`);
        const name = change.name === undefined ? before.name : teamName(change.name, id);
        const leads =
          change.leads === undefined ? before.leads : checkMembers('leads', change.leads);
        const members = unique([
          ...(change.members === undefined
            ? before.members
            : checkMembers('members', change.members)),
          ...leads,
        ]).sort();
        const team = { id, name, leads: [...leads].sort(), members };
        if (
          name !== before.name ||
          team.leads.join() !== before.leads.join() ||
          members.join() !== before.members.join()
        ) {
          ledger.append({
            type: TEAM_UPDATED,
            actor: caller.actor.name,
            data: { team, ...via(caller.actor) },
          });
        }
        return store.teamById(id) ?? before;
      });
    },

    /** DELETE /v1/teams/<id>: an admin or a lead of that team. */
    async deleteTeam(id: string, caller: Caller): Promise<{ deleted: true; id: string }> {
      refuseCarried();
      return writer.transact(() => {
        const before = store.teamById(id);
        mayManageTeam(caller, id, before);
        if (before === null) throw new NotFoundError('not_found', `no team ${id}`);
        ledger.append({
          type: TEAM_DELETED,
          actor: caller.actor.name,
          data: { id, name: before.name, ...via(caller.actor) },
        });
        return { deleted: true as const, id };
      });
    },

    /** GET /v1/settings/access */
    access: accessView,

    /** PUT /v1/settings/access: replace the document; missing fields take their defaults. */
    async setAccess(
      input: Omit<AccessSettingsInput, 'by'>,
      caller: Caller,
    ): Promise<AccessSettingsView> {
      refuseIfCarried(signinCarriedBy?.() ?? null, 'signin', 'who may sign in is');
      const settings = checkAccess(input);
      await writer.transact(() =>
        ledger.append({
          type: ACCESS_SETTINGS_SET,
          actor: caller.actor.name,
          data: { settings, ...via(caller.actor) },
        }),
      );
      return accessView();
    },

    /** Who may sign in, as a keychain home carries it (part of "signin"), or null: never set. */
    accessDocument: (): AccessSettings | null => store.access()?.settings ?? null,

    /** Inside a writer job: take who may sign in as a keychain home carried it. */
    applyCarriedAccess(doc: unknown, actor: string): void {
      if (doc === null) return; // never set on the home: this install keeps its own
      const settings = checkAccess(doc as Omit<AccessSettingsInput, 'by'>);
      ledger.append({ type: ACCESS_SETTINGS_SET, actor, data: { settings } });
    },
  };
}
export type PeopleService = ReturnType<typeof createPeopleService>;

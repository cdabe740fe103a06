// People and teams (docs/people.md). People (admin): the list with role, teams, disabled and
// last sign-in; add a person; change name, role, handles, disabled; delete after a
// confirmation. Teams (every role reads them): create, rename, members and leads (admin or a
// lead of the team), delete. Drafts live in the editors, so a refetch never replaces what is
// being typed; 403 names the role needed, 409 says why (the last owner, a name taken).
import { peopleKeys, useMe } from './queries.js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import {
  HANDLE_KINDS,
  type HandleKind,
  type Handles,
  type HandlesInput,
  type Person,
  type Team,
  peopleApi,
} from './api.js';
import { ApiError, ROLES, type Role, roleAtLeast } from '../../shared/api.js';
import { Refusal } from '../../shared/http.js';
import { Empty, Link, Time } from '../../shared/parts.js';
import './people.css';

export const usersKey = ['users'] as const;
export const teamsKey = ['teams'] as const;

const HANDLE_TITLES: Record<HandleKind, string> = {
  slack: 'Slack',
  mattermost: 'Mattermost',
  teams: 'Teams',
  phone: 'Phone',
};

/** Handles as a change: emptied ones are removed (null), unchanged ones left out. */
function handlesChange(before: Handles, after: Record<HandleKind, string>): HandlesInput {
  const change: HandlesInput = {};
  for (const k of HANDLE_KINDS) {
    const v = after[k].trim();
    if (v === (before[k] ?? '')) continue;
    change[k] = v === '' ? null : v;
  }
  return change;
}

const handlesDraft = (h: Handles): Record<HandleKind, string> => ({
  slack: h.slack ?? '',
  mattermost: h.mattermost ?? '',
  teams: h.teams ?? '',
  phone: h.phone ?? '',
});

export function HandleFields({
  idPrefix,
  value,
  disabled,
  onChange,
}: {
  idPrefix: string;
  value: Record<HandleKind, string>;
  disabled: boolean;
  onChange: (v: Record<HandleKind, string>) => void;
}) {
  return (
    <fieldset>
      <legend>Handles</legend>
      <div className="filters">
        {HANDLE_KINDS.map((k) => (
          <label key={k}>
            {HANDLE_TITLES[k]}
            <input
              id={`${idPrefix}-handles-${k}`}
              value={value[k]}
              maxLength={200}
              disabled={disabled}
              onChange={(e) => {
                onChange({ ...value, [k]: e.target.value });
              }}
            />
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** Roles the caller may grant, the others disabled with the reason. */
function RoleOptions({ myRole }: { myRole: string | undefined }) {
  return (
    <>
      {ROLES.map((r) => {
        const allowed = roleAtLeast(myRole, r);
        return (
          <option key={r} value={r} disabled={!allowed}>
            {r}
            {allowed ? '' : ' (needs an owner)'}
          </option>
        );
      })}
    </>
  );
}

function AddPerson({ myRole }: { myRole: string | undefined }) {
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role | ''>('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [added, setAdded] = useState<Person | null>(null);
  return (
    <form
      className="settings-form inline-form"
      aria-label="Add a person"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setAdded(null);
        peopleApi
          .create({
            email: email.trim(),
            ...(name.trim() !== '' && { name: name.trim() }),
            ...(role !== '' && { role }),
          })
          .then((p) => {
            setAdded(p);
            setEmail('');
            setName('');
            setRole('');
            void qc.invalidateQueries({ queryKey: usersKey });
          })
          .catch((err: unknown) => {
            setError(err);
          })
          .finally(() => {
            setBusy(false);
          });
      }}
    >
      <h2>Add a person</h2>
      <div className="filters">
        <label className="grow">
          E-mail address
          <input
            id="add-person-email"
            type="email"
            value={email}
            required
            maxLength={254}
            aria-invalid={(error instanceof ApiError && error.field === 'email') || undefined}
            onChange={(e) => {
              setEmail(e.target.value);
            }}
          />
        </label>
        <label className="grow">
          Name
          <input
            id="add-person-name"
            value={name}
            maxLength={200}
            onChange={(e) => {
              setName(e.target.value);
            }}
          />
        </label>
        <label>
          Role
          <select
            id="add-person-role"
            value={role}
            onChange={(e) => {
              setRole(e.target.value as Role | '');
            }}
          >
            <option value="">the default role</option>
            <RoleOptions myRole={myRole} />
          </select>
        </label>
        <button type="submit" className="primary" disabled={busy || email.trim() === ''}>
          {busy ? 'Adding…' : 'Add'}
        </button>
      </div>
      {added !== null && (
        <p className="ok" role="status">
          ✓ Added {added.email} as {added.role}.
        </p>
      )}
      <Refusal error={error} />
    </form>
  );
}

function PersonEditor({
  person,
  myRole,
  onDone,
}: {
  person: Person;
  myRole: string | undefined;
  onDone: () => void;
}) {
  const qc = useQueryClient();
  const [name, setName] = useState(person.name);
  const [role, setRole] = useState<Role>(person.role);
  const [handles, setHandles] = useState(() => handlesDraft(person.handles));
  const [disabled, setDisabled] = useState(person.disabled);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const prefix = `person-${person.id}`;
  return (
    <form
      className="settings-form person-editor"
      aria-label={`Change ${person.email}`}
      onSubmit={(e) => {
        e.preventDefault();
        const change = {
          ...(name !== person.name && { name }),
          ...(role !== person.role && { role }),
          ...(disabled !== person.disabled && { disabled }),
          handles: handlesChange(person.handles, handles),
        };
        setBusy(true);
        setError(null);
        peopleApi
          .update(person.id, change)
          .then(() => {
            void qc.invalidateQueries({ queryKey: usersKey });
            void qc.invalidateQueries({ queryKey: peopleKeys.me });
            onDone();
          })
          .catch((err: unknown) => {
            setError(err);
          })
          .finally(() => {
            setBusy(false);
          });
      }}
    >
      <div className="filters">
        <label className="grow">
          Name
          <input
            id={`${prefix}-name`}
            value={name}
            maxLength={200}
            onChange={(e) => {
              setName(e.target.value);
            }}
          />
        </label>
        <label>
          Role
          <select
            id={`${prefix}-role`}
            value={role}
            onChange={(e) => {
              setRole(e.target.value as Role);
            }}
          >
            <RoleOptions myRole={myRole} />
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={disabled}
            onChange={(e) => {
              setDisabled(e.target.checked);
            }}
          />{' '}
          Disabled (ends their sessions)
        </label>
      </div>
      <HandleFields idPrefix={prefix} value={handles} disabled={busy} onChange={setHandles} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="quiet" onClick={onDone}>
          Cancel
        </button>
      </div>
      <Refusal error={error} />
    </form>
  );
}

function DeletePerson({ person }: { person: Person }) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!confirming)
    return (
      <>
        <button
          type="button"
          onClick={() => {
            setConfirming(true);
            setError(null);
          }}
        >
          Delete<span className="visually-hidden"> {person.email}</span>
        </button>
        <Refusal error={error} />
      </>
    );
  return (
    <span className="confirm" role="group" aria-label={`Delete ${person.email}?`}>
      Delete {person.email}? Their sessions end.{' '}
      <button
        type="button"
        className="danger"
        disabled={busy}
        autoFocus
        onClick={() => {
          setBusy(true);
          peopleApi
            .remove(person.id)
            .then(() => {
              void qc.invalidateQueries({ queryKey: usersKey });
              void qc.invalidateQueries({ queryKey: teamsKey });
            })
            .catch((err: unknown) => {
              setError(err);
              setConfirming(false);
            })
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        Yes, delete
      </button>{' '}
      <button
        type="button"
        className="quiet"
        onClick={() => {
          setConfirming(false);
        }}
      >
        Keep
      </button>
    </span>
  );
}

function PeopleTable({
  people,
  teamNames,
  myRole,
}: {
  people: Person[];
  teamNames: Map<string, string>;
  myRole: string | undefined;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  if (people.length === 0) return <Empty>Nobody has been added yet.</Empty>;
  return (
    <table className="table people">
      <thead>
        <tr>
          <th>E-mail</th>
          <th>Name</th>
          <th>Role</th>
          <th>Teams</th>
          <th>State</th>
          <th>Last sign-in</th>
          <th>
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {people.map((p) => {
          const ownerOnly = p.role === 'owner' && !roleAtLeast(myRole, 'owner');
          return [
            <tr key={p.id} className={p.disabled ? 'disabled-row' : undefined}>
              <td>{p.email}</td>
              <td>{p.name === '' ? <span className="muted">—</span> : p.name}</td>
              <td>{p.role}</td>
              <td>{p.teams.map((t) => teamNames.get(t) ?? t).join(', ') || '—'}</td>
              <td>
                {p.disabled ? <span className="badge warn">⏸ disabled</span> : '✓ enabled'}
                {p.password_set && <span className="muted"> · password</span>}
              </td>
              <td>{p.last_sign_in_at === null ? 'never' : <Time iso={p.last_sign_in_at} />}</td>
              <td className="row-actions">
                <button
                  type="button"
                  aria-expanded={editing === p.id}
                  disabled={ownerOnly}
                  title={ownerOnly ? 'Only an owner can change an owner' : undefined}
                  onClick={() => {
                    setEditing(editing === p.id ? null : p.id);
                  }}
                >
                  Change<span className="visually-hidden"> {p.email}</span>
                </button>{' '}
                {ownerOnly ? (
                  <button type="button" disabled title="Only an owner can delete an owner">
                    Delete<span className="visually-hidden"> {p.email}</span>
                  </button>
                ) : (
                  <DeletePerson person={p} />
                )}
              </td>
            </tr>,
            editing === p.id && (
              <tr key={`${p.id}-edit`} className="editor-row">
                <td colSpan={7}>
                  <PersonEditor
                    person={p}
                    myRole={myRole}
                    onDone={() => {
                      setEditing(null);
                    }}
                  />
                </td>
              </tr>
            ),
          ];
        })}
      </tbody>
    </table>
  );
}

function MemberPicker({
  legend,
  choices,
  picked,
  disabled,
  onChange,
}: {
  legend: string;
  choices: { id: string; name: string }[];
  picked: string[];
  disabled: boolean;
  onChange: (ids: string[]) => void;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {choices.length === 0 ? (
        <span className="muted">Nobody to choose from.</span>
      ) : (
        <div className="choices">
          {choices.map((c) => (
            <label key={c.id} className="inline">
              <input
                type="checkbox"
                checked={picked.includes(c.id)}
                disabled={disabled}
                onChange={(e) => {
                  onChange(
                    e.target.checked ? [...picked, c.id] : picked.filter((id) => id !== c.id),
                  );
                }}
              />{' '}
              {c.name}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

function TeamForm({
  team,
  choices,
  onDone,
}: {
  team: Team | null;
  choices: { id: string; name: string }[];
  onDone: () => void;
}) {
  const qc = useQueryClient();
  const [name, setName] = useState(team?.name ?? '');
  const [leads, setLeads] = useState<string[]>(team?.leads ?? []);
  const [members, setMembers] = useState<string[]>(team?.members ?? []);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const title = team === null ? 'New team' : `Change team ${team.name}`;
  return (
    <form
      className="settings-form"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        const body = { name: name.trim(), leads, members: [...new Set([...members, ...leads])] };
        (team === null ? peopleApi.createTeam(body) : peopleApi.updateTeam(team.id, body))
          .then(() => {
            void qc.invalidateQueries({ queryKey: teamsKey });
            void qc.invalidateQueries({ queryKey: usersKey });
            onDone();
          })
          .catch((err: unknown) => {
            setError(err);
          })
          .finally(() => {
            setBusy(false);
          });
      }}
    >
      <h3>{title}</h3>
      <label>
        Team name
        <input
          value={name}
          required
          maxLength={100}
          aria-invalid={(error instanceof ApiError && error.field === 'name') || undefined}
          onChange={(e) => {
            setName(e.target.value);
          }}
        />
      </label>
      <MemberPicker
        legend="Members"
        choices={choices}
        picked={members}
        disabled={busy}
        onChange={setMembers}
      />
      <MemberPicker
        legend="Leads (may change and delete the team)"
        choices={choices}
        picked={leads}
        disabled={busy}
        onChange={setLeads}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Saving…' : team === null ? 'Create team' : 'Save team'}
        </button>
        <button type="button" className="quiet" onClick={onDone}>
          Cancel
        </button>
      </div>
      <Refusal error={error} />
    </form>
  );
}

function DeleteTeam({ team, allowed, why }: { team: Team; allowed: boolean; why: string }) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!confirming)
    return (
      <>
        <button
          type="button"
          disabled={!allowed}
          title={allowed ? undefined : why}
          onClick={() => {
            setConfirming(true);
            setError(null);
          }}
        >
          Delete<span className="visually-hidden"> team {team.name}</span>
        </button>
        <Refusal error={error} />
      </>
    );
  return (
    <span className="confirm" role="group" aria-label={`Delete team ${team.name}?`}>
      Delete team {team.name}?{' '}
      <button
        type="button"
        className="danger"
        autoFocus
        onClick={() => {
          peopleApi
            .removeTeam(team.id)
            .then(() => {
              void qc.invalidateQueries({ queryKey: teamsKey });
              void qc.invalidateQueries({ queryKey: usersKey });
            })
            .catch((err: unknown) => {
              setError(err);
              setConfirming(false);
            });
        }}
      >
        Yes, delete
      </button>{' '}
      <button
        type="button"
        className="quiet"
        onClick={() => {
          setConfirming(false);
        }}
      >
        Keep
      </button>
    </span>
  );
}

function Teams({
  isAdmin,
  myId,
  everyone,
}: {
  isAdmin: boolean;
  myId: string | null;
  everyone: Person[] | undefined;
}) {
  const teams = useQuery({ queryKey: teamsKey, queryFn: peopleApi.teams });
  const [editing, setEditing] = useState<string | null>(null);
  const list = teams.data?.teams ?? [];
  const names = new Map((teams.data?.people ?? []).map((p) => [p.id, p.name]));
  for (const p of everyone ?? []) names.set(p.id, p.name === '' ? p.email : p.name);
  // An admin chooses from everyone; a lead from the people named in teams.
  const choices =
    everyone !== undefined
      ? everyone.map((p) => ({ id: p.id, name: p.name === '' ? p.email : p.name }))
      : (teams.data?.people ?? []);
  const leadsAny = myId !== null && list.some((t) => t.leads.includes(myId));
  const canCreate = isAdmin || leadsAny;
  const nameOf = (id: string) => names.get(id) ?? id;
  return (
    <section aria-labelledby="teams-title">
      <h2 id="teams-title">
        Teams <span className="count">{list.length}</span>
      </h2>
      <Refusal error={teams.error} />
      {list.length === 0 && teams.isSuccess && <Empty>No teams yet.</Empty>}
      {list.length > 0 && (
        <table className="table teams">
          <thead>
            <tr>
              <th>Team</th>
              <th>Leads</th>
              <th>Members</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((t) => {
              const allowed = isAdmin || (myId !== null && t.leads.includes(myId));
              const why = 'Only an admin or a lead of this team can change it';
              return [
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>{t.leads.map(nameOf).join(', ') || '—'}</td>
                  <td>{t.members.map(nameOf).join(', ') || '—'}</td>
                  <td className="row-actions">
                    <button
                      type="button"
                      disabled={!allowed}
                      title={allowed ? undefined : why}
                      aria-expanded={editing === t.id}
                      onClick={() => {
                        setEditing(editing === t.id ? null : t.id);
                      }}
                    >
                      Change<span className="visually-hidden"> team {t.name}</span>
                    </button>{' '}
                    <DeleteTeam team={t} allowed={allowed} why={why} />
                  </td>
                </tr>,
                editing === t.id && (
                  <tr key={`${t.id}-edit`} className="editor-row">
                    <td colSpan={4}>
                      <TeamForm
                        team={t}
                        choices={choices}
                        onDone={() => {
                          setEditing(null);
                        }}
                      />
                    </td>
                  </tr>
                ),
              ];
            })}
          </tbody>
        </table>
      )}
      {editing === 'new' ? (
        <TeamForm
          team={null}
          choices={choices}
          onDone={() => {
            setEditing(null);
          }}
        />
      ) : (
        <button
          type="button"
          disabled={!canCreate}
          title={canCreate ? undefined : 'Only an admin or a team lead can add a team'}
          onClick={() => {
            setEditing('new');
          }}
        >
          Add a team
        </button>
      )}
    </section>
  );
}

export function PeoplePage() {
  const me = useMe();
  const role = me.data?.role;
  const isAdmin = roleAtLeast(role, 'admin');
  const users = useQuery({ queryKey: usersKey, queryFn: peopleApi.list, enabled: isAdmin });
  const teams = useQuery({ queryKey: teamsKey, queryFn: peopleApi.teams });
  const teamNames = new Map((teams.data?.teams ?? []).map((t) => [t.id, t.name]));
  let people: ReactNode;
  if (me.data === undefined) people = <p className="muted">Loading…</p>;
  else if (!isAdmin)
    people = (
      <p className="banner" role="note">
        Only an admin can list and change people; you are {role}.
      </p>
    );
  else
    people = (
      <>
        <AddPerson myRole={role} />
        <Refusal error={users.error} />
        {users.data && (
          <PeopleTable people={users.data.users} teamNames={teamNames} myRole={role} />
        )}
      </>
    );
  return (
    <main className="page people-page">
      <h1>People {users.data && <span className="count">{users.data.users.length}</span>}</h1>
      <p className="hint">
        Who may sign in, their role (viewer &lt; responder &lt; admin &lt; owner), the channels they
        are reached on and their teams. Who may sign in without being added is set under{' '}
        <Link to="/settings#access">Settings → Access</Link>.
      </p>
      {people}
      {me.data !== undefined && (
        <Teams
          isAdmin={isAdmin}
          myId={me.data.user_id ?? null}
          everyone={isAdmin ? users.data?.users : undefined}
        />
      )}
    </main>
  );
}

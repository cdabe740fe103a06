// Teams (every role reads them): create, rename, members and leads (an admin or a lead of the
// team), delete. A lead is always a member too: the body sent says so.
import { ConfirmDelete } from './confirm-delete.js';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type Person, type Team, peopleApi } from './api.js';
import { peopleKeys, useTeams } from './queries.js';
import { ApiError } from '../../shared/api.js';
import { Refusal } from '../../shared/http.js';
import { Empty } from '../../shared/parts.js';
import '../../shared/table-scroll.css';

/** The body of a team's create or change: the name trimmed; every lead is a member too. */
export const teamBody = (name: string, leads: string[], members: string[]) => ({
  name: name.trim(),
  leads,
  members: [...new Set([...members, ...leads])],
});

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
        const body = teamBody(name, leads, members);
        (team === null ? peopleApi.createTeam(body) : peopleApi.updateTeam(team.id, body))
          .then(() => {
            void qc.invalidateQueries({ queryKey: peopleKeys.teams });
            void qc.invalidateQueries({ queryKey: peopleKeys.users });
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
  return (
    <ConfirmDelete
      what={`team ${team.name}`}
      question={`Delete team ${team.name}?`}
      remove={() => peopleApi.removeTeam(team.id)}
      why={allowed ? null : why}
    />
  );
}

export function Teams({
  isAdmin,
  myId,
  everyone,
}: {
  isAdmin: boolean;
  myId: string | null;
  everyone: Person[] | undefined;
}) {
  const teams = useTeams();
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
        <div className="table-scroll">
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
        </div>
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

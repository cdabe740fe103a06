// The people list (admin): role, teams, state and last sign-in, each row with its editor
// opened below it; an owner's row is closed to anyone below an owner.
import { useState } from 'react';
import { type Person } from './api.js';
import { DeletePerson, PersonEditor } from './person-forms.js';
import { roleAtLeast } from '../../shared/api.js';
import { Empty, Time } from '../../shared/parts.js';
import '../../shared/table-scroll.css';

export function PeopleTable({
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
    <div className="table-scroll">
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
    </div>
  );
}

// One person: add (e-mail, name, role), change (name, role, handles, disabled) and delete
// after a confirmation. The roles the caller may not grant are shown disabled with the reason.
import { ConfirmDelete } from './confirm-delete.js';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type HandleKind, type Person, type UserChange, peopleApi } from './api.js';
import { HandleFields, handlesChange, handlesDraft } from './handles.js';
import { peopleKeys } from './queries.js';
import { ApiError, ROLES, type Role, roleAtLeast } from '../../shared/api.js';
import { Refusal } from '../../shared/http.js';

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

/** A person's change: only what differs from the saved person; handles as a change. */
export const personChange = (
  person: Person,
  d: { name: string; role: Role; disabled: boolean; handles: Record<HandleKind, string> },
): UserChange => ({
  ...(d.name !== person.name && { name: d.name }),
  ...(d.role !== person.role && { role: d.role }),
  ...(d.disabled !== person.disabled && { disabled: d.disabled }),
  handles: handlesChange(person.handles, d.handles),
});

export function AddPerson({ myRole }: { myRole: string | undefined }) {
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
            void qc.invalidateQueries({ queryKey: peopleKeys.users });
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

export function PersonEditor({
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
        const change = personChange(person, { name, role, disabled, handles });
        setBusy(true);
        setError(null);
        peopleApi
          .update(person.id, change)
          .then(() => {
            void qc.invalidateQueries({ queryKey: peopleKeys.users });
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

export function DeletePerson({ person }: { person: Person }) {
  return (
    <ConfirmDelete
      what={person.email}
      question={`Delete ${person.email}? Their sessions end.`}
      remove={() => peopleApi.remove(person.id)}
    />
  );
}

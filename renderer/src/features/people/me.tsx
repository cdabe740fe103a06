// "Me": your own name, handles and password (PUT /v1/me; never your role). The admin token is
// not a person: its session has nothing to change here.
import { peopleKeys, useMe } from './queries.js';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type Me, peopleApi } from './api.js';
import { ApiError } from '../../shared/api.js';
import { HandleFields, handlesDraft } from './handles.js';
import { Refusal } from '../../shared/http.js';

const MIN_PASSWORD = 12;

function Profile({ me }: { me: Me }) {
  const qc = useQueryClient();
  const [name, setName] = useState(me.name);
  const [handles, setHandles] = useState(() => handlesDraft(me.handles));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  return (
    <form
      className="settings-form"
      aria-label="Your name and handles"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setSaved(false);
        const change = Object.fromEntries(
          Object.entries(handles).map(([k, v]) => [k, v.trim() === '' ? null : v.trim()]),
        );
        peopleApi
          .putMe({ name: name.trim(), handles: change })
          .then((answer) => {
            qc.setQueryData(peopleKeys.me, answer);
            setSaved(true);
          })
          .catch((err: unknown) => {
            setError(err);
          })
          .finally(() => {
            setBusy(false);
          });
      }}
    >
      <h2>Name and handles</h2>
      <label>
        Name
        <input
          id="me-name"
          value={name}
          maxLength={200}
          onChange={(e) => {
            setName(e.target.value);
            setSaved(false);
          }}
        />
      </label>
      <HandleFields
        idPrefix="me"
        value={handles}
        disabled={busy}
        onChange={(v) => {
          setHandles(v);
          setSaved(false);
        }}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {saved && (
          <span className="ok" role="status">
            ✓ Saved.
          </span>
        )}
      </div>
      <Refusal error={error} />
    </form>
  );
}

function PasswordChange() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<{ field: string; text: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const invalid = (field: string) =>
    problem?.field === field
      ? { 'aria-invalid': true as const, 'aria-describedby': `me-${field}-error` }
      : {};
  const fieldError = (field: string) =>
    problem?.field === field ? (
      <p className="error field-error" id={`me-${field}-error`} role="alert">
        ⚠ {problem.text}
      </p>
    ) : null;
  return (
    <form
      className="settings-form"
      aria-label="Your password"
      onSubmit={(e) => {
        e.preventDefault();
        setProblem(null);
        setError(null);
        setSaved(false);
        if (next.length < MIN_PASSWORD) {
          setProblem({ field: 'password', text: `At least ${String(MIN_PASSWORD)} characters` });
          return;
        }
        if (next !== again) {
          setProblem({ field: 'again', text: 'The two new passwords differ' });
          return;
        }
        setBusy(true);
        peopleApi
          .putMe({ password: next, ...(current !== '' && { current_password: current }) })
          .then(() => {
            setSaved(true);
            setCurrent('');
            setNext('');
            setAgain('');
          })
          .catch((err: unknown) => {
            if (err instanceof ApiError && err.code === 'wrong_current_password')
              setProblem({ field: 'current_password', text: err.message });
            else if (err instanceof ApiError && err.field !== undefined)
              setProblem({ field: err.field, text: err.message });
            else setError(err);
          })
          .finally(() => {
            setBusy(false);
          });
      }}
    >
      <h2>Password</h2>
      <p className="hint">
        For signing in with your e-mail address and a password: at least {MIN_PASSWORD} characters.
        Give the current one if you have a password already.
      </p>
      <input type="text" name="username" autoComplete="username" hidden readOnly />
      <label>
        Current password
        <input
          type="password"
          autoComplete="current-password"
          value={current}
          {...invalid('current_password')}
          onChange={(e) => {
            setCurrent(e.target.value);
          }}
        />
      </label>
      {fieldError('current_password')}
      <label>
        New password
        <input
          type="password"
          autoComplete="new-password"
          value={next}
          maxLength={1024}
          {...invalid('password')}
          onChange={(e) => {
            setNext(e.target.value);
          }}
        />
      </label>
      {fieldError('password')}
      <label>
        New password again
        <input
          type="password"
          autoComplete="new-password"
          value={again}
          {...invalid('again')}
          onChange={(e) => {
            setAgain(e.target.value);
          }}
        />
      </label>
      {fieldError('again')}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || next === ''}>
          {busy ? 'Saving…' : 'Set password'}
        </button>
        {saved && (
          <span className="ok" role="status">
            ✓ Password set.
          </span>
        )}
      </div>
      <Refusal error={error} />
    </form>
  );
}

export function MePage() {
  const me = useMe();
  const m = me.data;
  return (
    <main className="page me-page">
      <h1>Me</h1>
      <Refusal error={me.error} />
      {m && (
        <dl className="facts">
          <dt>Name</dt>
          <dd>{m.name}</dd>
          <dt>Role</dt>
          <dd>{m.role} (an admin changes roles)</dd>
          {m.email !== undefined && (
            <>
              <dt>E-mail</dt>
              <dd>{m.email}</dd>
            </>
          )}
        </dl>
      )}
      {m !== undefined && m.email === undefined && (
        <p className="banner" role="note">
          You are signed in with the admin token (or its session), which is not a person: there is
          no name, handle or password to change. Add yourself as a person on the People page.
        </p>
      )}
      {m?.email !== undefined && (
        <>
          {/* Keyed by the person: a refetch never replaces what is being typed. */}
          <Profile key={m.user_id ?? 'me'} me={m} />
          <PasswordChange />
        </>
      )}
    </main>
  );
}

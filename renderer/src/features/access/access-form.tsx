// Who may sign in without being added (/v1/settings/access): e-mail domains, directory and
// single sign-on groups, one a line, and the role they get.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type AccessSettings, accessApi } from './api.js';
import { SetBy, idOf, useProblems } from './problems.js';
import { accessKeys, useAccessSettings } from './queries.js';
import { Refusal } from '../../shared/http.js';

const lines = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

const oneALine = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The PUT body: domains one a line or comma-separated (a DN has commas: groups one a line). */
export const accessBody = (d: {
  domains: string;
  directory: string;
  sso: string;
  role: AccessSettings['default_role'];
}) => ({
  domains: lines(d.domains),
  directory_groups: oneALine(d.directory),
  sso_groups: oneALine(d.sso),
  default_role: d.role,
});

function AccessForm({ saved }: { saved: AccessSettings }) {
  const qc = useQueryClient();
  const [domains, setDomains] = useState(saved.domains.join('\n'));
  const [directory, setDirectory] = useState(saved.directory_groups.join('\n'));
  const [sso, setSso] = useState(saved.sso_groups.join('\n'));
  const [role, setRole] = useState(saved.default_role);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const p = useProblems('access');
  return (
    <form
      ref={p.ref}
      className="settings-form"
      aria-label="Who may sign in"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        p.clear();
        setDone(false);
        setBusy(true);
        accessApi
          .put(accessBody({ domains, directory, sso, role }))
          .then((answer) => {
            qc.setQueryData(accessKeys.access, answer);
            setDomains(answer.domains.join('\n'));
            setDone(true);
          })
          .catch(p.fail)
          .finally(() => {
            setBusy(false);
          });
      }}
    >
      <SetBy by={saved.set_by} at={saved.set_at} />
      <p className="hint">
        Someone not yet added is let in on their first sign-in, with the default role, when their
        e-mail domain, directory group or single sign-on group is listed here.
      </p>
      <div className="field">
        <label htmlFor={idOf('access', 'domains')}>E-mail domains (one a line)</label>
        <textarea
          {...p.input('domains')}
          rows={3}
          value={domains}
          placeholder="example.com"
          onChange={(e) => {
            setDomains(e.target.value);
            setDone(false);
          }}
        />
        <span className="hint">
          For e-mailed codes and passwords; exact domains, no subdomains.
        </span>
      </div>
      {p.note('domains')}
      <div className="field">
        <label htmlFor={idOf('access', 'directory_groups')}>Directory groups (one a line)</label>
        <textarea
          {...p.input('directory_groups')}
          rows={3}
          value={directory}
          placeholder="cn=sre,ou=groups,dc=example,dc=com"
          onChange={(e) => {
            setDirectory(e.target.value);
            setDone(false);
          }}
        />
        <span className="hint">A group's DN or its cn, any case.</span>
      </div>
      {p.note('directory_groups')}
      <div className="field">
        <label htmlFor={idOf('access', 'sso_groups')}>Single sign-on groups (one a line)</label>
        <textarea
          {...p.input('sso_groups')}
          rows={3}
          value={sso}
          onChange={(e) => {
            setSso(e.target.value);
            setDone(false);
          }}
        />
        <span className="hint">Exact values of the groups claim.</span>
      </div>
      {p.note('sso_groups')}
      <fieldset {...p.input('default_role')} tabIndex={-1}>
        <legend>Default role of people let in this way</legend>
        <div className="choices">
          {(['viewer', 'responder'] as const).map((r) => (
            <label key={r}>
              <input
                type="radio"
                name="default_role"
                value={r}
                checked={role === r}
                onChange={() => {
                  setRole(r);
                  setDone(false);
                }}
              />{' '}
              {r}
            </label>
          ))}
        </div>
      </fieldset>
      {p.note('default_role')}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save access settings'}
        </button>
        {done && (
          <span className="ok" role="status">
            ✓ Saved.
          </span>
        )}
      </div>
      <Refusal error={p.general} />
    </form>
  );
}

export function AccessSection() {
  const q = useAccessSettings();
  return (
    <>
      <Refusal error={q.error} />
      {q.data && <AccessForm saved={q.data} />}
    </>
  );
}

// Settings sections for signing in (admin, loaded on demand): who may sign in without being
// added (/v1/settings/access), mail for sign-in codes (/v1/settings/mail, with a test mail)
// and single sign-on (/v1/settings/sso, with Discover and Test). Each form keeps its own draft,
// taken from the saved document once: a refetch never replaces what is being typed. A 400 is
// shown naming its field, which is marked invalid and focused.
import { statusKeys } from '../status/index.js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import {
  type AccessSettings,
  type MailSettingsInput,
  type MailSettingsView,
  type MailTest,
  type SsoDiscover,
  type SsoSettingsInput,
  type SsoSettingsView,
  type SsoTest,
  mailApi,
  ssoApi,
} from './api.js';
import { peopleApi } from '../people/index.js';
import { ApiError, type SecretInput, type SecretRef } from '../../shared/api.js';
import type { FieldProblem } from '../../shared/field-problems.js';
import { Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import './access-settings.css';

export const accessKey = ['settings', 'access'] as const;
export const mailKey = ['settings', 'mail'] as const;
export const ssoKey = ['settings', 'sso'] as const;

const idOf = (form: string, field: string) => `${form}-${field.replace(/[^a-z0-9]+/gi, '-')}`;

/** A 400 naming a field becomes a field problem; anything else a general error. */
function useProblems(form: string) {
  const ref = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [general, setGeneral] = useState<unknown>(null);
  useEffect(() => {
    if (problem === null) return;
    ref.current?.querySelector<HTMLElement>(`#${idOf(form, problem.field)}`)?.focus();
  }, [problem, form]);
  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 400 && err.field !== undefined)
      setProblem({ field: err.field, message: err.message });
    else setGeneral(err);
  };
  const clear = () => {
    setProblem(null);
    setGeneral(null);
  };
  /** id and aria attributes of the input for a field; a field prefix matches too (domains.1). */
  const input = (field: string) => {
    const hit =
      problem !== null && (problem.field === field || problem.field.startsWith(`${field}.`));
    return {
      id: idOf(form, field),
      ...(hit && {
        'aria-invalid': true as const,
        'aria-describedby': `${idOf(form, field)}-error`,
      }),
    };
  };
  const note = (field: string): ReactNode =>
    problem !== null && (problem.field === field || problem.field.startsWith(`${field}.`)) ? (
      <p className="error field-error" id={`${idOf(form, field)}-error`} role="alert">
        ⚠ {problem.field}: {problem.message}
      </p>
    ) : null;
  return { ref, problem, general, fail, clear, input, note };
}

const lines = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

function SetBy({ by, at }: { by: string | null; at: string | null }) {
  return (
    <p className="hint">
      Last set:{' '}
      {at === null ? (
        'never (the defaults)'
      ) : (
        <>
          <Time iso={at} /> by {by ?? 'unknown'}
        </>
      )}
    </p>
  );
}

// ---------------------------------------------------------------------------------------
// Who may sign in

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
        peopleApi
          .putAccess({
            domains: lines(domains),
            directory_groups: directory
              .split('\n')
              .map((l) => l.trim())
              .filter(Boolean),
            sso_groups: sso
              .split('\n')
              .map((l) => l.trim())
              .filter(Boolean),
            default_role: role,
          })
          .then((answer) => {
            qc.setQueryData(accessKey, answer);
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
  const q = useQuery({ queryKey: accessKey, queryFn: peopleApi.access });
  return (
    <>
      <Refusal error={q.error} />
      {q.data && <AccessForm saved={q.data} />}
    </>
  );
}

// ---------------------------------------------------------------------------------------
// A secret: keep the stored one (shown masked), type a new one (sent once as {value}), a
// file, an environment variable, or none.

type SecretMode = 'keep' | 'value' | 'file' | 'env' | 'none';
interface SecretDraft {
  mode: SecretMode;
  value: string;
  file: string;
  env: string;
}

const secretDraft = (ref: SecretRef | SecretInput | null | undefined): SecretDraft => ({
  mode: ref === null || ref === undefined ? 'none' : 'keep',
  value: '',
  file: ref !== null && ref !== undefined && 'file' in ref ? ref.file : '',
  env: ref !== null && ref !== undefined && 'env' in ref ? ref.env : '',
});

/** The secret to send: undefined leaves it out, null is "none". */
function secretOf(
  d: SecretDraft,
  saved: SecretRef | SecretInput | null | undefined,
): SecretInput | null | undefined {
  switch (d.mode) {
    case 'keep':
      return saved ?? undefined;
    case 'value':
      return { value: d.value };
    case 'file':
      return { file: d.file.trim() };
    case 'env':
      return { env: d.env.trim() };
    case 'none':
      return null;
  }
}

const describeRef = (ref: SecretRef | SecretInput): string =>
  'file' in ref ? `in the file ${ref.file}` : 'env' in ref ? `in $${ref.env}` : 'typed';

function SecretField({
  form,
  field,
  title,
  saved,
  draft,
  onChange,
  noneLabel,
  inputProps,
}: {
  form: string;
  field: string;
  title: string;
  saved: SecretRef | SecretInput | null | undefined;
  draft: SecretDraft;
  onChange: (d: SecretDraft) => void;
  noneLabel: string;
  inputProps: Record<string, unknown>;
}) {
  const modes: [SecretMode, string][] = [
    ...(saved !== null && saved !== undefined
      ? ([['keep', `Keep the stored one (•••••••• ${describeRef(saved)})`]] as [
          SecretMode,
          string,
        ][])
      : []),
    ['value', 'Type a new one'],
    ['file', 'From a file'],
    ['env', 'From an environment variable'],
    ['none', noneLabel],
  ];
  const id = idOf(form, field);
  return (
    <fieldset className="secret">
      <legend>{title}</legend>
      <div className="choices">
        {modes.map(([m, label]) => (
          <label key={m}>
            <input
              type="radio"
              name={id}
              checked={draft.mode === m}
              onChange={() => {
                onChange({ ...draft, mode: m });
              }}
            />{' '}
            {label}
          </label>
        ))}
      </div>
      {draft.mode === 'value' && (
        <label>
          {title} (typed; stored by the service in an owner-only file)
          <input
            {...inputProps}
            type="password"
            autoComplete="new-password"
            value={draft.value}
            onChange={(e) => {
              onChange({ ...draft, value: e.target.value });
            }}
          />
        </label>
      )}
      {draft.mode === 'file' && (
        <label>
          File holding the {title.toLowerCase()} (absolute path)
          <input
            {...inputProps}
            value={draft.file}
            onChange={(e) => {
              onChange({ ...draft, file: e.target.value });
            }}
          />
        </label>
      )}
      {draft.mode === 'env' && (
        <label>
          Environment variable holding the {title.toLowerCase()}
          <input
            {...inputProps}
            value={draft.env}
            onChange={(e) => {
              onChange({ ...draft, env: e.target.value });
            }}
          />
        </label>
      )}
    </fieldset>
  );
}

// ---------------------------------------------------------------------------------------
// Mail

interface MailDraft {
  transport: 'smtp' | 'api';
  timeout_s: string;
  host: string;
  port: string;
  security: 'starttls' | 'ssl' | 'none';
  username: string;
  password: SecretDraft;
  from: string;
  ca_file: string;
  url: string;
  token: SecretDraft;
  apiFrom: string;
}

function mailDraft(v: MailSettingsView): MailDraft {
  const s = v.settings;
  return {
    transport: s?.transport ?? 'smtp',
    timeout_s: String(s?.timeout_s ?? 15),
    host: s?.smtp?.host ?? '',
    port: String(s?.smtp?.port ?? 587),
    security: s?.smtp?.security ?? 'starttls',
    username: s?.smtp?.username ?? '',
    password: secretDraft(s?.smtp?.password),
    from: s?.smtp?.from ?? '',
    ca_file: s?.smtp?.ca_file ?? '',
    url: s?.api?.url ?? '',
    token: { ...secretDraft(s?.api?.token), ...(s?.api === undefined && { mode: 'value' }) },
    apiFrom: s?.api?.from ?? '',
  };
}

const numberOr = (text: string): number => {
  const n = Number(text);
  return text.trim() !== '' && Number.isInteger(n) ? n : Number.NaN;
};

function mailBody(d: MailDraft, saved: MailSettingsView): MailSettingsInput {
  const timeout = numberOr(d.timeout_s);
  const base = { transport: d.transport, ...(!Number.isNaN(timeout) && { timeout_s: timeout }) };
  if (d.transport === 'smtp') {
    const password = secretOf(d.password, saved.settings?.smtp?.password);
    return {
      ...base,
      smtp: {
        host: d.host.trim(),
        port: numberOr(d.port),
        security: d.security,
        from: d.from.trim(),
        ...(d.username.trim() !== '' && { username: d.username.trim() }),
        ...(password !== null && password !== undefined && { password }),
        ...(d.ca_file.trim() !== '' && { ca_file: d.ca_file.trim() }),
      },
    };
  }
  const token = secretOf(d.token, saved.settings?.api?.token) ?? { value: '' };
  return { ...base, api: { url: d.url.trim(), token, from: d.apiFrom.trim() } };
}

function MailForm({ saved, myEmail }: { saved: MailSettingsView; myEmail: string }) {
  const qc = useQueryClient();
  const [d, setD] = useState<MailDraft>(() => mailDraft(saved));
  const [base, setBase] = useState(saved);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [to, setTo] = useState(myEmail);
  const [testing, setTesting] = useState(false);
  const [test, setTest] = useState<MailTest | null>(null);
  const [testError, setTestError] = useState<unknown>(null);
  const p = useProblems('mail');
  const edit = (c: Partial<MailDraft>) => {
    setD((x) => ({ ...x, ...c }));
    setDone(false);
  };
  const text = (field: string, key: keyof MailDraft, label: string, extra: object = {}) => (
    <>
      <div className="field">
        <label htmlFor={idOf('mail', field)}>{label}</label>
        <input
          {...p.input(field)}
          {...extra}
          value={d[key] as string}
          onChange={(e) => {
            edit({ [key]: e.target.value });
          }}
        />
      </div>
      {p.note(field)}
    </>
  );
  return (
    <>
      <form
        ref={p.ref}
        className="settings-form"
        aria-label="Mail settings"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          p.clear();
          setDone(false);
          setBusy(true);
          mailApi
            .put(mailBody(d, base))
            .then((answer) => {
              qc.setQueryData(mailKey, answer);
              // Typed secrets are now files: show them masked, as stored.
              setBase(answer);
              setD(mailDraft(answer));
              setDone(true);
            })
            .catch(p.fail)
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        <p className="hint">
          {base.configured ? (
            <>
              Configured; last set <Time iso={base.updated_at} />.
            </>
          ) : (
            'Not configured: nobody can sign in with an e-mailed code yet.'
          )}
        </p>
        <fieldset {...p.input('transport')} tabIndex={-1}>
          <legend>Send mail through</legend>
          <div className="choices">
            <label>
              <input
                type="radio"
                name="transport"
                checked={d.transport === 'smtp'}
                onChange={() => {
                  edit({ transport: 'smtp' });
                }}
              />{' '}
              An SMTP server
            </label>
            <label>
              <input
                type="radio"
                name="transport"
                checked={d.transport === 'api'}
                onChange={() => {
                  edit({ transport: 'api' });
                }}
              />{' '}
              A mail API (JSON over HTTP)
            </label>
          </div>
        </fieldset>
        {d.transport === 'smtp' ? (
          <>
            {text('smtp.host', 'host', 'SMTP host', { autoComplete: 'off', spellCheck: false })}
            {text('smtp.port', 'port', 'Port', { inputMode: 'numeric' })}
            <div className="field">
              <label htmlFor={idOf('mail', 'smtp.security')}>Security</label>
              <select
                {...p.input('smtp.security')}
                value={d.security}
                onChange={(e) => {
                  edit({ security: e.target.value as MailDraft['security'] });
                }}
              >
                <option value="starttls">STARTTLS (usually port 587)</option>
                <option value="ssl">TLS from the start (usually port 465)</option>
                <option value="none">None (plain text; no password allowed)</option>
              </select>
            </div>
            {p.note('smtp.security')}
            {text('smtp.username', 'username', 'User name (optional)', { autoComplete: 'off' })}
            <SecretField
              form="mail"
              field="smtp.password"
              title="SMTP password"
              saved={base.settings?.smtp?.password}
              draft={d.password}
              noneLabel="No password"
              inputProps={p.input('smtp.password')}
              onChange={(password) => {
                edit({ password });
              }}
            />
            {p.note('smtp.password')}
            {text('smtp.from', 'from', 'From address', {
              placeholder: 'Incidents <svc@example.com>',
            })}
            {text('smtp.ca_file', 'ca_file', 'CA file for the server (optional, absolute path)')}
          </>
        ) : (
          <>
            {text('api.url', 'url', 'API URL', { type: 'url' })}
            <SecretField
              form="mail"
              field="api.token"
              title="API token"
              saved={base.settings?.api?.token}
              draft={d.token}
              noneLabel="No token"
              inputProps={p.input('api.token')}
              onChange={(token) => {
                edit({ token });
              }}
            />
            {p.note('api.token')}
            {text('api.from', 'apiFrom', 'From address')}
          </>
        )}
        {text('timeout_s', 'timeout_s', 'Time limit per mail (seconds)', { inputMode: 'numeric' })}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save mail settings'}
          </button>
          {done && (
            <span className="ok" role="status">
              ✓ Saved.
            </span>
          )}
        </div>
        <Refusal error={p.general} />
      </form>
      <form
        className="settings-form inline-form"
        aria-label="Send a test mail"
        onSubmit={(e) => {
          e.preventDefault();
          setTesting(true);
          setTest(null);
          setTestError(null);
          mailApi
            .test(to.trim())
            .then(setTest)
            .catch(setTestError)
            .finally(() => {
              setTesting(false);
            });
        }}
      >
        <div className="filters">
          <label className="grow">
            Send a test mail to
            <input
              type="email"
              value={to}
              required
              onChange={(e) => {
                setTo(e.target.value);
              }}
            />
          </label>
          <button
            type="submit"
            disabled={testing || !base.configured || to.trim() === ''}
            title={base.configured ? 'Uses the saved settings' : 'Save the mail settings first'}
          >
            {testing ? 'Sending…' : 'Send test mail'}
          </button>
        </div>
        {test !== null && (
          <p className={test.ok ? 'ok' : 'error'} role="status">
            {test.ok ? '✓ Sent' : '✕ Not sent'}: {test.detail} ({test.duration_ms} ms)
          </p>
        )}
        <Refusal error={testError} />
      </form>
    </>
  );
}

export function MailSection({ myEmail }: { myEmail: string }) {
  const q = useQuery({ queryKey: mailKey, queryFn: mailApi.get });
  return (
    <>
      <Refusal error={q.error} />
      {q.data && <MailForm saved={q.data} myEmail={myEmail} />}
    </>
  );
}

// ---------------------------------------------------------------------------------------
// Single sign-on

interface SsoDraft {
  issuer: string;
  client_id: string;
  secret: SecretDraft;
  redirect_uri: string;
  scopes: string;
  groups_claim: string;
  enabled: boolean;
}

const callbackUri = () => `${window.location.origin}/v1/auth/sso/callback`;

const ssoDraft = (v: SsoSettingsView): SsoDraft => ({
  issuer: v.issuer,
  client_id: v.client_id,
  secret: { ...secretDraft(v.client_secret), ...(v.set_at === null && { mode: 'value' }) },
  redirect_uri: v.redirect_uri === '' ? callbackUri() : v.redirect_uri,
  scopes: (v.scopes.length === 0 ? ['openid', 'email', 'profile'] : v.scopes).join(' '),
  groups_claim: v.groups_claim === '' ? 'groups' : v.groups_claim,
  enabled: v.enabled,
});

function ssoBody(d: SsoDraft, saved: SsoSettingsView): SsoSettingsInput {
  const secret = secretOf(d.secret, saved.client_secret);
  return {
    issuer: d.issuer.trim(),
    client_id: d.client_id.trim(),
    ...(secret !== undefined && { client_secret: secret }),
    redirect_uri: d.redirect_uri.trim(),
    scopes: d.scopes.split(/\s+/).filter(Boolean),
    groups_claim: d.groups_claim.trim(),
    enabled: d.enabled,
  };
}

function Discovered({ answer }: { answer: SsoDiscover }) {
  return (
    <div className="tool-answer" role="status" aria-label="Discover answer">
      <p className={answer.ok ? 'ok' : 'error'}>
        {answer.ok ? '✓ Read the provider' : '✕ Could not read the provider'}: {answer.detail}
      </p>
      {answer.ok && (
        <dl className="facts">
          <dt>Issuer</dt>
          <dd>{answer.issuer}</dd>
          <dt>Authorization</dt>
          <dd>{answer.authorization_endpoint ?? '—'}</dd>
          <dt>Token</dt>
          <dd>{answer.token_endpoint ?? '—'}</dd>
          <dt>Userinfo</dt>
          <dd>{answer.userinfo_endpoint ?? '—'}</dd>
          <dt>PKCE S256</dt>
          <dd>{answer.pkce_s256 ? '✓ yes' : '✕ not listed'}</dd>
          <dt>Groups claim</dt>
          <dd>
            {answer.groups_claim_offered === null
              ? '? the provider lists no claims'
              : answer.groups_claim_offered
                ? '✓ offered'
                : '✕ not among its claims'}
          </dd>
          <dt>Scopes</dt>
          <dd>{answer.scopes_supported.join(' ') || '—'}</dd>
        </dl>
      )}
    </div>
  );
}

function Tested({ answer }: { answer: SsoTest }) {
  return (
    <div className="tool-answer" role="status" aria-label="Test answer">
      <p className={answer.ok ? 'ok' : 'error'}>
        {answer.ok ? '✓ Passed' : '✕ Failed'}: {answer.detail}
      </p>
      <ul className="plain">
        {answer.checks.map((c) => (
          <li key={c.name}>
            {c.ok ? '✓' : '✕'} <strong>{c.name}</strong>: {c.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}

function SsoForm({ saved }: { saved: SsoSettingsView }) {
  const qc = useQueryClient();
  const [base, setBase] = useState(saved);
  const [d, setD] = useState<SsoDraft>(() => ssoDraft(saved));
  const [busy, setBusy] = useState<null | 'save' | 'discover' | 'test'>(null);
  const [done, setDone] = useState(false);
  const [discovered, setDiscovered] = useState<SsoDiscover | null>(null);
  const [tested, setTested] = useState<SsoTest | null>(null);
  const p = useProblems('sso');
  const edit = (c: Partial<SsoDraft>) => {
    setD((x) => ({ ...x, ...c }));
    setDone(false);
  };
  const text = (
    field: Exclude<keyof SsoDraft, 'secret' | 'enabled'>,
    label: string,
    hint?: string,
    extra = {},
  ) => (
    <>
      <div className="field">
        <label htmlFor={idOf('sso', field)}>{label}</label>
        <input
          {...p.input(field)}
          {...extra}
          spellCheck={false}
          value={d[field]}
          onChange={(e) => {
            edit({ [field]: e.target.value });
          }}
        />
        {hint !== undefined && <span className="hint">{hint}</span>}
      </div>
      {p.note(field)}
    </>
  );
  const tool = (which: 'discover' | 'test') => {
    p.clear();
    setBusy(which);
    const run =
      which === 'discover'
        ? ssoApi.discover(d.issuer.trim(), d.groups_claim.trim()).then((a) => {
            setDiscovered(a);
          })
        : ssoApi.test(ssoBody(d, base)).then((a) => {
            setTested(a);
          });
    run.catch(p.fail).finally(() => {
      setBusy(null);
    });
  };
  return (
    <form
      ref={p.ref}
      className="settings-form"
      aria-label="Single sign-on settings"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        p.clear();
        setDone(false);
        setBusy('save');
        ssoApi
          .put(ssoBody(d, base))
          .then((answer) => {
            qc.setQueryData(ssoKey, answer);
            void qc.invalidateQueries({ queryKey: statusKeys.status });
            setBase(answer);
            setD(ssoDraft(answer));
            setDone(true);
          })
          .catch(p.fail)
          .finally(() => {
            setBusy(null);
          });
      }}
    >
      <SetBy by={base.set_by} at={base.set_at} />
      {text('issuer', 'Issuer URL', "The provider's issuer (https://, or http:// on loopback)", {
        type: 'url',
        placeholder: 'https://login.example.com/realms/ops',
      })}
      {text('client_id', 'Client id')}
      <SecretField
        form="sso"
        field="client_secret"
        title="Client secret"
        saved={base.client_secret}
        draft={d.secret}
        noneLabel="None (a public client, PKCE only)"
        inputProps={p.input('client_secret')}
        onChange={(secret) => {
          edit({ secret });
        }}
      />
      {p.note('client_secret')}
      {text(
        'redirect_uri',
        'Redirect URI',
        'Register exactly this at the provider; only a real sign-in proves it.',
        { type: 'url' },
      )}
      {text(
        'scopes',
        'Scopes (space-separated)',
        'openid is always added; add groups where needed.',
      )}
      {text('groups_claim', 'Groups claim', 'The claim holding the groups (default groups).')}
      <label className="inline">
        <input
          type="checkbox"
          checked={d.enabled}
          onChange={(e) => {
            edit({ enabled: e.target.checked });
          }}
        />{' '}
        Offer single sign-on on the sign-in page
      </label>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy !== null}>
          {busy === 'save' ? 'Saving…' : 'Save single sign-on'}
        </button>
        <button
          type="button"
          disabled={busy !== null || d.issuer.trim() === ''}
          title="Read the provider's metadata: endpoints, scopes, claims, PKCE"
          onClick={() => {
            tool('discover');
          }}
        >
          {busy === 'discover' ? 'Discovering…' : 'Discover'}
        </button>
        <button
          type="button"
          disabled={busy !== null || d.issuer.trim() === ''}
          title="Discovery, then the client's credentials at the token endpoint (nothing is saved)"
          onClick={() => {
            tool('test');
          }}
        >
          {busy === 'test' ? 'Testing…' : 'Test'}
        </button>
        {done && (
          <span className="ok" role="status">
            ✓ Saved.
          </span>
        )}
      </div>
      <Refusal error={p.general} />
      {discovered !== null && <Discovered answer={discovered} />}
      {tested !== null && <Tested answer={tested} />}
    </form>
  );
}

export function SsoSection() {
  const q = useQuery({ queryKey: ssoKey, queryFn: ssoApi.get });
  return (
    <>
      <Refusal error={q.error} />
      {q.data && <SsoForm saved={q.data} />}
    </>
  );
}

/** The three sections, for the Settings page (admin only; the page says so otherwise). */
export default function SignInSettings({ myEmail }: { myEmail: string }) {
  return (
    <>
      <section aria-labelledby="access" className="settings-section">
        <h2 id="access">Access: who may sign in</h2>
        <AccessSection />
      </section>
      <section aria-labelledby="mail" className="settings-section">
        <h2 id="mail">Mail</h2>
        <p className="hint">Sign-in codes are sent with these settings.</p>
        <MailSection myEmail={myEmail} />
      </section>
      <section aria-labelledby="sso" className="settings-section">
        <h2 id="sso">Single sign-on</h2>
        <SsoSection />
      </section>
    </>
  );
}

// Mail for sign-in codes (/v1/settings/mail): SMTP or a JSON mail API, each secret kept, typed
// or referenced; and a test mail with the saved settings.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type MailSettingsInput, type MailSettingsView, type MailTest, mailApi } from './api.js';
import { idOf, useProblems } from './problems.js';
import { accessKeys, useMailSettings } from './queries.js';
import { SecretField, type SecretDraft, secretDraft, secretOf } from './secret-field.js';
import { Refusal } from '../../shared/http.js';
import { Time } from '../../shared/parts.js';

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

export function mailDraft(v: MailSettingsView): MailDraft {
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

export function mailBody(d: MailDraft, saved: MailSettingsView): MailSettingsInput {
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
              qc.setQueryData(accessKeys.mail, answer);
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
  const q = useMailSettings();
  return (
    <>
      <Refusal error={q.error} />
      {q.data && <MailForm saved={q.data} myEmail={myEmail} />}
    </>
  );
}

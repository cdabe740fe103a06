// Single sign-on (/v1/settings/sso): the provider, the client and its secret, the redirect,
// scopes and groups claim; Discover reads the provider, Test tries the client (nothing saved).
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  type SsoDiscover,
  type SsoSettingsInput,
  type SsoSettingsView,
  type SsoTest,
  ssoApi,
} from './api.js';
import { SetBy, idOf, useProblems } from './problems.js';
import { accessKeys, useSsoSettings } from './queries.js';
import { SecretField, type SecretDraft, secretDraft, secretOf } from './secret-field.js';
import { statusKeys } from '../status/index.js';
import { Refusal } from '../../shared/http.js';

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

export const ssoDraft = (v: SsoSettingsView): SsoDraft => ({
  issuer: v.issuer,
  client_id: v.client_id,
  secret: { ...secretDraft(v.client_secret), ...(v.set_at === null && { mode: 'value' }) },
  redirect_uri: v.redirect_uri === '' ? callbackUri() : v.redirect_uri,
  scopes: (v.scopes.length === 0 ? ['openid', 'email', 'profile'] : v.scopes).join(' '),
  groups_claim: v.groups_claim === '' ? 'groups' : v.groups_claim,
  enabled: v.enabled,
});

export function ssoBody(d: SsoDraft, saved: SsoSettingsView): SsoSettingsInput {
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
            qc.setQueryData(accessKeys.sso, answer);
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
  const q = useSsoSettings();
  return (
    <>
      <Refusal error={q.error} />
      {q.data && <SsoForm saved={q.data} />}
    </>
  );
}

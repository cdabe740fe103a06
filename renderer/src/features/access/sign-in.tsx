// Sign-in: every method GET /v1/status offers (auth.methods), each a small form: single
// sign-on (a link to /v1/auth/sso/start; the callback comes back here with ?sso=<one-time
// code>, redeemed at once and taken out of the URL), an e-mailed code, a password, the
// directory (LDAP), and the admin token (folded away unless it is the only way in).
import { useStatus } from '../status/index.js';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { type SignedIn, signInApi } from './api.js';
import { ApiError, session } from '../../shared/api.js';
import { duration } from '../../shared/parts.js';
import { navigate } from '../../shared/router.js';
import './sign-in.css';

type Method = 'code' | 'password' | 'ldap';
const TABS: readonly { method: Method; title: string }[] = [
  { method: 'code', title: 'E-mailed code' },
  { method: 'password', title: 'Password' },
  { method: 'ldap', title: 'Directory' },
];

/** ?sso= codes already sent: a code works once, and StrictMode runs effects twice. */
const redeemed = new Set<string>();

function signedIn(qc: ReturnType<typeof useQueryClient>, answer: SignedIn): void {
  qc.clear();
  if (window.location.pathname === '/sign-in') navigate('/live', { replace: true });
  session.set(answer.token);
}

/** What a refused sign-in means, in words, naming the field where one is at fault. */
export function refusal(err: unknown, wrong: string): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  if (err.status === 429) {
    const s = err.retryAfterS ?? 60;
    const at = new Date(Date.now() + s * 1000).toLocaleTimeString('en-GB');
    return `Too many attempts: try again in ${duration(s)} (at ${at}).`;
  }
  if (err.status === 401) return wrong;
  if (err.code === 'account_disabled') return `${err.message}. An admin can enable the account.`;
  if (err.code === 'sign_in_not_allowed')
    return `${err.message}. Ask an admin to add you, or to allow your domain or group.`;
  if (err.status === 400 && err.field !== undefined) return `${err.field}: ${err.message}`;
  return err.message;
}

function Refusal({ text, id }: { text: string | null; id: string }) {
  if (text === null) return null;
  return (
    <p className="error" role="alert" id={id}>
      ⚠ {text}
    </p>
  );
}

/** Busy flag, refusal text, and a runner that signs in with what the call answers. */
function useSignInCall(wrong: string) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = (call: () => Promise<SignedIn>) => {
    setBusy(true);
    setError(null);
    session.clear();
    call()
      .then((answer) => {
        signedIn(qc, answer);
      })
      .catch((err: unknown) => {
        setError(refusal(err, wrong));
        setBusy(false);
      });
  };
  return { busy, error, setError, run };
}

function CodeForm() {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const { busy, error, setError, run } = useSignInCall(
    'That code is wrong, used or expired (a code dies after 5 wrong tries): check the code, or send a new one.',
  );
  const send = () => {
    setSending(true);
    setError(null);
    signInApi
      .requestCode(email.trim())
      .then(() => {
        setSentTo(email.trim());
        setCode('');
      })
      .catch((err: unknown) => {
        setError(refusal(err, 'The code could not be requested.'));
      })
      .finally(() => {
        setSending(false);
      });
  };
  return (
    <form
      aria-label="Sign in with an e-mailed code"
      onSubmit={(e) => {
        e.preventDefault();
        if (sentTo === null) send();
        else run(() => signInApi.verifyCode(sentTo, code.trim()));
      }}
    >
      <label>
        E-mail address
        <input
          name="email"
          type="email"
          autoComplete="username"
          value={email}
          required
          readOnly={sentTo !== null}
          onChange={(e) => {
            setEmail(e.target.value);
          }}
        />
      </label>
      {sentTo === null ? (
        <button type="submit" className="primary" disabled={sending || email.trim() === ''}>
          {sending ? 'Sending…' : 'E-mail me a code'}
        </button>
      ) : (
        <>
          <p className="hint" role="status">
            If {sentTo} may sign in, a code is on its way. It works once, for 10 minutes.
          </p>
          <label>
            Code from the e-mail
            <input
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              value={code}
              required
              autoFocus
              aria-invalid={error !== null || undefined}
              aria-describedby={error !== null ? 'code-error' : undefined}
              onChange={(e) => {
                setCode(e.target.value);
              }}
            />
          </label>
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || code.trim() === ''}>
              {busy ? 'Signing in…' : 'Continue with the code'}
            </button>
            <button
              type="button"
              className="quiet"
              disabled={sending}
              onClick={() => {
                setSentTo(null);
                setError(null);
              }}
            >
              Another address or a new code
            </button>
          </div>
        </>
      )}
      <Refusal text={error} id="code-error" />
    </form>
  );
}

function PasswordForm({ directory }: { directory: boolean }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSignInCall(
    directory
      ? 'The directory did not accept that user name and password.'
      : 'That e-mail address and password do not match (password).',
  );
  const id = directory ? 'ldap' : 'password';
  return (
    <form
      aria-label={directory ? 'Sign in with the directory' : 'Sign in with a password'}
      onSubmit={(e) => {
        e.preventDefault();
        run(() =>
          directory
            ? signInApi.ldap(user.trim(), password)
            : signInApi.password(user.trim(), password),
        );
      }}
    >
      <label>
        {directory ? 'Directory user name' : 'E-mail address'}
        <input
          name={directory ? 'username' : 'email'}
          type={directory ? 'text' : 'email'}
          autoComplete="username"
          value={user}
          required
          onChange={(e) => {
            setUser(e.target.value);
          }}
        />
      </label>
      <label>
        {directory ? 'Directory password' : 'Password'}
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          required
          aria-invalid={error !== null || undefined}
          aria-describedby={error !== null ? `${id}-error` : undefined}
          onChange={(e) => {
            setPassword(e.target.value);
          }}
        />
      </label>
      <button
        type="submit"
        className="primary"
        disabled={busy || user.trim() === '' || password === ''}
      >
        {busy
          ? 'Signing in…'
          : directory
            ? 'Continue with the directory'
            : 'Continue with password'}
      </button>
      <Refusal text={error} id={`${id}-error`} />
    </form>
  );
}

function TokenForm() {
  const [token, setToken] = useState('');
  const { busy, run, error: refused } = useSignInCall('The admin token is not valid.');
  return (
    // No accessible name with "admin token" in it but the input's own: scripts (and the
    // older console tests) find the field by its label "Admin token".
    <form
      onSubmit={(e) => {
        e.preventDefault();
        run(() => signInApi.login(token.trim()));
      }}
    >
      <p className="hint">
        The first owner signs in with the admin token: the file <code>admin-token</code> in the data
        folder, or <code>SVC_ADMIN_TOKEN</code>.
      </p>
      <label>
        Admin token
        <input
          name="token"
          type="password"
          autoComplete="current-password"
          value={token}
          onChange={(e) => {
            setToken(e.target.value);
          }}
          required
        />
      </label>
      <button type="submit" disabled={busy || token.trim() === ''}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <Refusal text={refused} id="token-error" />
    </form>
  );
}

/** Reads ?sso= and ?sso_error= once, takes them out of the URL, and redeems the code. */
function useSsoReturn(): { busy: boolean; error: string | null } {
  const qc = useQueryClient();
  const [state, setState] = useState<{ busy: boolean; error: string | null }>(() => {
    const params = new URLSearchParams(window.location.search);
    const failed = params.get('sso_error');
    return {
      busy: params.get('sso') !== null,
      error:
        failed === null
          ? null
          : `Single sign-on failed (${failed}): ${params.get('message') ?? 'no reason given'}`,
    };
  });
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const code = params.get('sso');
    if (code === null && params.get('sso_error') === null) return;
    for (const k of ['sso', 'sso_error', 'message']) params.delete(k);
    const rest = params.toString();
    // The code works once: it never stays in the address bar or the history.
    navigate(`${window.location.pathname}${rest === '' ? '' : `?${rest}`}`, { replace: true });
    if (code === null || redeemed.has(code)) return;
    redeemed.add(code);
    session.clear();
    signInApi
      .redeemSso(code)
      .then((answer) => {
        signedIn(qc, answer);
      })
      .catch((err: unknown) => {
        setState({
          busy: false,
          error: refusal(
            err,
            'The single sign-on answer was used or expired (60 seconds): sign in again.',
          ),
        });
      });
  }, [qc]);
  return state;
}

export function SignInPage() {
  const status = useStatus();
  const sso = useSsoReturn();
  const methods = status.data?.auth?.methods ?? (status.isError ? ['token'] : []);
  const offered = TABS.filter((t) => methods.includes(t.method));
  const [picked, setPicked] = useState<Method | null>(null);
  const tab = offered.find((t) => t.method === picked) ?? offered[0];
  const onlyToken = offered.length === 0 && !methods.includes('sso');
  let panel: ReactNode = null;
  if (tab?.method === 'code') panel = <CodeForm />;
  else if (tab?.method === 'password') panel = <PasswordForm key="password" directory={false} />;
  else if (tab?.method === 'ldap') panel = <PasswordForm key="ldap" directory />;
  return (
    <main className="sign-in">
      <section className="sign-in-box" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in</h1>
        {status.isPending && <p className="muted">Asking the service how to sign in…</p>}
        {sso.busy && sso.error === null && (
          <p role="status" className="hint">
            Finishing single sign-on…
          </p>
        )}
        <Refusal text={sso.error} id="sso-error" />
        {methods.includes('sso') && (
          <p>
            <a className="button primary" href="/v1/auth/sso/start">
              Sign in with single sign-on
            </a>
          </p>
        )}
        {offered.length > 1 && (
          <div
            className="segmented"
            role="tablist"
            aria-label="Sign-in methods"
            onKeyDown={(e) => {
              // Arrow keys move between the methods, as in any tab list.
              if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
              e.preventDefault();
              const at = offered.findIndex((t) => t.method === tab?.method);
              const step = e.key === 'ArrowRight' ? 1 : offered.length - 1;
              const next = offered[(at + step) % offered.length];
              if (next === undefined) return;
              setPicked(next.method);
              document.getElementById(`tab-${next.method}`)?.focus();
            }}
          >
            {offered.map((t) => (
              <button
                key={t.method}
                type="button"
                role="tab"
                id={`tab-${t.method}`}
                aria-selected={t.method === tab?.method}
                aria-pressed={t.method === tab?.method}
                tabIndex={t.method === tab?.method ? 0 : -1}
                aria-controls="sign-in-panel"
                onClick={() => {
                  setPicked(t.method);
                }}
              >
                {t.title}
              </button>
            ))}
          </div>
        )}
        {panel !== null && (
          <div
            id="sign-in-panel"
            role={offered.length > 1 ? 'tabpanel' : undefined}
            aria-labelledby={offered.length > 1 ? `tab-${tab?.method ?? ''}` : undefined}
          >
            {panel}
          </div>
        )}
        {/* Secondary, but never folded away: the first owner has no other way in. */}
        {(methods.includes('token') || status.isError) &&
          (onlyToken ? (
            <TokenForm />
          ) : (
            <section className="secondary-method">
              <h2>Or the admin token</h2>
              <TokenForm />
            </section>
          ))}
      </section>
    </main>
  );
}

// Sign-in: the first owner with the admin token. Later sign-in methods join this page.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, session } from '../api.js';
import { ErrorNote } from '../parts.js';
import { navigate } from '../router.js';

export function SignInPage() {
  const qc = useQueryClient();
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main className="sign-in">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          session.clear();
          api
            .login(token.trim())
            .then((answer) => {
              qc.clear();
              if (window.location.pathname === '/sign-in') navigate('/live', { replace: true });
              session.set(answer.token);
            })
            .catch((err: unknown) => {
              setError(err);
            })
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        <h1>Sign in</h1>
        <p className="hint">
          The first owner signs in with the admin token: the file <code>admin-token</code> in the
          data folder, or <code>SVC_ADMIN_TOKEN</code>.
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
            autoFocus
          />
        </label>
        <button type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorNote error={error} />
      </form>
    </main>
  );
}

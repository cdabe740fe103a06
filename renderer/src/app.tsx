// The frame: sign-in gate, top bar (instance, mode, live seq, halt), and the page of the path.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useSyncExternalStore } from 'react';
import { api, ApiError, session } from './api.js';
import { BrandingEffect, BrandMark } from './branding.js';
import { Link } from './parts.js';
import { keys, useLive } from './queries.js';
import { navigate, useLocation } from './router.js';
import { AuditPage } from './pages/audit.js';
import { ConnectionsPage } from './pages/connections.js';
import { EpisodePage } from './pages/episode.js';
import { EpisodesPage } from './pages/episodes.js';
import { IncidentPage } from './pages/incident.js';
import { LivePage } from './pages/live.js';
import { SignInPage } from './pages/sign-in.js';
import { SettingsPage } from './pages/settings.js';
import { WallPage } from './pages/wall.js';
import { StatusPage } from './pages/status.js';

// The estate graph (React Flow, dagre) loads only when its page is opened.
const EstatePage = lazy(() => import('./pages/estate.js').then((m) => ({ default: m.EstatePage })));
// People, teams and "Me" load on demand too: most visits never open them.
const PeoplePage = lazy(() => import('./pages/people.js').then((m) => ({ default: m.PeoplePage })));
const MePage = lazy(() => import('./pages/me.js').then((m) => ({ default: m.MePage })));

function Loading({ title }: { title: string }) {
  return (
    <main className="page">
      <h1>{title}</h1>
      <p className="muted">Loading…</p>
    </main>
  );
}

const PAGES = [
  { path: '/live', title: 'Live' },
  { path: '/episodes', title: 'Episodes' },
  { path: '/estate', title: 'Estate' },
  { path: '/audit', title: 'Audit' },
  { path: '/connections', title: 'Connections' },
  { path: '/people', title: 'People' },
  { path: '/status', title: 'Status' },
  { path: '/settings', title: 'Settings' },
] as const;

function TopBar({ path }: { path: string }) {
  const qc = useQueryClient();
  const status = useQuery({ queryKey: keys.status, queryFn: api.status });
  const me = useQuery({ queryKey: keys.me, queryFn: api.me });
  const live = useLive(true);
  return (
    <header className="topbar">
      <div className="brand">
        <BrandMark />
        {status.data && (
          <span className="instance" title="instance name and mode">
            {status.data.instance} ·{' '}
            <span className={`mode mode-${status.data.mode}`}>{status.data.mode}</span>
          </span>
        )}
      </div>
      <nav aria-label="pages">
        {PAGES.map((p) => (
          <span key={p.path} className={path.startsWith(p.path) ? 'current' : undefined}>
            <Link to={p.path}>{p.title}</Link>
          </span>
        ))}
      </nav>
      <div className="right">
        <span className="seq" title="the ledger's last seq; pages refresh when it moves">
          {live.error instanceof ApiError && live.error.status === 503
            ? '● not operating yet'
            : live.isError
              ? '● disconnected'
              : `● seq ${live.data?.seq.toLocaleString('en') ?? '…'}`}
        </span>
        {me.data && (
          <span className="me">
            <Link to="/me">
              {me.data.name} ({me.data.role})
            </Link>
          </span>
        )}
        <button
          type="button"
          className="halt"
          disabled
          title="Halting all actions arrives with the autonomy capability; nothing acts yet"
        >
          ■ Halt
        </button>
        <button
          type="button"
          className="quiet"
          onClick={() => {
            void api
              .logout()
              .catch(() => undefined)
              .finally(() => {
                session.clear();
                qc.clear();
                navigate('/sign-in');
              });
          }}
        >
          Sign out
        </button>
      </div>
    </header>
  );
}

function SetupBanner() {
  const status = useQuery({ queryKey: keys.status, queryFn: api.status });
  if (status.data === undefined || status.data.mode === 'operating') return null;
  const next = status.data.setup.steps.find((s) => !s.done);
  return (
    <div className="banner" role="status">
      Mode <strong>{status.data.mode}</strong>: set-up {status.data.setup.done} of{' '}
      {status.data.setup.of}
      {next && (
        <>
          {' '}
          · next: <strong>{next.title}</strong> — {next.hint} <Link to="/status">Set-up</Link>
        </>
      )}
    </div>
  );
}

function Page({ path }: { path: string }) {
  const status = useQuery({ queryKey: keys.status, queryFn: api.status });
  // Without a licence almost nothing answers: lead to the set-up instead.
  if (status.data?.mode === 'setup') return <StatusPage />;
  // Signed in at /sign-in (a bookmark, or just now): Live.
  if (path === '/' || path === '/live' || path === '/sign-in') return <LivePage />;
  if (path === '/episodes') return <EpisodesPage />;
  if (path.startsWith('/episodes/')) return <EpisodePage id={decodeURIComponent(path.slice(10))} />;
  if (path.startsWith('/incidents/'))
    return <IncidentPage id={decodeURIComponent(path.slice(11))} />;
  if (path === '/estate')
    return (
      <Suspense
        fallback={
          <main className="page">
            <h1>Estate</h1>
            <p className="muted">Loading the estate page…</p>
          </main>
        }
      >
        <EstatePage />
      </Suspense>
    );
  if (path === '/audit') return <AuditPage />;
  if (path === '/connections') return <ConnectionsPage />;
  if (path === '/status') return <StatusPage />;
  if (path === '/settings') return <SettingsPage />;
  if (path === '/people')
    return (
      <Suspense fallback={<Loading title="People" />}>
        <PeoplePage />
      </Suspense>
    );
  if (path === '/me')
    return (
      <Suspense fallback={<Loading title="Me" />}>
        <MePage />
      </Suspense>
    );
  return (
    <main className="page">
      <h1>Not found</h1>
      <p>
        Nothing lives at {path}. <Link to="/live">Go to Live</Link>
      </p>
    </main>
  );
}

export function App() {
  const { path, params } = useLocation();
  const token = useSyncExternalStore(session.subscribe, session.get);
  // Back from single sign-on while an older session is still held: the new sign-in wins.
  const ssoReturn = path === '/sign-in' && (params.has('sso') || params.has('sso_error'));
  // One /v1/me for the whole frame: sign-in and sign-out clear the cache, so the key needs no token.
  const me = useQuery({ queryKey: keys.me, queryFn: api.me, enabled: token !== null });
  const signedOut =
    ssoReturn || token === null || (me.error instanceof ApiError && me.error.status === 401);
  if (!signedOut && path === '/wall')
    return (
      <>
        <BrandingEffect />
        <WallPage />
      </>
    );
  if (signedOut)
    return (
      <>
        <BrandingEffect />
        <SignInPage />
      </>
    );
  return (
    <div className="frame">
      <BrandingEffect />
      <TopBar path={path} />
      <SetupBanner />
      <Page path={path} />
    </div>
  );
}

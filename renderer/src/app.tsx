// The frame: sign-in gate, top bar (instance, mode, live seq, halt), and the page of the path.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import { api, ApiError, session } from './api.js';
import { BrandingEffect } from './branding.js';
import { connection } from './connection.js';
import { HaltBanner } from './halt-button.js';
import { LicenceBanner } from './licence-banner.js';
import { liveStream } from './live-stream.js';
import { Link } from './parts.js';
import { keys } from './queries.js';
import { navigate, useLocation } from './router.js';
import { ConnectionBanner, TopBar, useReach } from './top-bar.js';
import { AuditPage } from './pages/audit.js';
import { ConnectionsPage } from './pages/connections.js';
import { EpisodePage } from './pages/episode.js';
import { EpisodesPage } from './pages/episodes.js';
import { IncidentPage } from './pages/incident.js';
import { CommandPalette } from './palette.js';
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
// Approvals, autonomy and the policy editor (issue 7) load on demand as well.
const ApprovalsPage = lazy(() =>
  import('./pages/approvals.js').then((m) => ({ default: m.ApprovalsPage })),
);
const AutonomyPage = lazy(() =>
  import('./pages/autonomy.js').then((m) => ({ default: m.AutonomyPage })),
);
const PolicyPage = lazy(() => import('./pages/policy.js').then((m) => ({ default: m.PolicyPage })));
// The Licence page (issue 19): opened at set-up and at renewal, rarely otherwise.
const LicencePage = lazy(() =>
  import('./pages/licence.js').then((m) => ({ default: m.LicencePage })),
);
// The Keychain page (issue 20): opened to set up sites and seal files, rarely otherwise.
const KeychainPage = lazy(() =>
  import('./pages/keychain.js').then((m) => ({ default: m.KeychainPage })),
);
// The Learning page (issue 21): read weekly, not at 3 am.
const LearningPage = lazy(() =>
  import('./pages/learning.js').then((m) => ({ default: m.LearningPage })),
);
const DigestPage = lazy(() => import('./pages/digest.js').then((m) => ({ default: m.DigestPage })));
const LookbackPage = lazy(() =>
  import('./pages/lookback.js').then((m) => ({ default: m.LookbackPage })),
);
// The Study page (issue 21): started now and then, followed while it runs.
const StudyPage = lazy(() => import('./pages/study.js').then((m) => ({ default: m.StudyPage })));
const IncidentsPage = lazy(() =>
  import('./pages/incidents.js').then((m) => ({ default: m.IncidentsPage })),
);
// The page of a channel's approve/deny link: no sign-in, the signed token is the credential.
const ApprovalLinkPage = lazy(() =>
  import('./pages/approval-link.js').then((m) => ({ default: m.ApprovalLinkPage })),
);

/** The path of a channel's approve/deny link (server/approvals/escalation.ts `linkUrl`). */
const LINK_PATH = '/approvals/link';

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
  { path: '/incidents', title: 'Incidents' },
  { path: '/approvals', title: 'Approvals' },
  { path: '/autonomy', title: 'Autonomy' },
  { path: '/estate', title: 'Estate' },
  { path: '/learning', title: 'Learning' },
  { path: '/digest', title: 'Digest' },
  { path: '/lookback', title: 'Lookback' },
  { path: '/study', title: 'Study' },
  { path: '/audit', title: 'Audit' },
  { path: '/connections', title: 'Connections' },
  { path: '/policy', title: 'Policy' },
  { path: '/people', title: 'People' },
  { path: '/status', title: 'Status' },
  { path: '/licence', title: 'Licence' },
  { path: '/keychain', title: 'Keychain' },
  { path: '/settings', title: 'Settings' },
] as const;

/** Go elsewhere once rendered, replacing this entry (an old address of a page). */
function Redirect({ to }: { to: string }) {
  useEffect(() => {
    navigate(to, { replace: true });
  }, [to]);
  return null;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
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
          · next: <strong>{next.title}</strong> — {next.hint}{' '}
          {next.id === 'licence' ? (
            <Link to="/licence">Install a licence</Link>
          ) : (
            <Link to="/status">Set-up</Link>
          )}
        </>
      )}
    </div>
  );
}

function Page({ path }: { path: string }) {
  const status = useQuery({ queryKey: keys.status, queryFn: api.status });
  const licence = (
    <Suspense fallback={<Loading title="Licence" />}>
      <LicencePage />
    </Suspense>
  );
  if (path === '/licence') return licence;
  // Without a licence almost nothing answers: lead to the set-up instead.
  if (status.data?.mode === 'setup') return <StatusPage />;
  // Signed in at /sign-in (a bookmark, or just now): Live.
  if (path === '/' || path === '/live' || path === '/sign-in') return <LivePage />;
  if (path === '/episodes') return <EpisodesPage />;
  if (path.startsWith('/episodes/')) return <EpisodePage id={decodeURIComponent(path.slice(10))} />;
  if (path === '/incidents')
    return (
      <Suspense fallback={<Loading title="Incidents" />}>
        <IncidentsPage />
      </Suspense>
    );
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
  if (path === '/keychain')
    return (
      <Suspense fallback={<Loading title="Keychain" />}>
        <KeychainPage />
      </Suspense>
    );
  if (path === '/learning')
    return (
      <Suspense fallback={<Loading title="Learning" />}>
        <LearningPage />
      </Suspense>
    );
  if (path === '/study')
    return (
      <Suspense fallback={<Loading title="Study" />}>
        <StudyPage />
      </Suspense>
    );
  if (path === '/digest')
    return (
      <Suspense fallback={<Loading title="Digest" />}>
        <DigestPage />
      </Suspense>
    );
  if (path === '/lookback')
    return (
      <Suspense fallback={<Loading title="Lookback" />}>
        <LookbackPage />
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
  // The console page of one request (escalation's link for admin-level requests): the list
  // with that request pinned on top.
  if (path.startsWith('/approvals/')) {
    const id = decoded(path.slice('/approvals/'.length));
    return (
      <Redirect
        to={id === '' ? '/approvals' : `/approvals?${new URLSearchParams({ sel: id }).toString()}`}
      />
    );
  }
  if (path === '/approvals')
    return (
      <Suspense fallback={<Loading title="Approvals" />}>
        <ApprovalsPage />
      </Suspense>
    );
  if (path === '/autonomy')
    return (
      <Suspense fallback={<Loading title="Autonomy" />}>
        <AutonomyPage />
      </Suspense>
    );
  if (path === '/policy')
    return (
      <Suspense fallback={<Loading title="Policy" />}>
        <PolicyPage />
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
  // A channel's approve/deny link works signed in or not: the token is the credential.
  if (path === LINK_PATH)
    return (
      <>
        <BrandingEffect />
        <Suspense
          fallback={
            <main className="sign-in">
              <p className="muted">Loading the approval link…</p>
            </main>
          }
        >
          <ApprovalLinkPage />
        </Suspense>
      </>
    );
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
  return <Frame path={path} role={me.data?.role} />;
}

/**
 * The signed-in frame. While the service cannot be reached the page stays as it was, dimmed
 * and marked busy, its controls disabled by the fieldset (typed text kept); when it answers
 * again everything is asked afresh.
 */
function Frame({ path, role }: { path: string; role: string | undefined }) {
  const qc = useQueryClient();
  const reach = useReach();
  useEffect(() => connection.onBack(() => void qc.invalidateQueries()), [qc]);
  // While the live stream is up the data is current without any call being made.
  useEffect(
    () =>
      liveStream.subscribe(() => {
        connection.current();
      }),
    [],
  );
  return (
    <div className="frame">
      <BrandingEffect />
      <TopBar path={path} pages={PAGES} />
      <ConnectionBanner />
      <fieldset
        className={reach.reachable ? 'frame-body' : 'frame-body stale'}
        disabled={!reach.reachable}
        aria-busy={!reach.reachable || undefined}
      >
        <SetupBanner />
        <LicenceBanner path={path} />
        <HaltBanner role={role} />
        <Page path={path} />
      </fieldset>
      <CommandPalette />
    </div>
  );
}

// The frame: sign-in gate, top bar (instance, mode, live seq, halt), and the page of the path.
import { peopleKeys } from '../features/people/index.js';
import { useStatus } from '../features/status/index.js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useSyncExternalStore } from 'react';
import { peopleApi } from '../features/people/index.js';
import { ApiError, session } from '../shared/api.js';
import { BrandingEffect } from '../features/branding/index.js';
import { connection } from '../shared/connection.js';
import { HaltBanner } from '../features/autonomy/index.js';
import { LicenceBanner } from './licence-banner.js';
import { liveStream } from '../features/live/index.js';
import { Link } from '../shared/parts.js';
import { navigate, useLocation } from '../shared/router.js';
import { LedgerRefresh } from './ledger-refresh.js';
import { ConnectionBanner, TopBar, useReach } from './top-bar.js';
import { AuditPage } from '../features/audit/index.js';
import { ConnectionsPage } from '../features/connections/index.js';
import { EpisodePage } from '../features/episodes/index.js';
import { EpisodesPage } from '../features/episodes/index.js';
import { IncidentPage } from '../features/incidents/index.js';
import { CommandPalette } from './palette.js';
import { Shortcuts } from './shortcuts.js';
import { LivePage } from '../features/live/index.js';
import { SignInPage } from '../features/access/index.js';
import { SettingsPage } from '../features/settings/index.js';
import { WallPage } from '../features/live/index.js';
import { EstatePage } from '../features/estate/index.js';
import { PeoplePage, MePage } from '../features/people/index.js';
import { ApprovalsPage, ApprovalLinkPage } from '../features/approvals/index.js';
import { AutonomyPage } from '../features/autonomy/index.js';
import { PolicyPage } from '../features/policy/index.js';
import { LicencePage } from '../features/licence/index.js';
import { KeychainPage } from '../features/keychain/index.js';
import { LearningPage } from '../features/learning/index.js';
import { DigestPage } from '../features/digest/index.js';
import { LookbackPage } from '../features/lookback/index.js';
import { StudyPage } from '../features/study/index.js';
import { IncidentsPage } from '../features/incidents/index.js';
import { StatusPage } from '../features/status/index.js';

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
  const status = useStatus();
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
  const status = useStatus();
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
  const me = useQuery({ queryKey: peopleKeys.me, queryFn: peopleApi.me, enabled: token !== null });
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
        <LedgerRefresh />
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
      <LedgerRefresh />
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
      <Shortcuts />
    </div>
  );
}

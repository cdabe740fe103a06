// The top bar (console brief C.1): instance and mode, the pages (in a Menu on a phone), the
// live seq, who is signed in, the halt and sign-out; and the banner of a lost connection.
// While the service cannot be reached the bar says what it last knew, not what is now.
import { useLive } from '../features/live/index.js';
import { useMe } from '../features/people/index.js';
import { useStatus } from '../features/status/index.js';
import { signInApi } from '../features/access/index.js';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { type Me } from '../features/people/index.js';
import { ApiError, roleAtLeast, session } from '../shared/api.js';
import { BrandMark } from '../features/branding/index.js';
import { connection } from '../shared/connection.js';
import { HaltButton } from '../features/autonomy/index.js';
import { Link, timeOfDay } from '../shared/parts.js';
import { useHeightVariable } from '../shared/height-variable.js';
import { navigate } from '../shared/router.js';
import { usePendingApprovals, waitsFor } from '../features/approvals/index.js';
import './frame.css';

export interface NavPage {
  readonly path: string;
  readonly title: string;
}

/** Whether the service answers now, and since when the data is old. */
export function useReach() {
  return useSyncExternalStore(connection.subscribe, connection.get);
}

/** The hatched banner while the service cannot be reached (C.1 "Connection lost"). */
export function ConnectionBanner() {
  const reach = useReach();
  if (reach.reachable) return null;
  return (
    <div className="banner offline" role="alert">
      <strong>
        Connection lost — data as of {reach.asOf === null ? 'never' : timeOfDay(reach.asOf)}
      </strong>
      , reconnecting… Controls that need the service are off until it answers again.
    </div>
  );
}

/**
 * Who is signed in, as the top bar names them. The admin token's session is the first
 * owner's (id and name "owner"), so it is named for the token, never taken for a person.
 */
export function whoIs(me: Me): string {
  const token = me.kind === 'admin-token' || me.session?.method === 'admin-token';
  return `${token ? 'admin token' : me.name} (${me.role})`;
}

/**
 * " (2)" after Approvals: pending requests the signed-in person could approve now (not their
 * own, their role suffices, not yet approved by them). Refetched when the live seq moves.
 */
function WaitingCount({ me }: { me: Me | undefined }) {
  const responder = roleAtLeast(me?.role, 'responder');
  const pending = usePendingApprovals(responder);
  if (!responder || pending.data === undefined) return null;
  const n = pending.data.requests.filter((r) => waitsFor(r, me)).length;
  const more = pending.data.total > pending.data.requests.length;
  if (n === 0 && !more) return null;
  const count = `${String(n)}${more ? '+' : ''}`;
  return (
    <span
      className="nav-count"
      title={`${count} pending request${n === 1 && !more ? '' : 's'} you could approve`}
    >
      {` (${count})`}
    </span>
  );
}

/**
 * The pages. On a wide screen a row of links; on a phone (frame.css) a Menu button that
 * opens them as a list: focus goes to the current page's link, Escape closes and gives the
 * focus back to the button, choosing a page closes it.
 */
function PageNav({
  path,
  pages,
  me,
}: {
  path: string;
  pages: readonly NavPage[];
  me: Me | undefined;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLElement>(null);
  useEffect(() => {
    setOpen(false);
  }, [path]);
  useEffect(() => {
    if (!open) return;
    const first =
      list.current?.querySelector<HTMLElement>('.current a') ??
      list.current?.querySelector<HTMLElement>('a');
    first?.focus();
  }, [open]);
  return (
    <>
      <button
        ref={button}
        type="button"
        className="menu-button quiet"
        aria-expanded={open}
        aria-controls="page-nav"
        onClick={() => {
          setOpen(!open);
        }}
      >
        Menu
      </button>
      <nav
        id="page-nav"
        ref={list}
        aria-label="pages"
        className={open ? 'open' : undefined}
        onKeyDown={(e) => {
          if (e.key !== 'Escape' || !open) return;
          setOpen(false);
          button.current?.focus();
        }}
      >
        {pages.map((p) => (
          <span key={p.path} className={path.startsWith(p.path) ? 'current' : undefined}>
            <Link to={p.path}>
              {p.title}
              {p.path === '/approvals' && <WaitingCount me={me} />}
            </Link>
          </span>
        ))}
        {/* On a phone the account goes in the menu, so that the bar keeps two lines; only
            while open, so that the page holds one copy otherwise. */}
        {open && (
          <span className="menu-account">
            <MeLink me={me} />
            <SignOut />
          </span>
        )}
      </nav>
    </>
  );
}

/** Sign out: the session ends on the server when it answers, here in any case. */
function SignOut() {
  const qc = useQueryClient();
  return (
    <button
      type="button"
      className="quiet"
      onClick={() => {
        void signInApi
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
  );
}

/** Who is signed in, linked to their page. */
function MeLink({ me }: { me: Me | undefined }) {
  if (me === undefined) return null;
  return (
    <span className="me">
      <Link to="/me">{whoIs(me)}</Link>
    </span>
  );
}

/** The live seq and whether it is current. */
function SeqState({ reachable }: { reachable: boolean }) {
  const live = useLive(true);
  const seq = live.data?.seq.toLocaleString('en');
  return (
    <span className="seq" title="the ledger's last seq; pages refresh when it moves">
      {!reachable
        ? `● disconnected${seq === undefined ? '' : ` · seq ${seq}`}`
        : live.error instanceof ApiError && live.error.status === 503
          ? '● not operating yet'
          : live.isError
            ? '● disconnected'
            : `● seq ${seq ?? '…'}`}
    </span>
  );
}

export function TopBar({ path, pages }: { path: string; pages: readonly NavPage[] }) {
  const status = useStatus();
  const me = useMe();
  const reach = useReach();
  // What sticks under the bar (an episode's head) reads its height.
  const bar = useHeightVariable('--topbar-h');
  return (
    <header className="topbar" ref={bar}>
      <div className="brand">
        <BrandMark />
        {status.data && (
          <span className="instance" title="instance name and mode">
            <span className="instance-name">{status.data.instance} · </span>
            {reach.reachable ? (
              <span className={`mode mode-${status.data.mode}`}>{status.data.mode}</span>
            ) : (
              <span className="mode mode-stale" title="the mode when the service last answered">
                {status.data.mode} (last known)
              </span>
            )}
          </span>
        )}
      </div>
      <PageNav path={path} pages={pages} me={me.data} />
      <div className="right">
        <SeqState reachable={reach.reachable} />
        <span className="bar-account">
          <MeLink me={me.data} />
        </span>
        <HaltButton role={me.data?.role} reachable={reach.reachable} />
        <span className="bar-account">
          <SignOut />
        </span>
      </div>
    </header>
  );
}

// Live: running episodes for triage. Worst and newest first, grouped, filtered and searched
// as the URL says; refreshed as the ledger's seq moves, with rows keyed by episode so that
// nothing re-renders needlessly, and nothing moves while the reader reads (live-hold.ts).
import { useEffect, useMemo, useRef, useState } from 'react';
import { Empty, ErrorNote, Link } from '../../shared/parts.js';
import { useLive } from './queries.js';
import { navigate, useLocation } from '../../shared/router.js';
import { isShortcutKey } from '../../shared/keys.js';
import { useHeld } from './live-hold.js';
import {
  awaitingByEpisode,
  attentionFirst,
  groupsOf,
  hrefOf,
  matches,
  viewOf,
} from './live-rows.js';
import { usePendingApprovals } from '../approvals/index.js';
import { LiveTable } from './live-table.js';
import { LiveToolbar } from './live-toolbar.js';
import './live.css';

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => {
      setNow(Date.now());
    }, intervalMs);
    return () => {
      clearInterval(t);
    };
  }, [intervalMs]);
  return now;
}

export function LivePage() {
  const live = useLive(true);
  const now = useNow(1000);
  const { params } = useLocation();
  const view = viewOf(params);
  const listRef = useRef<HTMLDivElement>(null);
  const running = live.data?.running;
  // The pending requests (the top bar reads the same): a row waiting on one comes first.
  const pending = usePendingApprovals();
  const requests = pending.data?.requests;
  const awaiting = useMemo(() => awaitingByEpisode(requests ?? []), [requests]);
  const ordered = useMemo(
    () => (running === undefined ? undefined : [...running].sort(attentionFirst(awaiting))),
    [running, awaiting],
  );
  const held = useHeld(ordered, live.data?.seq, listRef);
  const { pausedAt, pause, resume } = held;

  const wallHref = hrefOf(view, '/wall');
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (!isShortcutKey(e)) return;
      // Shift+W: this view on the wall display (console brief D.2).
      if (e.key === 'W' && e.shiftKey) {
        e.preventDefault();
        navigate(wallHref);
        return;
      }
      if (e.key !== 'p') return;
      e.preventDefault();
      if (pausedAt === null) pause();
      else resume();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
    };
  }, [pausedAt, pause, resume, wallHref]);

  const shown = held.rows.filter((r) => matches(r, view));
  const waiting = held.pending.filter((r) => matches(r, view)).length;
  const total = ordered?.length ?? 0;
  return (
    <main className="page live-page">
      <div className="live-head">
        <h1>
          Live <span className="count">{total} running</span>
        </h1>
        <Link to={wallHref}>Wall display</Link>
      </div>
      <LiveToolbar
        view={view}
        onView={(next) => {
          navigate(hrefOf(next), { replace: true });
        }}
        rows={ordered ?? []}
        paused={pausedAt !== null}
        onPause={pausedAt === null ? pause : resume}
      />
      {/* Said once per arrival, shown or not; a region that is always there is heard. */}
      <p className="visually-hidden" aria-live="polite">
        {held.said}
      </p>
      {pausedAt !== null && (
        <p className="live-paused" role="status">
          <span>
            paused at seq {pausedAt.toLocaleString('en')} · {waiting} new
          </span>
          {waiting > 0 && (
            <>
              {' · '}
              <button type="button" className="linkish" onClick={held.show}>
                show
              </button>
            </>
          )}
        </p>
      )}
      {pausedAt === null && waiting > 0 && (
        <button type="button" className="new-pill" onClick={held.show}>
          {waiting} new · show
        </button>
      )}
      <ErrorNote error={live.error} />
      {live.data && total === 0 && (
        <Empty>Nothing is running. Alerts that arrive show here at once.</Empty>
      )}
      {total > 0 && shown.length === 0 && (
        <Empty>No running episode matches this view ({total} running in all).</Empty>
      )}
      <div ref={listRef}>
        {shown.length > 0 && (
          <LiveTable
            groups={groupsOf(shown, view.group)}
            grouping={view.group}
            now={now}
            fresh={held.fresh}
            awaiting={awaiting}
          />
        )}
      </div>
    </main>
  );
}

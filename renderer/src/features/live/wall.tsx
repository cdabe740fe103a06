// The wall display: running episodes in large type, no navigation, the scope printed in the
// header so a screen across the room says what it shows and how fresh it is (console brief
// D.3). It takes Live's view from its URL (`sev`, `q`; Shift+W on Live opens it so) and says
// that scope in words; it sorts as Live does, attention first. While the service cannot be
// reached, or answers the live view with an error, the whole wall dims and says since when
// its data is old. While every action is
// halted (GET /v1/autonomy `halted`), a hatched banner says so, with who, when and why; the
// wall offers no button (it may be a shared screen).
import { useLive } from './queries.js';
import { useStatus } from '../status/index.js';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { BrandMark } from '../branding/index.js';
import { age, Time, timeOfDay } from '../../shared/parts.js';
import { connection } from '../../shared/connection.js';
import { useLocation } from '../../shared/router.js';
import { SeverityMark } from '../../shared/severity.js';
import { ACTION_STATUS, FAILED_ACTIONS, type ActionStatus } from '../../shared/confidence.js';
import { autonomyApi, autonomyKeys } from '../autonomy/index.js';
import { usePendingApprovals } from '../approvals/index.js';
import { attentionFirst, awaitingByEpisode, matches, scopeOf, viewOf } from './live-rows.js';
import './wall.css';

export function WallPage() {
  const live = useLive(true);
  const status = useStatus();
  const reach = useSyncExternalStore(connection.subscribe, connection.get);
  const { params } = useLocation();
  const view = viewOf(params);
  // Refetched when the live seq moves (useLive): a halt shows within a heartbeat.
  const autonomy = useQuery({ queryKey: autonomyKeys.all, queryFn: autonomyApi.get });
  const halted = autonomy.data?.halted ?? null;
  const requests = usePendingApprovals().data?.requests;
  const awaiting = useMemo(() => awaitingByEpisode(requests ?? []), [requests]);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => {
      setNow(Date.now());
    }, 1000);
    return () => {
      clearInterval(t);
    };
  }, []);
  const running = (live.data?.running ?? [])
    .filter((e) => matches(e, view))
    .sort(attentionFirst(awaiting));
  const firing = running.filter((e) => e.status === 'open').length;
  // Lost (no answer, a gateway's 502/504), or answered with an error (a 401, a 500): either
  // way what is shown is old.
  const stale = !reach.reachable || live.isError;
  const asOf = reach.reachable ? live.dataUpdatedAt || null : reach.asOf;
  return (
    <main className={stale ? 'wall wall-stale' : 'wall'}>
      <header>
        <BrandMark />
        <span>
          {status.data?.instance ?? ''} · {scopeOf(view)} · seq{' '}
          {live.data?.seq.toLocaleString('en') ?? '…'}
        </span>
      </header>
      {stale && (
        <p className="banner offline" role="alert">
          <strong>
            Data as of {asOf === null ? 'never' : timeOfDay(asOf)} —{' '}
            {reach.reachable ? 'the last refresh failed, asking again' : 'reconnecting'}
          </strong>
        </p>
      )}
      {halted !== null && (
        <p className="banner halted" role="status" aria-label="halted">
          <strong>■ ALL ACTIONS HALTED</strong>{' '}
          <span>
            by {halted.by} at <Time iso={halted.at} />: “{halted.reason}”. Diagnosis goes on;
            nothing acts until an admin resumes.
          </span>
        </p>
      )}
      <h1 className={firing > 0 ? 'headline firing' : 'headline calm'}>
        {firing > 0 ? `▲ ${String(firing)} firing` : '✓ Nothing firing'}
        {running.length > firing && ` · ${String(running.length - firing)} quiet`}
      </h1>
      <ul>
        {running.map((e) => (
          <li key={e.episode_id} className={`status-${e.status}`}>
            <span className="service">
              <SeverityMark severity={e.severity} /> {e.service}
            </span>
            <span className="alerts">
              {e.alerts.join(', ')}
              {awaiting.has(e.episode_id) && (
                <strong className="wall-why"> · ◷ awaiting approval</strong>
              )}
              {!awaiting.has(e.episode_id) && FAILED_ACTIONS.includes(e.action) && (
                <strong className="wall-why">
                  {' '}
                  · action {ACTION_STATUS[e.action as ActionStatus]}
                </strong>
              )}
            </span>
            <span className="num">{age(e.t_open, now)}</span>
          </li>
        ))}
      </ul>
    </main>
  );
}

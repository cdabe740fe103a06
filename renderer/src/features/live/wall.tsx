// The wall display: running episodes in large type, no navigation, the scope printed in the
// header so a screen across the room says what it shows and how fresh it is. While every
// action is halted (GET /v1/autonomy `halted`), a hatched banner says so, with who, when and
// why; the wall offers no button (it may be a shared screen).
import { useLive } from './queries.js';
import { useStatus } from '../status/index.js';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { BrandMark } from '../branding/index.js';
import { age, Time } from '../../shared/parts.js';
import { autonomyApi, autonomyKeys } from '../autonomy/index.js';
import './wall.css';

export function WallPage() {
  const live = useLive(true);
  const status = useStatus();
  // Refetched when the live seq moves (useLive): a halt shows within a heartbeat.
  const autonomy = useQuery({ queryKey: autonomyKeys.all, queryFn: autonomyApi.get });
  const halted = autonomy.data?.halted ?? null;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => {
      setNow(Date.now());
    }, 1000);
    return () => {
      clearInterval(t);
    };
  }, []);
  const running = [...(live.data?.running ?? [])].sort(
    (a, b) => Number(a.status !== 'open') - Number(b.status !== 'open'),
  );
  const firing = running.filter((e) => e.status === 'open').length;
  return (
    <main className="wall">
      <header>
        <BrandMark />
        <span>
          {status.data?.instance ?? ''} · all services · seq{' '}
          {live.data?.seq.toLocaleString('en') ?? '…'}
          {live.isError && ' · DISCONNECTED: data may be stale'}
        </span>
      </header>
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
            <span className="service">{e.service}</span>
            <span className="alerts">{e.alerts.join(', ')}</span>
            <span className="num">{age(e.t_open, now)}</span>
          </li>
        ))}
      </ul>
    </main>
  );
}

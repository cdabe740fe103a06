// The wall display: running episodes in large type, no navigation, the scope printed in the
// header so a screen across the room says what it shows and how fresh it is.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../api.js';
import { BrandMark } from '../branding.js';
import { age } from '../parts.js';
import { keys, useLive } from '../queries.js';

export function WallPage() {
  const live = useLive(true);
  const status = useQuery({ queryKey: keys.status, queryFn: api.status });
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
      <p className={firing > 0 ? 'headline firing' : 'headline calm'}>
        {firing > 0 ? `▲ ${String(firing)} firing` : '✓ Nothing firing'}
        {running.length > firing && ` · ${String(running.length - firing)} quiet`}
      </p>
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

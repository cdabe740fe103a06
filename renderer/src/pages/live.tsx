// Live: running episodes, refreshed as the ledger's seq moves; rows keep their identity so
// nothing jumps when data arrives.
import { useEffect, useState } from 'react';
import { Empty, ErrorNote, Link, age } from '../parts.js';
import { useLive } from '../queries.js';

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
  // Attention first: firing before quiet, oldest first within each (the server keeps its order).
  const running = [...(live.data?.running ?? [])].sort(
    (a, b) => Number(a.status !== 'open') - Number(b.status !== 'open'),
  );
  return (
    <main className="page">
      <h1>
        Live <span className="count">{running.length} running</span>
      </h1>
      <p>
        <Link to="/wall">Wall display</Link>
        <span className="muted"> — large type for a screen across the room</span>
      </p>
      <ErrorNote error={live.error} />
      {live.data && running.length === 0 && (
        <Empty>Nothing is running. Alerts that arrive show here at once.</Empty>
      )}
      {running.length > 0 && (
        <table className="table" aria-label="running episodes">
          <thead>
            <tr>
              <th>Service</th>
              <th>Alerts</th>
              <th>Status</th>
              <th>Step</th>
              <th className="num">Age</th>
              <th>Episode</th>
            </tr>
          </thead>
          <tbody>
            {running.map((e) => (
              <tr key={e.episode_id} data-episode={e.episode_id}>
                <td>{e.service}</td>
                <td>{e.alerts.join(', ')}</td>
                <td>
                  <span className={`badge status-${e.status}`}>
                    {e.status === 'open' ? '▲ firing' : e.status === 'quiet' ? '○ quiet' : e.status}
                  </span>
                </td>
                <td>{e.step}</td>
                <td className="num">{age(e.t_open, now)}</td>
                <td>
                  <Link to={`/episodes/${e.episode_id}`}>{e.episode_id}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}

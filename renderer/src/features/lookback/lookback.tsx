// The Lookback page (issue 21): how many incidents the team resolved over the last 7 to 365
// days, counted by the paging and ticketing tools connected (POST /v1/lookback), with the
// last report and the connections that keep history. Counts only: no incident is shown.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNote, Link, Time } from '../../shared/parts.js';
import { lookbackApi, type LookbackReport } from './api.js';
import { lookbackKeys } from './queries.js';
import { kindTitle } from './lookback-words.js';
import './lookback.css';

function Report({ r }: { r: LookbackReport }) {
  const failed = r.connections.filter((c) => c.error !== null).length;
  return (
    <section aria-label="last report">
      <h2>Last {r.days} days</h2>
      <dl className="facts" aria-label="lookback figures">
        <dt>Resolved incidents</dt>
        <dd>
          <strong className="lookback-total">{r.total}</strong>
          {failed > 0 &&
            ` (without ${String(failed)} connection${failed === 1 ? '' : 's'} that could not be read)`}
        </dd>
        <dt>Window</dt>
        <dd>
          <Time iso={r.since} /> to <Time iso={r.until} />
        </dd>
        <dt>Run</dt>
        <dd>
          by {r.run_by}, <Time iso={r.run_at} /> (audit seq {r.seq})
        </dd>
      </dl>
      <table className="table" aria-label="resolved incidents per connection">
        <thead>
          <tr>
            <th scope="col">Connection</th>
            <th scope="col">Resolved</th>
            <th scope="col">How</th>
          </tr>
        </thead>
        <tbody>
          {r.connections.map((c) => (
            <tr key={c.name}>
              <td>
                {c.name} <span className="muted">({kindTitle(c.kind)})</span>
              </td>
              <td>{c.count ?? '—'}</td>
              <td className={c.error === null ? 'muted' : 'error'}>
                {c.error === null ? c.detail : `✕ ${c.error}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function LookbackPage() {
  const client = useQueryClient();
  const view = useQuery({ queryKey: lookbackKeys.all, queryFn: lookbackApi.view });
  const [days, setDays] = useState('30');
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const v = view.data;
  const min = v?.days.minimum ?? 7;
  const max = v?.days.maximum ?? 365;

  async function run(e: FormEvent) {
    e.preventDefault();
    setRunning(true);
    setError(null);
    try {
      await lookbackApi.run(Number(days));
      await client.invalidateQueries({ queryKey: lookbackKeys.all });
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  }

  return (
    <main className="page lookback">
      <h1>Lookback</h1>
      <p className="hint">
        How many incidents were resolved over the last {min} to {max} days, counted by the paging
        and ticketing tools connected here. Only counts are read: no incident leaves those tools.
      </p>
      <ErrorNote error={view.error} />
      {v && v.connections.length === 0 && (
        <p className="empty" role="status">
          No connection keeps history yet. Add a{' '}
          {v.kinds.map((k, i) => (
            <span key={k}>
              {i > 0 && (i === v.kinds.length - 1 ? ' or ' : ', ')}
              {kindTitle(k)}
            </span>
          ))}{' '}
          connection on the <Link to="/connections">Connections</Link> page, then count here.
        </p>
      )}
      {v && v.connections.length > 0 && (
        <>
          <form className="lookback-form" onSubmit={(e) => void run(e)}>
            <label>
              Days back
              <input
                type="number"
                name="days"
                min={min}
                max={max}
                step={1}
                required
                value={days}
                onChange={(e) => {
                  setDays(e.target.value);
                }}
              />
            </label>
            <button type="submit" disabled={running}>
              {running ? 'Counting…' : 'Count resolved incidents'}
            </button>
          </form>
          <ErrorNote error={error} />
          <h2>Connections that keep history</h2>
          <ul className="lookback-connections" aria-label="connections that keep history">
            {v.connections.map((c) => (
              <li key={c.name}>
                <strong>{c.name}</strong> <span className="muted">{kindTitle(c.kind)}</span>{' '}
                {c.problem !== null
                  ? `✕ ${c.problem}`
                  : c.last_health === null
                    ? 'not checked yet'
                    : `${c.last_health.ok ? '✓' : '✕'} ${c.last_health.detail}`}
              </li>
            ))}
          </ul>
        </>
      )}
      {v?.report && <Report r={v.report} />}
      {v && v.report === null && v.connections.length > 0 && (
        <p className="empty">Nothing counted yet: choose how many days back and count.</p>
      )}
    </main>
  );
}

// One incident: its lifecycle, its episodes (root first), causes (each with the episode that
// confirmed it), fixes and history (each entry linked to its ledger event and episode).
import { incidentKeys } from './queries.js';
import { useQuery } from '@tanstack/react-query';
import { incidentsApi } from './api.js';
import { ErrorNote, Link, Time, duration } from '../../shared/parts.js';
import { causeName } from '../episodes/index.js';

export function IncidentPage({ id }: { id: string }) {
  const incident = useQuery({
    queryKey: incidentKeys.detail(id),
    queryFn: () => incidentsApi.incident(id),
  });
  const i = incident.data;
  return (
    <main className="page">
      <ErrorNote error={incident.error} />
      {i && (
        <>
          <h1>
            Incident <span className="count">{i.services.join(', ')}</span>
          </h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <span className={`badge status-${i.status}`}>{i.status}</span>
            </dd>
            <dt>Opened</dt>
            <dd>
              <Time iso={i.lifecycle.opened_at} />
            </dd>
            <dt>Resolved</dt>
            <dd>
              <Time iso={i.lifecycle.resolved_at} />
            </dd>
            <dt>Duration</dt>
            <dd>{duration(i.lifecycle.duration_s)}</dd>
            <dt>Causes</dt>
            <dd>
              {i.causes.length === 0
                ? 'none confirmed'
                : i.causes.map((c, n) => (
                    <span key={`${c.episode_id}-${String(n)}`}>
                      {n > 0 && ', '}
                      {causeName(c.cause)} (
                      <Link to={`/episodes/${encodeURIComponent(c.episode_id)}`}>
                        {c.episode_id}
                      </Link>
                      )
                    </span>
                  ))}
            </dd>
            <dt>Fixes</dt>
            <dd>
              {i.fixes.length === 0
                ? 'none'
                : i.fixes.map((f) => `${f.fix} ${f.action}`.trim()).join(', ')}
            </dd>
            <dt>Id</dt>
            <dd>
              <code>{i.incident_id}</code>
            </dd>
          </dl>
          <h2>Episodes</h2>
          <table className="table" aria-label="episodes of the incident">
            <thead>
              <tr>
                <th>Relation</th>
                <th>Service</th>
                <th>Alerts</th>
                <th>Status</th>
                <th>Result</th>
                <th>Episode</th>
              </tr>
            </thead>
            <tbody>
              {i.episodes.map((e) => (
                <tr key={e.episode_id}>
                  <td>{e.relation}</td>
                  <td>{e.service}</td>
                  <td>{e.alerts.join(', ')}</td>
                  <td>{e.status}</td>
                  <td>{e.result || '—'}</td>
                  <td>
                    <Link to={`/episodes/${e.episode_id}`}>{e.episode_id}</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>History</h2>
          <ol className="timeline">
            {i.history.map((h) => (
              <li key={h.seq} data-seq={h.seq}>
                {/* Each entry is a ledger event: its seq opens it on the Audit page. */}
                <Link to={`/audit?seq=${String(h.seq)}`} className="seqno">
                  #{h.seq}
                </Link>{' '}
                <Time iso={h.at} />{' '}
                <strong>
                  {h.event === 'status' ? `${h.from ?? ''} → ${h.to ?? ''}` : h.event}
                </strong>
                {h.service !== undefined && <> {h.service}</>}
                {h.episode_id !== undefined && (
                  <>
                    {' · '}
                    <Link to={`/episodes/${encodeURIComponent(h.episode_id)}`}>{h.episode_id}</Link>
                  </>
                )}
                {h.why && <span className="muted"> — {h.why}</span>}
              </li>
            ))}
          </ol>
        </>
      )}
    </main>
  );
}

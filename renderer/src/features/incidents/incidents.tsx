// Incidents (GET /v1/incidents): every incident, newest first, with its status, services,
// episode count and opening time, each linked to its page; the status filter (spec: a csv of
// open, mitigating, monitoring, resolved) lives in the URL, so a view is a link.
import { incidentKeys } from './queries.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { incidentsApi, type IncidentStatus } from './api.js';
import { Empty, ErrorNote, Link, Time } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import { Pager, paramHref } from '../../shared/list-nav.js';
import './incidents.css';
import '../../shared/table-scroll.css';

const STATUSES = [
  'open',
  'mitigating',
  'monitoring',
  'resolved',
] as const satisfies readonly IncidentStatus[];
const LIMIT = 100;

/** Under ['incident']: the top bar's heartbeat refetches it whenever the ledger's seq moves. */
const withParam = (params: URLSearchParams, key: string, value: string | null): string =>
  paramHref('/incidents', params, key, value);

export function IncidentsPage() {
  const { params } = useLocation();
  const chosen = new Set((params.get('status') ?? '').split(',').filter((s) => s !== ''));
  const offset = Number(params.get('offset') ?? '0');
  const apiParams = new URLSearchParams({ limit: String(LIMIT), offset: String(offset) });
  if (chosen.size > 0) apiParams.set('status', [...chosen].join(','));
  const query = apiParams.toString();
  const list = useQuery({
    queryKey: incidentKeys.list(query),
    queryFn: () => incidentsApi.list(query),
    placeholderData: keepPreviousData,
  });
  const data = list.data;
  return (
    <main className="page incidents">
      <h1>
        Incidents{' '}
        <span className="count">{data ? `${data.total.toLocaleString('en')} incidents` : ''}</span>
      </h1>
      <fieldset className="status-filter">
        <legend>Status</legend>
        {STATUSES.map((s) => (
          <label key={s} className="inline">
            <input
              type="checkbox"
              checked={chosen.has(s)}
              onChange={() => {
                const next = new Set(chosen);
                if (next.has(s)) next.delete(s);
                else next.add(s);
                const csv = STATUSES.filter((x) => next.has(x)).join(',');
                navigate(withParam(params, 'status', csv), { replace: true });
              }}
            />
            {s}
          </label>
        ))}
        <span className="muted">{chosen.size === 0 ? 'none ticked: every status' : ''}</span>
      </fieldset>
      <ErrorNote error={list.error} />
      {data && data.incidents.length === 0 && (
        <Empty>
          No incident{chosen.size > 0 ? ` is ${[...chosen].join(' or ')}` : ' yet'}. Alerts open
          incidents; running investigations are on <Link to="/live">Live</Link>.
        </Empty>
      )}
      {data && data.incidents.length > 0 && (
        <div className="table-scroll">
          <table className="table" aria-label="incidents">
            <thead>
              <tr>
                <th>Status</th>
                <th>Incident</th>
                <th>Services</th>
                <th className="num">Episodes</th>
                <th>Opened</th>
                <th>Resolved</th>
              </tr>
            </thead>
            <tbody>
              {data.incidents.map((i) => (
                <tr key={i.incident_id}>
                  <td>
                    <span className={`badge incident-${i.status}`}>{i.status}</span>
                  </td>
                  <td>
                    <Link to={`/incidents/${i.incident_id}`}>{i.incident_id}</Link>
                  </td>
                  <td>{i.services.join(', ')}</td>
                  <td className="num">{i.episodes.toLocaleString('en')}</td>
                  <td>
                    <Time iso={i.t_open} />
                  </td>
                  <td>
                    <Time iso={i.t_resolved} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && (
        <Pager
          offset={offset}
          limit={LIMIT}
          total={data.total}
          at={(o) => withParam(params, 'offset', String(o))}
        />
      )}
    </main>
  );
}

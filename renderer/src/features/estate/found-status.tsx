// What discovery found per connector, the problems, the unlinked services and the candidates.
import { type Estate } from './api.js';
import { Empty, Link, Time } from '../../shared/parts.js';

export const STATUS_GLYPH = { ok: '✓', stale: '◷', failed: '✕' } as const;

/** What each connector found, the problems, the unlinked services and any candidates. */
export function FoundStatus({
  estate,
  onOpen,
}: {
  estate: Estate;
  onOpen: (name: string) => void;
}) {
  const connectors = Object.entries(estate.connectors).sort(([a], [b]) => a.localeCompare(b));
  const answered = connectors.filter(([, c]) => c.status === 'ok').length;
  return (
    <section className="estate-found" aria-labelledby="estate-found-h">
      <h2 id="estate-found-h">
        Discovery{' '}
        <span className="count">
          {connectors.length === 0
            ? ''
            : `${String(answered)} of ${String(connectors.length)} connectors answered`}
        </span>
      </h2>
      {connectors.length === 0 ? (
        <Empty>
          No discovery has run yet. Connect a Prometheus (<Link to="/connections">Connections</Link>
          ) and press Discover, or place services and links in the overrides below.
        </Empty>
      ) : (
        <table className="table" aria-label="connectors found">
          <thead>
            <tr>
              <th>Connector</th>
              <th>Status</th>
              <th>Last attempt</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {connectors.map(([name, c]) => (
              <tr key={name}>
                <td>{name}</td>
                <td>
                  <span className={`found found-${c.status}`}>
                    <span aria-hidden="true">{STATUS_GLYPH[c.status]}</span> {c.status}
                  </span>
                </td>
                <td>
                  <Time iso={c.at} />
                </td>
                <td>{c.detail ?? <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {estate.problems.length > 0 && (
        <>
          <h3>Problems ({estate.problems.length})</h3>
          <ul className="plain problems">
            {estate.problems.map((p, i) => (
              <li key={i}>
                <span aria-hidden="true">⚠</span> <code>{p.what}</code> {p.detail}
              </li>
            ))}
          </ul>
        </>
      )}
      {estate.unlinked.length > 0 && (
        <>
          <h3>Unlinked ({estate.unlinked.length})</h3>
          <p className="hint">
            Services with no link either way: place one in the overrides if they depend on
            something.
          </p>
          <ul className="chips">
            {estate.unlinked.map((n) => (
              <li key={n}>
                <button type="button" className="linkish" onClick={() => onOpen(n)}>
                  {n}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {estate.candidates.length > 0 && (
        <>
          <h3>Candidates ({estate.candidates.length})</h3>
          <p className="hint">
            Seen running but listening on no port: name one in the overrides to make it a service.
          </p>
          <ul className="plain">
            {estate.candidates.map((c) => (
              <li key={`${c.connector}:${c.host}:${c.name}`}>
                <strong>{c.name}</strong> on {c.host}{' '}
                <span className="muted">
                  ({c.connector}: {c.how})
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

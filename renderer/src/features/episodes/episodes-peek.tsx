// A look at one episode of the list without leaving it (`Space` on a row, console brief C.3):
// its facts in a side panel (a sheet at the foot of a phone's screen) that follows `j`/`k`
// while open; Esc or Close puts it away, Open goes to the whole page.
import type { EpisodeRow } from './api.js';
import { Link, Time, duration } from '../../shared/parts.js';
import { SeverityMark } from '../../shared/severity.js';
import { causeName } from './causes.js';

const words = (s: string | null | undefined): string =>
  s === null || s === undefined || s === '' ? '—' : s.replace(/_/g, ' ');

export function EpisodePeek({ row, onClose }: { row: EpisodeRow; onClose: () => void }) {
  return (
    <aside className="episode-peek" aria-label={`Peek at ${row.episode_id}`}>
      <header>
        <h2>
          {row.service} <span className="count">{row.alerts.join(', ')}</span>
        </h2>
        <button type="button" onClick={onClose} aria-label="Close the peek (Esc)">
          ✕
        </button>
      </header>
      <dl className="facts">
        <dt>Severity</dt>
        <dd>
          <SeverityMark severity={row.severity} />
        </dd>
        <dt>Opened</dt>
        <dd>
          <Time iso={row.t_open} />
        </dd>
        <dt>Lasted</dt>
        <dd>{duration(row.duration_s)}</dd>
        <dt>Result</dt>
        <dd>
          {words(row.result)} <span className="muted">· outcome {words(row.outcome)}</span>
        </dd>
        <dt>Decision</dt>
        <dd>{words(row.decision)}</dd>
        <dt>Confidence</dt>
        <dd>{words(row.confidence)}</dd>
        <dt>Causes</dt>
        <dd>
          {row.confirmed.length === 0 ? 'none confirmed' : row.confirmed.map(causeName).join(', ')}
        </dd>
        <dt>Action</dt>
        <dd>{words(row.action)}</dd>
        <dt>Autonomy</dt>
        <dd>{words(row.autonomy)}</dd>
        <dt>Team verdict</dt>
        <dd>{row.verdict === null ? 'pending' : words(row.verdict)}</dd>
        <dt>Incident</dt>
        <dd>
          {row.incident_id === null ? (
            '—'
          ) : (
            <Link to={`/incidents/${row.incident_id}`}>{row.incident_id}</Link>
          )}
        </dd>
      </dl>
      <p>
        <Link to={`/episodes/${row.episode_id}`}>Open {row.episode_id} →</Link>
      </p>
    </aside>
  );
}

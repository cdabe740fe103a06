// The running episodes as dense rows, optionally in groups whose headers count rows by
// severity; each row says what puts it in its attention bucket (an approval awaited, a failed
// action, the leading hypothesis's confidence, the autonomy). On a phone only severity,
// service, alert and age stay, with what puts a row high (an awaited approval, a failed
// action, an unsure hypothesis) under its alert (live.css).
import { type RunningEpisode } from './api.js';
import { Link, age, duration } from '../../shared/parts.js';
import { quorumText, type ApprovalRequest } from '../approvals/index.js';
import { SeverityMark, severityGlyph } from '../../shared/severity.js';
import {
  ACTION_STATUS,
  CONFIDENCE,
  FAILED_ACTIONS,
  confidenceOf,
  type ActionStatus,
} from '../../shared/confidence.js';
import { severityCounts, type Grouping, type LiveGroup } from './live-rows.js';

const COLUMNS = 9;

function GroupHead({ group, grouping }: { group: LiveGroup; grouping: Grouping }) {
  const counts = severityCounts(group.rows);
  let label;
  if (group.key === '') label = grouping === 'incident' ? 'No incident' : 'No service';
  else if (grouping === 'incident') label = <Link to={`/incidents/${group.key}`}>{group.key}</Link>;
  else label = group.key;
  return (
    <tr className="group-head">
      <th colSpan={COLUMNS} scope="colgroup">
        {label}{' '}
        <span className="count">
          {group.rows.length} running
          {counts.map(([s, n]) => (
            <span key={s} className={`sev-${s}`}>
              {' · '}
              <span aria-hidden="true">{severityGlyph(s)}</span> {n} {s}
            </span>
          ))}
        </span>
      </th>
    </tr>
  );
}

/** "awaiting approval · 0 of 2 approvals · expires in 12 min", linked to the request. */
function Awaiting({ request, now }: { request: ApprovalRequest; now: number }) {
  const left = (Date.parse(request.expires_at) - now) / 1000;
  return (
    <Link to={`/approvals?sel=${encodeURIComponent(request.request_id)}`} className="awaiting">
      ◷ awaiting approval · {quorumText(request)} ·{' '}
      {/* To the minute, rounded up: seconds ticking here would only be noise. */}
      {left > 0 ? `expires in ${duration(Math.ceil(left / 60) * 60)}` : 'expired'}
    </Link>
  );
}

/** "↺ taken back", when the episode's action failed or was undone; else nothing. */
function FailedAction({ action }: { action: string }) {
  if (!FAILED_ACTIONS.includes(action)) return null;
  return <span className="failed-action">action {ACTION_STATUS[action as ActionStatus]}</span>;
}

/** The leading hypothesis's confidence as glyph and word; "none yet" before there is one. */
function Confidence({ value }: { value: string }) {
  const c = confidenceOf(value);
  if (c === null) return <span className="muted">none yet</span>;
  return (
    <span className={`conf conf-${c}`} title={`${c}: ${CONFIDENCE[c].meaning}`}>
      <span aria-hidden="true">{CONFIDENCE[c].glyph}</span> {c}
    </span>
  );
}

function Row({
  e,
  now,
  fresh,
  request,
}: {
  e: RunningEpisode;
  now: number;
  fresh: boolean;
  request: ApprovalRequest | undefined;
}) {
  return (
    <tr
      data-episode={e.episode_id}
      className={[fresh ? 'new' : '', e.status === 'quiet' ? 'quiet-row' : ''].join(' ').trim()}
    >
      <td className="severity">
        <SeverityMark severity={e.severity} />
      </td>
      <td className="service">{e.service}</td>
      <td className="alerts" title={e.alerts.join(', ')}>
        <Link to={`/episodes/${e.episode_id}`}>{e.alerts.join(', ') || '(no alert name)'}</Link>
        {/* On a phone the status column is gone: the request shows under the alert. */}
        {request !== undefined && (
          <span className="on-phone">
            <br />
            <Awaiting request={request} now={now} />
          </span>
        )}
        {FAILED_ACTIONS.includes(e.action) && (
          <span className="on-phone">
            <br />
            <FailedAction action={e.action} />
          </span>
        )}
        {(e.confidence === 'suspected' || e.confidence === 'disputed') && (
          <span className="on-phone">
            <br />
            <Confidence value={e.confidence} />
          </span>
        )}
      </td>
      <td className="status">
        {e.status === 'open' ? 'firing' : e.status}
        {request !== undefined && (
          <>
            <br />
            <Awaiting request={request} now={now} />
          </>
        )}
        {FAILED_ACTIONS.includes(e.action) && (
          <>
            {' · '}
            <FailedAction action={e.action} />
          </>
        )}
      </td>
      <td className="confidence">
        <Confidence value={e.confidence} />
      </td>
      <td className="autonomy">{e.autonomy}</td>
      <td className="step">{e.step}</td>
      <td className="num age">{age(e.t_open, now)}</td>
      <td className="episode">
        <Link to={`/episodes/${e.episode_id}`}>{e.episode_id}</Link>
      </td>
    </tr>
  );
}

export function LiveTable({
  groups,
  grouping,
  now,
  fresh,
  awaiting,
}: {
  groups: readonly LiveGroup[];
  grouping: Grouping;
  now: number;
  fresh: ReadonlySet<string>;
  /** the pending approval request each episode waits on */
  awaiting: ReadonlyMap<string, ApprovalRequest>;
}) {
  return (
    <table className="table live-table" aria-label="running episodes">
      <thead>
        <tr>
          <th className="severity">Severity</th>
          <th className="service">Service</th>
          <th className="alerts">Alerts</th>
          <th className="status">Status</th>
          <th className="confidence">Hypothesis</th>
          <th className="autonomy">Autonomy</th>
          <th className="step">Step</th>
          <th className="num age">Age</th>
          <th className="episode">Episode</th>
        </tr>
      </thead>
      {groups.map((g) => (
        <tbody key={g.key}>
          {grouping !== 'none' && <GroupHead group={g} grouping={grouping} />}
          {g.rows.map((e) => (
            <Row
              key={e.episode_id}
              e={e}
              now={now}
              fresh={fresh.has(e.episode_id)}
              request={awaiting.get(e.episode_id)}
            />
          ))}
        </tbody>
      ))}
    </table>
  );
}

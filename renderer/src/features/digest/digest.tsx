// The Digest page (issue 21): the digest a manager reads (GET /v1/digest), for today so far
// or the last days, as figures, the per-day chart and the Markdown to copy into a report.
import { digestKeys } from './queries.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { digestApi } from './api.js';
import { navigate, useLocation } from '../../shared/router.js';
import { duration, Empty, ErrorNote } from '../../shared/parts.js';
import { CopyButton } from '../../shared/clipboard.js';
import './digest.css';

const SPANS = [
  { days: 1, label: 'Today so far' },
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
] as const;

/** The chart's own words (its <title>), for the image's text alternative. */
const chartWords = (svg: string): string =>
  /<title>([^<]*)<\/title>/.exec(svg)?.[1]?.replace(/&amp;/g, '&') ?? 'Incidents per day';

export function DigestPage() {
  const { params } = useLocation();
  const asked = Number(params.get('days') ?? '1');
  const days = SPANS.some((s) => s.days === asked) ? asked : 1;
  const digest = useQuery({
    queryKey: digestKeys.days(days),
    queryFn: () => digestApi.get(days),
    placeholderData: keepPreviousData,
  });
  const d = digest.data;
  return (
    <main className="page digest">
      <h1>Digest</h1>
      <p className="hint">
        What happened, what the service did about it, how fast people were reached, what waits on
        them, and whether the audit log verifies. <code>svc-core digest</code> writes a day of it as
        a file.
      </p>
      <div role="group" aria-label="period" className="segmented">
        {SPANS.map((s) => (
          <button
            key={s.days}
            type="button"
            aria-pressed={s.days === days}
            onClick={() => {
              navigate(`/digest?days=${String(s.days)}`, { replace: true });
            }}
          >
            {s.label}
          </button>
        ))}
      </div>
      <ErrorNote error={digest.error} />
      {d && (
        <>
          <h2>
            {d.days === 1 ? d.last_day : `${d.first_day} to ${d.last_day}`}
            {d.partial ? ' (so far)' : ''}
          </h2>
          {!d.ledger.ok && (
            <p className="error" role="alert">
              ⚠ The audit log does not verify: {d.ledger.failure}
            </p>
          )}
          <dl className="facts" aria-label="digest figures">
            <dt>Incidents</dt>
            <dd>
              {d.incidents.opened} opened, {d.incidents.ended} ended
            </dd>
            <dt>Ended episodes</dt>
            <dd>
              {d.episodes.ended}: {d.service.diagnosed.proven} with a proven cause,{' '}
              {d.service.diagnosed.linked} linked, {d.service.diagnosed.other} without; an action
              ran in {d.service.acted}
            </dd>
            <dt>Time to handover</dt>
            <dd>
              median {duration(d.times.handover.median_s)}, 90th percentile{' '}
              {duration(d.times.handover.p90_s)} ({d.times.handover.n})
            </dd>
            <dt>Time to restore</dt>
            <dd>
              median {duration(d.times.restore.median_s)}, 90th percentile{' '}
              {duration(d.times.restore.p90_s)} ({d.times.restore.n})
            </dd>
            <dt>Approvals waiting</dt>
            <dd>{d.approvals_waiting}</dd>
            <dt>Shadow mode</dt>
            <dd>
              {d.shadow.episodes === 0
                ? 'no shadow episode'
                : `${String(d.shadow.episodes)}: the team did the same in ${String(d.shadow.team_agreed)}, something else in ${String(d.shadow.team_did_other)}, ${String(d.shadow.not_judged)} not judged`}
            </dd>
            <dt>Labels</dt>
            <dd>
              {d.labels.labels} ({d.labels.correct} right, {d.labels.wrong} wrong)
              {d.labels.demoted.length > 0 && `; demoted: ${d.labels.demoted.join(', ')}`}
            </dd>
            <dt>Audit log</dt>
            <dd>
              {d.ledger.ok ? `✓ verifies through seq ${String(d.ledger.head_seq)}` : '✕ fails'}
            </dd>
          </dl>
          <img
            className="chart"
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(d.chart_svg)}`}
            alt={chartWords(d.chart_svg)}
          />
          {d.incidents.by_service.length === 0 ? (
            <Empty>No incident opened or ended in this period.</Empty>
          ) : (
            <table className="table" aria-label="incidents by service">
              <thead>
                <tr>
                  <th scope="col">Service</th>
                  <th scope="col">Opened</th>
                  <th scope="col">Ended</th>
                </tr>
              </thead>
              <tbody>
                {d.incidents.by_service.map((s) => (
                  <tr key={s.service}>
                    <td>{s.service}</td>
                    <td>{s.opened}</td>
                    <td>{s.ended}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>As text</h2>
          <CopyButton text={d.markdown} what="the Markdown" label="Copy the Markdown" />
          <pre className="digest-text" aria-label="digest as Markdown">
            {d.markdown}
          </pre>
        </>
      )}
    </main>
  );
}

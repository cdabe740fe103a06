// Parts of the Audit page: a ledger row that opens to show what the event holds, and the
// verification's result in words, with the first bad seq as a link to the events around it.
import { Fragment } from 'react';
import { type LedgerPage, type VerifyReport } from './api.js';
import { Link, Time } from '../../shared/parts.js';

type LedgerEvent = LedgerPage['events'][number];

const EPISODE_ID = /^ep-\d{8}T\d{6}Z-[0-9a-f]{6}$/;
const INCIDENT_ID = /^in-\d{8}T\d{6}Z-[0-9a-f]{6}$/;

/** Episodes and incidents an event names at its top level, as console paths. */
export function subjectsOf(data: Record<string, unknown>): { to: string; label: string }[] {
  const found = new Map<string, string>();
  for (const value of Object.values(data)) {
    if (typeof value !== 'string') continue;
    if (EPISODE_ID.test(value)) found.set(`/episodes/${value}`, `episode ${value}`);
    if (INCIDENT_ID.test(value)) found.set(`/incidents/${value}`, `incident ${value}`);
  }
  return [...found.entries()].map(([to, label]) => ({ to, label }));
}

/** The audit query that shows the events around `seq`, oldest first. */
export const aroundSeq = (seq: number): string =>
  `/audit?order=asc&after_seq=${String(Math.max(0, seq - 6))}&limit=11`;

export function LedgerRow({
  event,
  open,
  onToggle,
}: {
  event: LedgerEvent;
  open: boolean;
  onToggle: () => void;
}) {
  const subjects = subjectsOf(event.data);
  const detailId = `ledger-event-${String(event.seq)}`;
  return (
    <Fragment>
      <tr className={open ? 'opened' : undefined}>
        <td className="num">
          <button
            type="button"
            className="linklike"
            aria-expanded={open}
            aria-controls={detailId}
            aria-label={`${open ? 'Close' : 'Open'} event ${String(event.seq)}`}
            onClick={onToggle}
          >
            {open ? '▾' : '▸'} {event.seq}
          </button>
        </td>
        <td>
          <Time iso={event.ts} />
        </td>
        <td>{event.type}</td>
        <td>{event.actor}</td>
        <td>{event.reason ?? ''}</td>
      </tr>
      {open && (
        <tr id={detailId} className="ledger-detail">
          <td colSpan={5}>
            <dl className="facts">
              <dt>Seq</dt>
              <dd>
                {event.seq} · <Link to={aroundSeq(event.seq)}>events around it</Link>
              </dd>
              {event.hash !== undefined && (
                <>
                  <dt>Hash</dt>
                  <dd>
                    <code className="hash">{event.hash}</code>
                  </dd>
                </>
              )}
              {subjects.length > 0 && (
                <>
                  <dt>About</dt>
                  <dd>
                    {subjects.map((s, i) => (
                      <Fragment key={s.to}>
                        {i > 0 && ', '}
                        <Link to={s.to}>{s.label}</Link>
                      </Fragment>
                    ))}
                  </dd>
                </>
              )}
            </dl>
            <pre className="ledger-data" aria-label={`data of event ${String(event.seq)}`}>
              {JSON.stringify(event.data, null, 2)}
            </pre>
          </td>
        </tr>
      )}
    </Fragment>
  );
}

export function VerifyResult({ report }: { report: VerifyReport }) {
  const sealed =
    report.segments === 0
      ? 'no segment sealed yet'
      : `${report.segments.toLocaleString('en')} segments sealed through seq ${report.sealed_through.toLocaleString('en')}`;
  if (report.ok)
    return (
      <p className="ok" role="status" data-verify>
        ✓ Verified: {report.checked.toLocaleString('en')} events through seq{' '}
        {report.head.seq.toLocaleString('en')}; {sealed}; {report.duration_ms.toLocaleString('en')}{' '}
        ms.
      </p>
    );
  const f = report.failure;
  return (
    <p className="error" role="status" data-verify>
      ✗ Verification failed
      {f !== null && (
        <>
          {' '}
          at seq {f.seq.toLocaleString('en')} ({f.check}
          {f.segment !== null && `, segment ${String(f.segment)}`}): {f.message}.{' '}
          <Link to={aroundSeq(f.seq)}>Show the events around seq {f.seq}</Link>
        </>
      )}
      {f === null && '.'} Checked {report.checked.toLocaleString('en')} events; {sealed}.
    </p>
  );
}

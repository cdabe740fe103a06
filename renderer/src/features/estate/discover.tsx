// The Discover button and the discovery job's progress until it ends.
import { estateKeys } from './queries.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { estateApi } from './api.js';
import { ErrorNote } from '../../shared/parts.js';
import { STATUS_GLYPH } from './found-status.js';

/** Discover: POST /v1/discover, then the job's progress until it ends. */
export function Discover({ isAdmin, reason }: { isAdmin: boolean; reason: string }) {
  const qc = useQueryClient();
  const [jobId, setJobId] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: estateApi.discover,
    onSuccess: ({ job_id }) => setJobId(job_id),
  });
  const job = useQuery({
    queryKey: estateKeys.job(jobId ?? ''),
    queryFn: () => estateApi.job(jobId ?? ''),
    enabled: jobId !== null,
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 500 : false),
  });
  const status = job.data?.status;
  useEffect(() => {
    if (status === 'done' || status === 'failed') {
      void qc.invalidateQueries({ queryKey: estateKeys.all });
      void qc.invalidateQueries({ queryKey: estateKeys.suggestions });
    }
  }, [status, qc]);
  const running = start.isPending || status === 'running';
  const j = job.data;
  return (
    <div className="discover">
      <button
        type="button"
        className="primary"
        disabled={!isAdmin || running}
        title={isAdmin ? 'Ask every Prometheus connector for its scrape targets' : reason}
        onClick={() => start.mutate()}
      >
        {running ? 'Discovering…' : 'Discover'}
      </button>
      <ErrorNote error={start.error ?? job.error} />
      {j !== undefined && (
        <div className="discover-job" role="status" aria-live="polite">
          <progress
            value={j.progress.done}
            max={Math.max(1, j.progress.total)}
            aria-label="discovery progress"
          />{' '}
          <span className="num">
            {j.progress.done}/{j.progress.total}
          </span>{' '}
          connectors ·{' '}
          {j.status === 'running'
            ? `discovering…${j.progress.step !== undefined ? ` (${j.progress.step})` : ''}`
            : j.status === 'done'
              ? `done: ${String(j.result?.services ?? 0)} services, ${String(j.result?.links ?? 0)} links`
              : 'failed'}
          {j.result !== null && (
            <ul className="plain per-connector">
              {Object.entries(j.result.per_connector).map(([name, c]) => (
                <li key={name}>
                  <span className={`found found-${c.status}`}>
                    <span aria-hidden="true">{STATUS_GLYPH[c.status]}</span> {name}: {c.status}
                  </span>
                  {c.detail !== null && <span className="muted"> — {c.detail}</span>}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

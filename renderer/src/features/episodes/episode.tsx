// One episode (console brief C.4), in the order it is read: the header facts, the decision
// with its caveats, what changed before it, the suppressions, the diagnosis, the timeline by
// seq, and the team's verdict.
import { episodeKeys } from './queries.js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { type Episode, episodesApi } from './api.js';
import { ErrorNote, Link, Time } from '../../shared/parts.js';
import { Changes } from './episode-changes.js';
import { Decision } from './episode-decision.js';
import { Timeline } from './episode-timeline.js';
import { VerdictForm } from './episode-verdict.js';
import './episode.css';

// Hypotheses, findings, decision and actions: loaded with the first episode opened.
const EpisodeDiagnosis = lazy(() => import('./episode-diagnosis.js'));

/**
 * A running episode's timeline grows: after the first read, ask only for the events after the
 * last seq held and merge them by seq (GET /v1/episodes/<id>?after_seq=N).
 */
async function fetchEpisode(id: string, held: Episode | undefined): Promise<Episode> {
  const last = held?.timeline.at(-1)?.seq;
  if (held === undefined || !held.live || last === undefined || held.more)
    return episodesApi.episode(id);
  const fresh = await episodesApi.episode(id, last);
  const bySeq = new Map(held.timeline.map((t) => [t.seq, t] as const));
  for (const t of fresh.timeline) bySeq.set(t.seq, t);
  return { ...fresh, timeline: [...bySeq.values()].sort((a, b) => a.seq - b.seq) };
}

export function EpisodePage({ id }: { id: string }) {
  const qc = useQueryClient();
  const episode = useQuery({
    queryKey: episodeKeys.detail(id),
    queryFn: () => fetchEpisode(id, qc.getQueryData<Episode>(episodeKeys.detail(id))),
  });
  const e = episode.data;
  return (
    <main className="page episode-page">
      <p>
        <Link to="/episodes">← Episodes</Link>
      </p>
      <ErrorNote error={episode.error} />
      {e && (
        <>
          <h1>
            {e.service} <span className="count">{e.alerts.join(', ')}</span>
          </h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              {e.live ? `${e.status ?? ''} (running, step ${e.step ?? ''})` : `closed: ${e.result}`}
            </dd>
            <dt>Opened</dt>
            <dd>
              <Time iso={e.t_open} />
            </dd>
            <dt>Closed</dt>
            <dd>
              <Time iso={e.t_close} />
            </dd>
            <dt>Outcome</dt>
            <dd>
              {e.outcome ? e.outcome.replace(/_/g, ' ') : '—'}
              {e.result && <span className="muted"> · result {e.result.replace(/_/g, ' ')}</span>}
            </dd>
            <dt>Confidence</dt>
            <dd>{e.confidence}</dd>
            <dt>Causes</dt>
            <dd>
              {e.confirmed.length === 0 ? 'none confirmed' : e.confirmed.map(String).join(', ')}
            </dd>
            <dt>Incident</dt>
            <dd>
              {e.incident_id === null ? (
                '—'
              ) : (
                <Link to={`/incidents/${e.incident_id}`}>{e.incident_id}</Link>
              )}{' '}
              ({e.relation})
            </dd>
            <dt>Autonomy</dt>
            <dd>{e.autonomy}</dd>
            <dt>Team verdict</dt>
            <dd>
              {e.team ? `${e.team.verdict}${e.team.detail ? `: ${e.team.detail}` : ''}` : 'pending'}
            </dd>
            <dt>Id</dt>
            <dd>
              <code>{e.episode_id}</code>
            </dd>
          </dl>
          <Decision episode={e} />
          <Changes episode={e} />
          {e.suppressed.length > 0 && (
            <div className="banner" role="note">
              Suppressed:{' '}
              {e.suppressed
                .map(
                  (s) =>
                    `${s.kind} ${s.rule}${s.kind === 'maintenance' ? ` until ${s.until}` : ''}`,
                )
                .join('; ')}{' '}
              — recorded, not investigated.
            </div>
          )}
          <Suspense fallback={<p className="muted">Loading the diagnosis…</p>}>
            <EpisodeDiagnosis episode={e} />
          </Suspense>
          <Timeline episode={e} />
          <VerdictForm episode={e} />
        </>
      )}
    </main>
  );
}

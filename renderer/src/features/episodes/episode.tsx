// One episode (console brief C.4), in the order it is read: the header facts, the decision
// with its caveats, what changed before it, the suppressions, the diagnosis, the timeline by
// seq, and the team's verdict. Opened from the Episodes list, it offers the previous and the
// next of that list (`[` `]`).
import { episodeKeys } from './queries.js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo } from 'react';
import { type Episode, episodesApi } from './api.js';
import { ErrorNote, Link, Time } from '../../shared/parts.js';
import { isShortcutKey } from '../../shared/keys.js';
import { useHeightVariable } from '../../shared/height-variable.js';
import { navigate } from '../../shared/router.js';
import { causeName } from './causes.js';
import { neighbours, rememberedList, type Neighbours } from './episode-browse.js';
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

/** Back to the list this episode was opened from, and its previous and next (`[` `]`). */
function BrowseBar({ around }: { around: Neighbours }) {
  const to = (id: string) => `/episodes/${encodeURIComponent(id)}`;
  return (
    <nav className="episode-browse" aria-label="the list">
      <Link to={around.from}>← Episodes</Link>
      <span className="muted">
        {' '}
        · {around.at} of {around.of} in the list ·{' '}
      </span>
      {around.previous === null ? (
        <span className="muted">first</span>
      ) : (
        <Link to={to(around.previous)}>‹ previous</Link>
      )}
      {' · '}
      {around.next === null ? (
        <span className="muted">last</span>
      ) : (
        <Link to={to(around.next)}>next ›</Link>
      )}
    </nav>
  );
}

const words = (s: string): string => s.replace(/_/g, ' ');

/** The header's one line: running or how it ended, autonomy, confidence, the team's verdict. */
export function stateLine(e: Episode): string {
  const state = e.live
    ? `● running${e.step ? `, step ${e.step}` : ''}`
    : `closed${e.result ? `: ${words(e.result)}` : ''}`;
  return [
    state,
    e.autonomy === '' ? null : `autonomy ${e.autonomy}`,
    e.confidence === '' ? null : `confidence ${words(e.confidence)}`,
    `verdict ${e.team ? words(e.team.verdict) : 'pending'}`,
  ]
    .filter((part) => part !== null)
    .join(' · ');
}

export function EpisodePage({ id }: { id: string }) {
  const qc = useQueryClient();
  const episode = useQuery({
    queryKey: episodeKeys.detail(id),
    queryFn: () => fetchEpisode(id, qc.getQueryData<Episode>(episodeKeys.detail(id))),
  });
  const e = episode.data;
  // Rows scrolled into view (a ?seq anchor, the newest when following) clear the head.
  const head = useHeightVariable('--episode-head-h');
  const around = useMemo(() => neighbours(rememberedList(), id), [id]);
  useEffect(() => {
    if (around === null) return;
    const onKey = (k: KeyboardEvent): void => {
      if (!isShortcutKey(k) || (k.key !== '[' && k.key !== ']')) return;
      const to = k.key === '[' ? around.previous : around.next;
      if (to === null) return;
      k.preventDefault();
      navigate(`/episodes/${encodeURIComponent(to)}`);
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
  }, [around]);
  return (
    <main className="page episode-page">
      {around === null ? (
        <p>
          <Link to="/episodes">← Episodes</Link>
        </p>
      ) : (
        <BrowseBar around={around} />
      )}
      <ErrorNote error={episode.error} />
      {e && (
        <>
          {/* Stays under the top bar while the timeline scrolls: what this episode is. */}
          <header className="episode-head" ref={head}>
            <h1 title={`${e.service}: ${e.alerts.join(', ')}`}>
              {e.service} <span className="count">{e.alerts.join(', ')}</span>
            </h1>
            <p className="episode-state">{stateLine(e)}</p>
          </header>
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
              {e.confirmed.length === 0 ? 'none confirmed' : e.confirmed.map(causeName).join(', ')}
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

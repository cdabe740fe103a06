// The Learning page (issue 21): what labels say about the diagnoses. Counts, calibration (a
// chart and a table), demoted causes, precision per cause and pack, the learned patterns with
// the actions their state allows (admin), and a form to label an episode (responder).
import { statusKeys } from '../status/index.js';
import { useMe } from '../people/index.js';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { roleAtLeast } from '../../shared/api.js';
import { Empty, ErrorNote, Link, Time } from '../../shared/parts.js';
import { CalibrationChart } from './learning-chart.js';
import { learningApi, type LearningBody, type Precision } from './api.js';
import { learningKeys } from './queries.js';
import { actionsFrom, isPatternState, percent, type PatternState } from './learning-words.js';
import { usePageAction } from '../../shared/page-action.js';
import './learning.css';

const STATE_WORDS: Record<PatternState, string> = {
  proposed: '◇ proposed',
  promoted: '◆ promoted',
  disabled: '○ disabled',
  rejected: '✕ rejected',
};

function Counts({ body }: { body: LearningBody }) {
  const c = body.counts;
  if (c.labels === 0)
    return (
      <Empty>
        No episode labelled yet. Record what the team did on a closed episode (its page, “Record
        verdict”), or label one below.
      </Empty>
    );
  const sources = Object.entries(c.by_source)
    .map(([source, n]) => `${source} ${String(n)}`)
    .join(', ');
  return (
    <p aria-label="labels counted">
      {c.labels} labelled episode{c.labels === 1 ? '' : 's'}: {c.correct} right, {c.wrong} wrong
      (from {sources}).
    </p>
  );
}

function PrecisionTable({ title, rows }: { title: string; rows: readonly Precision[] }) {
  return (
    <table className="table" aria-label={title}>
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Right</th>
          <th scope="col">Precision</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.name}>
            <td>{r.name}</td>
            <td>
              {r.correct} of {r.labels}
            </td>
            <td>{percent(r.precision)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Calibration({ body }: { body: LearningBody }) {
  return (
    <section aria-labelledby="calibration">
      <h2 id="calibration">Calibration</h2>
      <p className="hint">
        For each confidence the service gave its leading cause, how often the label said it was
        right. Proven should be right nearly always.
      </p>
      <div className="chart-pair">
        <CalibrationChart levels={body.calibration} />
        <table className="table" aria-label="calibration by confidence">
          <thead>
            <tr>
              <th scope="col">Confidence</th>
              <th scope="col">Right</th>
              <th scope="col">Share</th>
            </tr>
          </thead>
          <tbody>
            {body.calibration.map((l) => (
              <tr key={l.confidence}>
                <td>{l.confidence}</td>
                <td>
                  {l.labels === 0 ? 'no labels' : `${String(l.correct)} of ${String(l.labels)}`}
                </td>
                <td>{l.share === null ? '—' : percent(l.share)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Demotions({ body }: { body: LearningBody }) {
  const r = body.rules;
  return (
    <section aria-labelledby="demotions">
      <h2 id="demotions">Demoted causes</h2>
      <p className="hint">
        A cause whose last {r.demotion_window} labels number at least {r.demotion_min_labels} and
        are right less than {percent(r.demotion_bar)} of the time is held at suspected, however
        strong its own evidence, until its labels recover.
      </p>
      {body.demotions.length === 0 ? (
        <Empty>No cause is demoted.</Empty>
      ) : (
        <table className="table" aria-label="demoted causes">
          <thead>
            <tr>
              <th scope="col">Cause</th>
              <th scope="col">Right now</th>
              <th scope="col">Demoted since</th>
            </tr>
          </thead>
          <tbody>
            {body.demotions.map((d) => (
              <tr key={d.cause}>
                <td>▼ {d.cause}</td>
                <td>
                  {percent(d.precision)} of {d.labels}
                </td>
                <td>
                  <Time iso={d.since} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Patterns({ admin, minSupport }: { admin: boolean; minSupport: number }) {
  const patterns = useQuery({ queryKey: learningKeys.patterns, queryFn: learningApi.patterns });
  const action = usePageAction(learningKeys.all, statusKeys.status);
  const list = patterns.data?.patterns ?? [];
  // Opened from an episode's "matches learned pattern": bring the list into view.
  const loaded = patterns.data !== undefined;
  useEffect(() => {
    if (loaded && window.location.hash === '#patterns')
      document.getElementById('patterns')?.scrollIntoView();
  }, [loaded]);
  return (
    <section aria-labelledby="patterns">
      <h2 id="patterns">Learned patterns</h2>
      <p className="hint">
        The same alerts, service, cause and fix labelled right {minSupport} times and never wrong. A
        promoted pattern marks a new episode that repeats it; it never raises a confidence its
        checks do not show.
      </p>
      <ErrorNote error={patterns.error ?? action.error} />
      {patterns.data && list.length === 0 && <Empty>No pattern found yet.</Empty>}
      {list.length > 0 && (
        <table className="table" aria-label="learned patterns">
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Alerts</th>
              <th scope="col">Cause and fix</th>
              <th scope="col">Labels</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((p) => (
              <tr key={p.pattern_id} aria-label={`pattern ${p.pattern_id}`}>
                <td>{p.service}</td>
                <td>{p.alerts.join(', ')}</td>
                <td>
                  {p.cause}
                  {p.fix !== null && <span className="muted"> → {p.fix}</span>}
                </td>
                <td>
                  {p.support} right{p.wrong > 0 && `, ${String(p.wrong)} wrong`}
                </td>
                <td>
                  {isPatternState(p.state) ? STATE_WORDS[p.state] : p.state}
                  {p.changed_by !== null && <span className="muted"> by {p.changed_by}</span>}
                </td>
                <td className="actions">
                  {actionsFrom(p.state).map((a) => (
                    <button
                      key={a}
                      type="button"
                      disabled={!admin || action.busy}
                      title={admin ? undefined : `${a} needs the admin role`}
                      onClick={() => {
                        if (a === 'delete' && !window.confirm(`Delete pattern ${p.pattern_id}?`))
                          return;
                        action.run(() => learningApi.decide(p.pattern_id, a));
                      }}
                    >
                      {a}
                    </button>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function LabelForm({ responder }: { responder: boolean }) {
  const action = usePageAction(learningKeys.all, statusKeys.status);
  const [episode, setEpisode] = useState('');
  const [correct, setCorrect] = useState<'' | 'right' | 'wrong'>('');
  const [source, setSource] = useState('');
  const [done, setDone] = useState<{ id: string; text: string } | null>(null);
  return (
    <section aria-labelledby="label">
      <h2 id="label">Label an episode</h2>
      <p className="hint">
        For a verdict reached outside the console: a ticket closed, a post-incident review. Only a
        closed episode is labelled, and an outside label never replaces the team&apos;s verdict,
        which is recorded and changed on the episode&apos;s page.
      </p>
      {!responder && (
        <p className="banner" role="note">
          Labelling needs the responder role.
        </p>
      )}
      <form
        className="label-form"
        aria-label="label an episode"
        onSubmit={(e) => {
          e.preventDefault();
          setDone(null);
          action.run(
            () =>
              learningApi.label({ episode: episode.trim(), correct: correct === 'right', source }),
            (answer) => {
              setDone({
                id: answer.episode_id,
                text: `labelled ${correct}${answer.cause === null ? ', with no cause named' : `: ${answer.cause} at ${answer.confidence}`}.`,
              });
              setEpisode('');
              setCorrect('');
            },
          );
        }}
      >
        <label>
          Episode
          <input
            name="episode"
            value={episode}
            placeholder="ep-…"
            disabled={!responder}
            onChange={(e) => {
              setEpisode(e.target.value);
            }}
          />
        </label>
        <fieldset disabled={!responder}>
          <legend>The service&apos;s diagnosis was</legend>
          {(['right', 'wrong'] as const).map((v) => (
            <label key={v}>
              <input
                type="radio"
                name="correct"
                value={v}
                checked={correct === v}
                onChange={() => {
                  setCorrect(v);
                }}
              />
              {v}
            </label>
          ))}
        </fieldset>
        <label>
          Source
          <input
            name="source"
            value={source}
            placeholder="e.g. jira, review"
            disabled={!responder}
            onChange={(e) => {
              setSource(e.target.value);
            }}
          />
        </label>
        <button
          type="submit"
          disabled={
            !responder ||
            action.busy ||
            episode.trim() === '' ||
            correct === '' ||
            source.trim() === ''
          }
        >
          Label
        </button>
      </form>
      <ErrorNote error={action.error} />
      {done !== null && (
        <p className="ok" role="status">
          <Link to={`/episodes/${encodeURIComponent(done.id)}`}>{done.id}</Link> {done.text}
        </p>
      )}
    </section>
  );
}

export function LearningPage() {
  const me = useMe();
  const summary = useQuery({ queryKey: learningKeys.summary, queryFn: learningApi.summary });
  const role = me.data?.role;
  const body = summary.data;
  return (
    <main className="page learning">
      <h1>Learning</h1>
      <p className="hint">
        Every team verdict labels the service&apos;s diagnosis: same or advice say it was right,
        other says it was wrong. From the labels come precision, calibration and demotions, and
        doctor&apos;s accuracy check reads them.
      </p>
      <ErrorNote error={summary.error} />
      {body && (
        <>
          <Counts body={body} />
          <Calibration body={body} />
          <Demotions body={body} />
          <section aria-labelledby="precision">
            <h2 id="precision">Precision</h2>
            {body.precision.causes.length === 0 ? (
              <Empty>No cause labelled yet.</Empty>
            ) : (
              <div className="chart-pair">
                <PrecisionTable title="by cause" rows={body.precision.causes} />
                <PrecisionTable title="by pack" rows={body.precision.packs} />
              </div>
            )}
          </section>
          <Patterns
            admin={roleAtLeast(role, 'admin')}
            minSupport={body.rules.pattern_min_support}
          />
        </>
      )}
      <LabelForm responder={roleAtLeast(role, 'responder')} />
    </main>
  );
}

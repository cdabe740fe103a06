// The Study page (issue 21): start a timed, read-only study of the estate (admin), follow it
// while it runs (asked again every second), stop it, and read what the last one learned per
// service: normal ranges, obstacles with their fixes, relations (offered on the Estate page
// as suggestions) and the causes whose checks can be read.
import { statusKeys } from '../status/index.js';
import { useMe } from '../people/index.js';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { roleAtLeast } from '../../shared/api.js';
import { Empty, ErrorNote, Link, Time } from '../../shared/parts.js';
import { usePageAction } from '../../shared/page-action.js';
import { studyApi, type ServiceStudied, type StudyBody } from './api.js';
import { studyKeys } from './queries.js';
import { shown } from './study-words.js';
import './study.css';

const STEP_WORDS: Record<NonNullable<StudyBody['running']>['step'], string> = {
  baseline: 'reading baselines',
  relations: 'relating services',
  causes: 'reading causes',
};

const STATUS_WORDS: Record<string, string> = {
  running: '▶ running',
  finished: '✓ finished',
  stopped: '■ stopped',
  interrupted: '⚠ interrupted',
};

const READING_WORDS: Record<string, string> = {
  up: 'targets up',
  cpu: 'CPU (cores)',
  memory: 'memory',
  open_fds: 'open files',
  host_cpu_busy: 'host CPU busy',
  host_memory_available: 'host memory available',
};

export function StartForm({ admin, running }: { admin: boolean; running: boolean }) {
  const action = usePageAction(studyKeys.all, statusKeys.status);
  const [minutes, setMinutes] = useState('15');
  const n = Number(minutes);
  const valid = Number.isInteger(n) && n >= 1 && n <= 120;
  return (
    <section aria-labelledby="study-start">
      <h2 id="study-start">Start a study</h2>
      <p className="hint">
        The study only reads: range queries to Prometheus and the packs&apos; checks, the same reads
        an investigation makes. It ends at its deadline or when stopped, before its next cause.
      </p>
      {!admin && (
        <p className="banner" role="note">
          Starting a study needs the admin role.
        </p>
      )}
      <form
        className="study-form"
        aria-label="start a study"
        onSubmit={(e) => {
          e.preventDefault();
          action.run(() => studyApi.start(n));
        }}
      >
        <label>
          Minutes (1 to 120)
          <input
            name="minutes"
            type="number"
            min={1}
            max={120}
            step={1}
            value={minutes}
            disabled={!admin}
            onChange={(e) => {
              setMinutes(e.target.value);
            }}
          />
        </label>
        <button type="submit" disabled={!admin || running || !valid || action.busy}>
          Start study
        </button>
      </form>
      <ErrorNote error={action.error} />
    </section>
  );
}

export function Progress({ body, admin }: { body: StudyBody; admin: boolean }) {
  const action = usePageAction(studyKeys.all, statusKeys.status);
  const r = body.running;
  if (r === null) return null;
  const where = [r.service, r.cause].filter((x): x is string => x !== null).join(' · ');
  return (
    <section aria-labelledby="study-progress" className="study-progress">
      <h2 id="study-progress">Running</h2>
      <p role="status" aria-label="study progress">
        {STEP_WORDS[r.step]}
        {where !== '' && `: ${where}`} — {r.done} of {r.of} causes read
        {r.stopping && ' — stopping before the next cause'}
      </p>
      <progress max={Math.max(r.of, 1)} value={r.done} aria-label="causes read" />
      <p className="muted">
        Ends by <Time iso={r.ends_at} />
      </p>
      <button
        type="button"
        disabled={!admin || r.stopping || action.busy}
        title={admin ? undefined : 'stopping a study needs the admin role'}
        onClick={() => {
          action.run(() => studyApi.stop());
        }}
      >
        Stop study
      </button>
      <ErrorNote error={action.error} />
    </section>
  );
}

function LastStudy({ body }: { body: StudyBody }) {
  const s = body.study;
  if (s === null) return null;
  return (
    <p aria-label="last study">
      {STATUS_WORDS[s.status] ?? s.status} — {s.minutes} min study by {s.by}, started{' '}
      <Time iso={s.started_at} />
      {s.why !== null && s.status !== 'finished' && ` (${s.why})`}
      {s.why === 'deadline' && ' (ended at its deadline)'}
      {s.relations_note !== null && <span className="muted"> — {s.relations_note}</span>}
    </p>
  );
}

function ServiceCard({ s }: { s: ServiceStudied }) {
  const readable = s.causes.filter((c) => c.readable > 0);
  const unreadable = s.causes.filter((c) => c.readable === 0);
  return (
    <article className="study-service" aria-label={`study of ${s.service}`}>
      <h3>
        {s.service}
        {!s.complete && <span className="muted"> — not every cause was read</span>}
      </h3>
      <p className="muted">
        Readings of <Time iso={s.window.from} /> to <Time iso={s.window.to} />, every{' '}
        {s.window.step_s} s. The normal range is for people to read here; it never changes a
        diagnosis.
      </p>
      <h4>Baseline</h4>
      {s.baseline.length === 0 ? (
        <Empty>No reading of {s.service} over the window.</Empty>
      ) : (
        <table className="table" aria-label={`baseline of ${s.service}`}>
          <thead>
            <tr>
              <th scope="col">Reading</th>
              <th scope="col">Normal (p5–p95)</th>
              <th scope="col">Seen</th>
            </tr>
          </thead>
          <tbody>
            {s.baseline.map((b) => (
              <tr key={b.reading}>
                <td title={b.query}>{READING_WORDS[b.reading] ?? b.reading}</td>
                <td>
                  {shown(b.reading, b.p5)}–{shown(b.reading, b.p95)}
                </td>
                <td>
                  {shown(b.reading, b.min)}–{shown(b.reading, b.max)} ({b.n} points)
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Obstacles</h4>
      {s.obstacles.length === 0 ? (
        <Empty>Nothing stopped the study reading {s.service}.</Empty>
      ) : (
        <ul className="study-obstacles" aria-label={`obstacles of ${s.service}`}>
          {s.obstacles.map((o) => (
            <li key={`${o.what}\u0000${o.fix}`}>
              <strong>⚠ {o.fix}</strong>
              <span className="muted">
                {' '}
                ({o.what}: {o.reason})
              </span>
            </li>
          ))}
        </ul>
      )}
      <h4>Relations</h4>
      {s.relations.length === 0 ? (
        <Empty>No other service moves with {s.service}.</Empty>
      ) : (
        <ul aria-label={`relations of ${s.service}`}>
          {s.relations.map((r) => (
            <li key={`${r.from}\u0000${r.to}`}>
              {r.from} → {r.to}: {r.readings},{' '}
              {r.lag === 0 ? 'together' : `${r.to} leads by ${String(r.lag)} steps`}, strength{' '}
              {r.strength} (
              {r.method === 'causal_service' ? 'causal service' : 'lagged correlation'})
            </li>
          ))}
          <li>
            <Link to="/estate">Confirm or dismiss on the Estate page (suggestions)</Link>
          </li>
        </ul>
      )}
      <h4>Causes</h4>
      {s.causes.length === 0 ? (
        <Empty>No cause of the packs read for {s.service}.</Empty>
      ) : (
        // Dozens of causes per service: the counts show, each cause when asked for.
        <details>
          <summary aria-label={`causes of ${s.service}`}>
            ✓ {readable.length} of {s.causes.length} causes have checks that can be read; ✕{' '}
            {unreadable.length} have none.
          </summary>
          <table className="table" aria-label={`cause checks of ${s.service}`}>
            <thead>
              <tr>
                <th scope="col">Cause</th>
                <th scope="col">Checks read</th>
                <th scope="col">Not read</th>
              </tr>
            </thead>
            <tbody>
              {s.causes.map((c) => (
                <tr key={c.cause}>
                  <td>
                    {c.readable > 0 ? '✓' : '✕'} {c.cause}
                  </td>
                  <td>
                    {c.readable} of {c.checks}
                  </td>
                  <td className="study-why">
                    {c.unreadable.map((u) => `${u.check}: ${u.why}`).join('; ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </article>
  );
}

export function StudyPage() {
  const me = useMe();
  const study = useQuery({
    queryKey: studyKeys.all,
    queryFn: studyApi.get,
    // Progress moves while a study runs; at rest the page waits to be asked.
    refetchInterval: (q) => (q.state.data?.running != null ? 1000 : false),
  });
  const admin = roleAtLeast(me.data?.role, 'admin');
  const body = study.data;
  return (
    <main className="page study">
      <h1>Study</h1>
      <p className="hint">
        A study walks each service of the estate and learns its normal ranges, what the service
        cannot read there (with the fix), which services move together, and which causes the packs
        know can be checked.
      </p>
      <ErrorNote error={study.error} />
      <StartForm admin={admin} running={body?.running != null} />
      {body && (
        <>
          <Progress body={body} admin={admin} />
          <section aria-labelledby="study-last">
            <h2 id="study-last">Last results per service</h2>
            <LastStudy body={body} />
            {body.last.length === 0 ? (
              <Empty>No study has run yet.</Empty>
            ) : (
              body.last.map((s) => <ServiceCard key={s.service} s={s} />)
            )}
          </section>
        </>
      )}
    </main>
  );
}

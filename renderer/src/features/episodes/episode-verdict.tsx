// What the team did (POST /v1/episodes/<id>/team, responder): no answer is chosen for the
// person, Record stays off until one is, "other" needs its detail as the API does, and a
// viewer sees the form disabled with the role it needs before trying (console brief D.1).
import { episodeKeys } from './queries.js';
import { useMe } from '../people/index.js';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type Episode, episodesApi } from './api.js';
import { roleAtLeast } from '../../shared/api.js';
import { ErrorNote, Time } from '../../shared/parts.js';

export const VERDICTS = [
  ['same', 'Did what it said'],
  ['advice', 'Followed its advice'],
  ['other', 'Did something else'],
  ['none', 'Did nothing'],
] as const;
export type Verdict = (typeof VERDICTS)[number][0];

const labelOf = (v: string): string => VERDICTS.find(([id]) => id === v)?.[1] ?? v;

export function VerdictForm({ episode }: { episode: Episode }) {
  const id = episode.episode_id;
  const qc = useQueryClient();
  const me = useMe();
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [detail, setDetail] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const reasonId = useId();
  const allowed = roleAtLeast(me.data?.role, 'responder');
  const missing =
    verdict === null
      ? 'Choose what the team did.'
      : verdict === 'other' && detail.trim() === ''
        ? 'Say what the team did instead.'
        : null;
  // Who gave the verdict in force: the latest episode.team event on the timeline.
  const last = episode.timeline.findLast((t) => t.type === 'episode.team');
  return (
    <form
      className="verdict"
      aria-label="Team verdict"
      aria-describedby={allowed ? undefined : reasonId}
      onSubmit={(e) => {
        e.preventDefault();
        if (verdict === null || missing !== null) return;
        setError(null);
        setBusy(true);
        episodesApi
          .team(id, verdict, detail.trim())
          .then(async () => {
            setVerdict(null);
            setDetail('');
            await qc.invalidateQueries({ queryKey: episodeKeys.detail(id) });
          })
          .catch((err: unknown) => {
            setError(err);
          })
          .finally(() => setBusy(false));
      }}
    >
      <h2>Team verdict</h2>
      <p className="verdict-current">
        {episode.team === null ? (
          <span className="muted">No verdict recorded yet.</span>
        ) : (
          <>
            Recorded: <strong>{labelOf(episode.team.verdict)}</strong>
            {episode.team.detail ? ` — ${episode.team.detail}` : ''}
            {last !== undefined && (
              <span className="muted">
                {' '}
                by {last.actor}, <Time iso={last.ts} />
              </span>
            )}
          </>
        )}
      </p>
      {me.data !== undefined && !allowed && (
        <p id={reasonId} className="verdict-reason" role="note">
          ⊘ Recording a verdict needs the responder role; you are signed in as {me.data.role}.
        </p>
      )}
      <fieldset disabled={!allowed || busy}>
        <legend>What the team did{episode.team === null ? '' : ' (change it)'}</legend>
        {VERDICTS.map(([value, label]) => (
          <label key={value}>
            <input
              type="radio"
              name="verdict"
              value={value}
              checked={verdict === value}
              onChange={() => setVerdict(value)}
            />{' '}
            {label}
          </label>
        ))}
      </fieldset>
      <label>
        Detail {verdict === 'other' ? '(required)' : '(optional)'}
        <textarea
          name="detail"
          value={detail}
          maxLength={2000}
          disabled={!allowed || busy}
          required={verdict === 'other'}
          onChange={(e) => setDetail(e.target.value)}
        />
      </label>
      <div className="verdict-submit">
        <button
          type="submit"
          disabled={!allowed || busy || missing !== null}
          title={allowed ? (missing ?? undefined) : 'Needs the responder role'}
        >
          Record verdict
        </button>
        {allowed && missing !== null && <span className="muted">{missing}</span>}
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

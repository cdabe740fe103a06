// One team verdict for every ticked episode (console brief C.3, bulk "set verdict"): the same
// rules as an episode's own form (a responder, nothing chosen for the person, "other" needs
// its detail), sent one episode at a time (POST /v1/episodes/<id>/team, each its own ledger
// event) with the progress said, and each refusal named by its episode.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useMe } from '../people/index.js';
import { roleAtLeast } from '../../shared/api.js';
import { ErrorNote } from '../../shared/parts.js';
import { type EpisodeRow, episodesApi } from './api.js';
import { VERDICTS, type Verdict } from './episode-verdict.js';
import { episodeKeys } from './queries.js';

interface Run {
  readonly done: number;
  readonly of: number;
  readonly busy: boolean;
  readonly refused: readonly { readonly id: string; readonly error: unknown }[];
}

export function BulkVerdict({
  rows,
  onBusy,
}: {
  rows: readonly EpisodeRow[];
  /** While recording, the ticks are held (no Clear, no unticking) so this stays on screen. */
  onBusy: (busy: boolean) => void;
}) {
  const qc = useQueryClient();
  const me = useMe();
  const allowed = roleAtLeast(me.data?.role, 'responder');
  const [verdict, setVerdict] = useState<Verdict | ''>('');
  const [detail, setDetail] = useState('');
  const [run, setRun] = useState<Run | null>(null);
  const busy = run?.busy === true;
  const missing =
    verdict === ''
      ? 'Choose what the team did.'
      : verdict === 'other' && detail.trim() === ''
        ? 'Say what the team did instead.'
        : null;

  const record = async (chosen: Verdict, ids: readonly string[]): Promise<void> => {
    const refused: { id: string; error: unknown }[] = [];
    onBusy(true);
    setRun({ done: 0, of: ids.length, busy: true, refused });
    try {
      for (const [i, id] of ids.entries()) {
        try {
          await episodesApi.team(id, chosen, detail.trim());
        } catch (error: unknown) {
          refused.push({ id, error });
        }
        setRun({ done: i + 1, of: ids.length, busy: true, refused: [...refused] });
      }
      await Promise.all([
        qc.invalidateQueries({ queryKey: episodeKeys.lists }),
        qc.invalidateQueries({ queryKey: episodeKeys.details }),
      ]);
    } finally {
      setRun({ done: ids.length, of: ids.length, busy: false, refused });
      onBusy(false);
    }
  };

  return (
    <form
      className="bulk-verdict"
      aria-label="Verdict for the ticked episodes"
      onSubmit={(e) => {
        e.preventDefault();
        if (verdict === '' || missing !== null || busy) return;
        void record(
          verdict,
          rows.map((r) => r.episode_id),
        );
      }}
    >
      <label>
        Verdict{' '}
        <select
          value={verdict}
          disabled={!allowed || busy}
          onChange={(e) => {
            setVerdict(e.target.value as Verdict | '');
          }}
        >
          <option value="">choose…</option>
          {VERDICTS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {verdict === 'other' && (
        <input
          aria-label="What the team did instead"
          placeholder="What the team did instead"
          value={detail}
          maxLength={2000}
          disabled={busy}
          onChange={(e) => {
            setDetail(e.target.value);
          }}
        />
      )}
      <button
        type="submit"
        disabled={!allowed || busy || missing !== null}
        title={allowed ? (missing ?? undefined) : 'Needs the responder role'}
      >
        Record for {rows.length}
      </button>
      {me.data !== undefined && !allowed && (
        <span className="verdict-reason">
          ⊘ Recording a verdict needs the responder role; you are signed in as {me.data.role}.
        </span>
      )}
      <span role="status">
        {run === null
          ? ''
          : run.busy
            ? `Recording ${String(run.done)} of ${String(run.of)}…`
            : `Recorded for ${String(run.of - run.refused.length)} of ${String(run.of)}.`}
      </span>
      {run !== null && run.refused.length > 0 && (
        <ul className="plain bulk-refused" aria-label="refused">
          {run.refused.map(({ id, error }) => (
            <li key={id}>
              <code>{id}</code>
              <ErrorNote error={error} />
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

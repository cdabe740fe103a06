// Suggested links with their evidence, confirmed or dismissed by an admin.
import { estateKeys } from './queries.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type EstateSuggestion, estateApi } from './api.js';
import { ApiError } from '../../shared/api.js';
import { Empty, ErrorNote } from '../../shared/parts.js';

function evidenceText(evidence: unknown): string {
  return typeof evidence === 'string' ? evidence : JSON.stringify(evidence);
}

/** Suggested links with their evidence; confirm or dismiss (admin). */
export function Suggestions({ isAdmin, reason }: { isAdmin: boolean; reason: string }) {
  const qc = useQueryClient();
  const list = useQuery({
    queryKey: estateKeys.suggestions,
    // An older service has no suggestions: say so rather than fail.
    queryFn: () =>
      estateApi.suggestions().catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }),
    retry: false,
  });
  const [done, setDone] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: ({ s, verb }: { s: EstateSuggestion; verb: 'confirm' | 'dismiss' }) =>
      verb === 'confirm' ? estateApi.confirm(s.id) : estateApi.dismiss(s.id),
    onSuccess: (_, { s, verb }) => {
      setDone(`${verb === 'confirm' ? 'Confirmed' : 'Dismissed'} ${s.from} → ${s.to}`);
      void qc.invalidateQueries({ queryKey: estateKeys.suggestions });
      void qc.invalidateQueries({ queryKey: estateKeys.all });
    },
  });
  const suggestions = list.data?.suggestions ?? [];
  return (
    <section className="estate-suggestions" aria-labelledby="estate-suggestions-h">
      <h2 id="estate-suggestions-h">
        Suggested links{' '}
        {suggestions.length > 0 && <span className="count">{suggestions.length}</span>}
      </h2>
      {list.data === null && <p className="muted">This service does not suggest links yet.</p>}
      <ErrorNote error={list.error ?? act.error} />
      {done !== null && (
        <p className="ok" role="status">
          ✓ {done}
        </p>
      )}
      {list.data !== null && list.data !== undefined && suggestions.length === 0 && (
        <Empty>No suggestions waiting.</Empty>
      )}
      {suggestions.length > 0 && (
        <table className="table" aria-label="suggested links">
          <thead>
            <tr>
              <th>Link</th>
              <th className="num">Score</th>
              <th>Evidence</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {suggestions.map((s) => (
              <tr key={s.id}>
                <td>
                  {s.from} → {s.to}
                </td>
                <td className="num">{s.score.toFixed(2)}</td>
                <td className="evidence">{evidenceText(s.evidence)}</td>
                <td className="actions">
                  <button
                    type="button"
                    disabled={!isAdmin || act.isPending}
                    title={isAdmin ? 'Add this link to the estate' : reason}
                    aria-label={`Confirm ${s.from} → ${s.to}`}
                    onClick={() => act.mutate({ s, verb: 'confirm' })}
                  >
                    ✓ Confirm
                  </button>{' '}
                  <button
                    type="button"
                    disabled={!isAdmin || act.isPending}
                    title={isAdmin ? 'Do not suggest this link again' : reason}
                    aria-label={`Dismiss ${s.from} → ${s.to}`}
                    onClick={() => act.mutate({ s, verb: 'dismiss' })}
                  >
                    ✕ Dismiss
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

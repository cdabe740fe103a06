// The overrides document as JSON, edited in place and replaced on save.
import { estateKeys } from './queries.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { type EstateOverrides, estateApi } from './api.js';
import { ApiError } from '../../shared/api.js';
import { ErrorNote, Time } from '../../shared/parts.js';

const format = (o: unknown): string => JSON.stringify(o, null, 2);

/** The overrides as JSON: what is being typed is never replaced by a refetch. */
export function OverridesEditor({ isAdmin, reason }: { isAdmin: boolean; reason: string }) {
  const qc = useQueryClient();
  const id = useId();
  const view = useQuery({ queryKey: estateKeys.overrides, queryFn: estateApi.overrides });
  const [text, setText] = useState<string | null>(null);
  const [problem, setProblem] = useState<{ message: string; field?: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const server = view.data === undefined ? '' : format(view.data.overrides);
  // Untouched, the editor follows the server; once typed in, it is the person's until saved.
  const shown = text ?? server;
  const dirty = text !== null && text !== server;
  const save = useMutation({
    mutationFn: (body: EstateOverrides) => estateApi.putOverrides(body),
    onSuccess: (answer) => {
      qc.setQueryData(estateKeys.overrides, answer);
      setText(null);
      setProblem(null);
      setSaved(true);
      void qc.invalidateQueries({ queryKey: estateKeys.all });
    },
    onError: (err) => {
      setSaved(false);
      setProblem(
        err instanceof ApiError
          ? { message: err.message, ...(err.field !== undefined && { field: err.field }) }
          : { message: err instanceof Error ? err.message : String(err) },
      );
    },
  });
  useEffect(() => {
    if (dirty) setSaved(false);
  }, [dirty]);
  const submit = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(shown);
    } catch (err) {
      setProblem({ message: `not valid JSON: ${(err as Error).message}` });
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setProblem({ message: 'the overrides are one JSON object: {services, links, ignore}' });
      return;
    }
    setProblem(null);
    save.mutate(parsed);
  };
  let note: ReactNode = null;
  if (view.data?.set_by != null)
    note = (
      <span className="muted">
        Set by {view.data.set_by} at <Time iso={view.data.set_at} />
      </span>
    );
  return (
    <section className="estate-overrides" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Overrides</h2>
      <p className="hint">
        Hand-made services (with <code>kind</code> and <code>aliases</code>), placed links and
        ignored names; they apply at once, without a new discovery. {note}
      </p>
      <ErrorNote error={view.error} />
      <form
        aria-label="overrides"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label htmlFor={`${id}-text`} className="visually-hidden">
          Overrides JSON
        </label>
        <textarea
          id={`${id}-text`}
          className="overrides-text"
          spellCheck={false}
          rows={Math.min(24, Math.max(8, shown.split('\n').length + 1))}
          value={shown}
          readOnly={!isAdmin}
          aria-invalid={problem !== null}
          aria-describedby={problem !== null ? `${id}-error` : `${id}-help`}
          onChange={(e) => setText(e.target.value)}
        />
        <p id={`${id}-help`} className="hint">
          Example:{' '}
          <code>
            {
              '{"services": {"db": {"aliases": ["pg-main"], "kind": "postgresql"}}, "links": [{"from": "web", "to": "db"}], "ignore": ["legacy"]}'
            }
          </code>
        </p>
        {problem !== null && (
          <p id={`${id}-error`} className="error" role="alert">
            ⚠ {problem.message}
            {problem.field !== undefined && (
              <>
                {' '}
                (field <code>{problem.field}</code>)
              </>
            )}
          </p>
        )}
        {saved && !dirty && (
          <p className="ok" role="status">
            ✓ Saved the overrides
          </p>
        )}
        <div className="buttons">
          <button
            type="submit"
            disabled={!isAdmin || save.isPending || !dirty}
            title={!isAdmin ? reason : dirty ? 'Replace the overrides' : 'Nothing changed yet'}
          >
            Save overrides
          </button>{' '}
          <button
            type="button"
            disabled={!dirty}
            onClick={() => {
              setText(null);
              setProblem(null);
            }}
          >
            Discard changes
          </button>
          {!isAdmin && <span className="muted"> {reason}</span>}
        </div>
      </form>
    </section>
  );
}

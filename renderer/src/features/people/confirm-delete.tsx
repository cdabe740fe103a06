// Delete in place with a confirmation (a person, a team): "Delete", then the question with
// "Yes, delete" (focused) and "Keep"; a refusal shows beside the button. People and teams
// name each other, so both lists are read again after.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Refusal } from '../../shared/http.js';
import { peopleKeys } from './queries.js';

export function ConfirmDelete({
  what,
  question,
  remove,
  why = null,
}: {
  /** what is deleted, as a screen reader hears the button ("ann@example.com", "team db") */
  what: string;
  /** the question, with what follows from it */
  question: string;
  remove: () => Promise<unknown>;
  /** why it cannot be deleted by this person; null: it can */
  why?: string | null;
}) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // "Keep" or a refusal puts the focus back on Delete (the buttons it was on are gone).
  const deleteButton = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (confirming) asked.current = true;
    else if (asked.current) deleteButton.current?.focus();
  }, [confirming]);
  if (!confirming)
    return (
      <>
        <button
          ref={deleteButton}
          type="button"
          disabled={why !== null}
          title={why ?? undefined}
          onClick={() => {
            setConfirming(true);
            setError(null);
          }}
        >
          Delete<span className="visually-hidden"> {what}</span>
        </button>
        <Refusal error={error} />
      </>
    );
  return (
    <span className="confirm" role="group" aria-label={`Delete ${what}?`}>
      {question}{' '}
      <button
        type="button"
        className="danger"
        disabled={busy}
        autoFocus
        onClick={() => {
          setBusy(true);
          // Busy until the lists are read again: the row goes before a second click can land.
          remove()
            .then(() =>
              Promise.all([
                qc.invalidateQueries({ queryKey: peopleKeys.users }),
                qc.invalidateQueries({ queryKey: peopleKeys.teams }),
              ]),
            )
            .catch((err: unknown) => {
              setError(err);
              setConfirming(false);
            })
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        Yes, delete
      </button>{' '}
      <button
        type="button"
        className="quiet"
        onClick={() => {
          setConfirming(false);
        }}
      >
        Keep
      </button>
    </span>
  );
}

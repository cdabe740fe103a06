// What the sign-in settings forms share: a 400 naming a field marks that field invalid, says
// why beside it and takes the keyboard there; and the "last set" line.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../../shared/api.js';
import type { FieldProblem } from '../../shared/field-problems.js';
import { Time } from '../../shared/parts.js';

export const idOf = (form: string, field: string) =>
  `${form}-${field.replace(/[^a-z0-9]+/gi, '-')}`;

/** A 400 naming a field becomes a field problem; anything else a general error. */
export function useProblems(form: string) {
  const ref = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [general, setGeneral] = useState<unknown>(null);
  useEffect(() => {
    if (problem === null) return;
    ref.current?.querySelector<HTMLElement>(`#${idOf(form, problem.field)}`)?.focus();
  }, [problem, form]);
  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 400 && err.field !== undefined)
      setProblem({ field: err.field, message: err.message });
    else setGeneral(err);
  };
  const clear = () => {
    setProblem(null);
    setGeneral(null);
  };
  /** id and aria attributes of the input for a field; a field prefix matches too (domains.1). */
  const input = (field: string) => {
    const hit =
      problem !== null && (problem.field === field || problem.field.startsWith(`${field}.`));
    return {
      id: idOf(form, field),
      ...(hit && {
        'aria-invalid': true as const,
        'aria-describedby': `${idOf(form, field)}-error`,
      }),
    };
  };
  const note = (field: string): ReactNode =>
    problem !== null && (problem.field === field || problem.field.startsWith(`${field}.`)) ? (
      <p className="error field-error" id={`${idOf(form, field)}-error`} role="alert">
        ⚠ {problem.field}: {problem.message}
      </p>
    ) : null;
  return { ref, problem, general, fail, clear, input, note };
}

export function SetBy({ by, at }: { by: string | null; at: string | null }) {
  return (
    <p className="hint">
      Last set:{' '}
      {at === null ? (
        'never (the defaults)'
      ) : (
        <>
          <Time iso={at} /> by {by ?? 'unknown'}
        </>
      )}
    </p>
  );
}

// A 400 that names a field is shown beside that field: the input's id is derived from the
// server's field name under a per-form prefix, and the input points at its error with aria.

export interface FieldProblem {
  field: string;
  message: string;
}

/** The id helper, error line and aria attributes of one form's fields, ids under `prefix-`. */
export function fieldProblems(prefix: string) {
  /** The id of the input for a server field name: `settings.url` → `prefix-settings-url`. */
  const idOf = (field: string): string => `${prefix}-${field.replace(/[^a-z0-9]+/gi, '-')}`;

  function FieldError({ field, problem }: { field: string; problem: FieldProblem | null }) {
    if (problem?.field !== field) return null;
    return (
      <p className="error field-error" id={`${idOf(field)}-error`} role="alert">
        ⚠ {problem.message}
      </p>
    );
  }

  /** aria attributes of an input whose field may carry the server's complaint, and its hint. */
  function invalidIf(field: string, problem: FieldProblem | null, hint?: string) {
    const invalid = problem?.field === field;
    const describedBy = [invalid ? `${idOf(field)}-error` : undefined, hint].filter(Boolean);
    return {
      ...(invalid && { 'aria-invalid': true as const }),
      ...(describedBy.length > 0 && { 'aria-describedby': describedBy.join(' ') }),
    };
  }

  return { idOf, FieldError, invalidIf };
}

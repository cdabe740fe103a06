// How a page puts a refusal in words: the role a 403 needs, the field of a 400, a 409's why.
import { ApiError } from './api.js';

/** A refusal in words: the role a 403 needs, the field of a 400, a 409's why. */
export function explain(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  if (err.status === 403 && err.role !== undefined)
    return `${err.message} (needs the ${err.role} role)`;
  if (err.code === 'last_owner')
    return /owner first/i.test(err.message)
      ? err.message
      : `${err.message}. Make someone else owner first.`;
  if (err.status === 404 && err.code === 'not_found' && /^HTTP/.test(err.message))
    return 'not found (this service may not offer it yet)';
  if (err.field !== undefined && err.field !== 'document') return `${err.field}: ${err.message}`;
  return err.message;
}

export function Refusal({ error, id }: { error: unknown; id?: string }) {
  if (error === null || error === undefined) return null;
  return (
    <p className="error" role="alert" id={id}>
      ⚠ {explain(error)}
    </p>
  );
}

// How the investigation pages (approvals, autonomy, halt, policy, approval links) put a
// refusal in words. Their calls go through api.ts's `call` and `request` like every page, and
// their queries are refreshed by the live heartbeat (queries.ts `useLive`).
import { ApiError } from './api.js';

/** A refusal in words: the role a 403 needs, the field of a 400, a 409's why. */
export function explain(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  if (err.status === 403 && err.role !== undefined)
    return `${err.message} (needs the ${err.role} role)`;
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

// The running episodes (GET /v1/live), revalidated by ETag: a few hundred bytes when seq has not moved.
import type { LiveBody, RunningEpisode } from '../../../../server/episodes/episodes.schemas.js';
import { reaching } from '../../shared/connection.js';
import { ApiError, session } from '../../shared/api.js';

// The last live view with its ETag, per session token: GET /v1/live asks If-None-Match and
// a 304 gives this same object back (so nothing re-renders).
let liveCache: { token: string | null; etag: string; body: Live } | null = null;

/** GET /v1/live, revalidated: a few hundred bytes when seq has not moved. */
async function liveView(): Promise<Live> {
  const token = session.get();
  const cached = liveCache?.token === token ? liveCache : null;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (cached !== null) headers['if-none-match'] = cached.etag;
  // no-store: the browser's own cache would answer the revalidation itself, unseen.
  const res = await reaching('/v1/live', { headers, cache: 'no-store' });
  if (res.status === 304 && cached !== null) return cached.body;
  if (!res.ok) {
    if (res.status === 401 && token !== null) session.clear();
    const parsed: unknown = await res.json().catch(() => ({}));
    throw new ApiError(
      res.status,
      typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {},
    );
  }
  const body = (await res.json()) as Live;
  const etag = res.headers.get('etag');
  liveCache = etag === null ? null : { token, etag, body };
  return body;
}

/** GET /v1/live: the running episodes and the ledger's seq (the server's schema). */
export type Live = LiveBody;
export type { RunningEpisode };

export const liveApi = {
  live: liveView,
};

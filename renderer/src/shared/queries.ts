// Query keys in one place, and the live heartbeat: the live stream (GET /v1/live/stream) says
// when the ledger's seq moves, and only then is GET /v1/live fetched (revalidated by ETag);
// while the stream is down, GET /v1/live is polled with If-None-Match. Every other list
// refetches only when its `seq` moves.
import { useQuery, useQueryClient, keepPreviousData } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { type Live, liveApi } from '../features/live/index.js';
import { liveStream, pageVisibility } from '../features/live/index.js';

export const keys = {
  status: ['status'] as const,
  me: ['me'] as const,
  live: ['live'] as const,
  episodes: (query: string) => ['episodes', query] as const,
  episode: (id: string) => ['episode', id] as const,
  incident: (id: string) => ['incident', id] as const,
  ledger: (query: string) => ['ledger', query] as const,
  doctor: ['doctor'] as const,
  estate: ['estate', 'view'] as const,
  estateOverrides: ['estate', 'overrides'] as const,
  // Outside ['estate']: an older service answers 404, and that need not be asked every seq.
  estateSuggestions: ['estate-suggestions'] as const,
  job: (id: string) => ['job', id] as const,
};

/** Polling while the stream is down: under a second from an alert's 202 to the Live page. */
const HEARTBEAT_MS = 500;
/** The same in a hidden tab: one 304 of a few hundred bytes per 30 s (docs/performance.md). */
const HIDDEN_HEARTBEAT_MS = 30_000;

export function useLive(enabled: boolean) {
  const qc = useQueryClient();
  const streaming = useSyncExternalStore(liveStream.subscribe, liveStream.streaming);
  const hidden = useSyncExternalStore(pageVisibility.subscribe, pageVisibility.hidden);
  useEffect(() => {
    if (!enabled) return;
    return liveStream.onSeq((seq) => {
      if (qc.getQueryData<Live>(keys.live)?.seq !== seq) {
        void qc.invalidateQueries({ queryKey: keys.live });
      }
    });
  }, [enabled, qc]);
  const live = useQuery({
    queryKey: keys.live,
    queryFn: liveApi.live,
    enabled,
    refetchInterval: streaming ? false : hidden ? HIDDEN_HEARTBEAT_MS : HEARTBEAT_MS,
    refetchIntervalInBackground: true,
    placeholderData: keepPreviousData,
  });
  const seq = live.data?.seq;
  useEffect(() => {
    if (seq === undefined) return;
    // Everything that shows ledger-derived state is stale once seq moves.
    void qc.invalidateQueries({ queryKey: ['episodes'] });
    void qc.invalidateQueries({ queryKey: ['episode'] });
    void qc.invalidateQueries({ queryKey: ['incident'] });
    void qc.invalidateQueries({ queryKey: ['ledger'] });
    void qc.invalidateQueries({ queryKey: keys.status });
    // Discoveries, overrides and confirmed suggestions are ledger events too.
    void qc.invalidateQueries({ queryKey: ['estate'] });
    // So is every approval decision, autonomy or fix mode change, halt, resume and policy save.
    void qc.invalidateQueries({ queryKey: ['approvals'] });
    void qc.invalidateQueries({ queryKey: ['autonomy'] });
    void qc.invalidateQueries({ queryKey: ['policy'] });
    // Installs asked, vouched and removed are licence events.
    void qc.invalidateQueries({ queryKey: ['licence'] });
    // Members added, removed, renamed, heard again; site keys made and used: keychain events.
    void qc.invalidateQueries({ queryKey: ['keychain'] });
  }, [seq, qc]);
  return live;
}

// The live heartbeat: the live stream (GET /v1/live/stream) says when the ledger's seq moves,
// and only then is GET /v1/live fetched (revalidated by ETag); while the stream is down,
// GET /v1/live is polled with If-None-Match.
import { useQuery, useQueryClient, keepPreviousData } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { liveApi, type Live } from './api.js';
import { liveStream, pageVisibility } from './live-stream.js';

export const liveKeys = { all: ['live'] as const };

/** Polling while the stream is down (refused at its cap, cut by a proxy): every 2 s, so a tab
 * stays within 5 KB per 10 s idle (docs/performance.md) and an alert still shows within 2 s. */
const HEARTBEAT_MS = 2_000;
/** The same in a hidden tab: one 304 of a few hundred bytes per 30 s (docs/performance.md). */
const HIDDEN_HEARTBEAT_MS = 30_000;

export function useLive(enabled: boolean) {
  const qc = useQueryClient();
  const streaming = useSyncExternalStore(liveStream.subscribe, liveStream.streaming);
  const hidden = useSyncExternalStore(pageVisibility.subscribe, pageVisibility.hidden);
  useEffect(() => {
    if (!enabled) return;
    return liveStream.onSeq((seq) => {
      if (qc.getQueryData<Live>(liveKeys.all)?.seq !== seq) {
        void qc.invalidateQueries({ queryKey: liveKeys.all });
      }
    });
  }, [enabled, qc]);
  const live = useQuery({
    queryKey: liveKeys.all,
    queryFn: liveApi.live,
    enabled,
    refetchInterval: streaming ? false : hidden ? HIDDEN_HEARTBEAT_MS : HEARTBEAT_MS,
    refetchIntervalInBackground: true,
    placeholderData: keepPreviousData,
  });
  return live;
}

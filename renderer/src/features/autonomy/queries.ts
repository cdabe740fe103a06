// The autonomy query's key and the one query the top bar, the banner and the page share.
import { useQuery } from '@tanstack/react-query';
import { autonomyApi } from './api.js';

/** GET /v1/autonomy (the halt state included): every ledger seq move refetches it. */
export const autonomyKeys = {
  all: ['autonomy'] as const,
};

/**
 * GET /v1/autonomy, one query for the bar, banner and page; the shell's ledger refresh
 * refetches it when the seq moves (shell/ledger-refresh.tsx).
 */
export function useAutonomy() {
  return useQuery({ queryKey: autonomyKeys.all, queryFn: autonomyApi.get });
}

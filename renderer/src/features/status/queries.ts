// The status and doctor queries: their keys and the hook every page that reads GET /v1/status
// shares (one cached answer, refreshed as the ledger moves).
import { useQuery } from '@tanstack/react-query';
import { statusApi } from './api.js';

export const statusKeys = {
  status: ['status'] as const,
  doctor: ['doctor'] as const,
};

export const useStatus = () => useQuery({ queryKey: statusKeys.status, queryFn: statusApi.status });

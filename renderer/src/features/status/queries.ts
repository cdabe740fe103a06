// The status and doctor queries: their keys and the hook every page that reads GET /v1/status
// shares (one cached answer, refreshed as the ledger moves; the doctor is not ledger-derived,
// so it has its own member, never refreshed with `status`).
import { useQuery } from '@tanstack/react-query';
import { statusApi } from './api.js';

const all = ['status'] as const;

export const statusKeys = {
  all,
  status: [...all, 'service'] as const,
  doctor: [...all, 'doctor'] as const,
};

export const useStatus = () => useQuery({ queryKey: statusKeys.status, queryFn: statusApi.status });

// The branding query: its key and the hook the top bar, the sign-in page and Settings share
// (read without a credential; a minute fresh).
import { useQuery } from '@tanstack/react-query';
import { brandingApi } from './api.js';

export const brandingKeys = {
  all: ['branding'] as const,
};

export const useBranding = () =>
  useQuery({ queryKey: brandingKeys.all, queryFn: brandingApi.branding, staleTime: 60_000 });

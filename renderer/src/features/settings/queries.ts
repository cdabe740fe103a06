// The settings page's own query: the impact figures (branding and the sign-in settings are
// their features' own).
import { useQuery } from '@tanstack/react-query';
import { impactApi } from './api.js';

export const impactKeys = {
  all: ['impact'] as const,
};

export const useImpact = () => useQuery({ queryKey: impactKeys.all, queryFn: impactApi.get });

// The people queries: their keys, and `useMe`, the signed-in person every page asks for its
// role (one cached answer).
import { useQuery } from '@tanstack/react-query';
import { peopleApi } from './api.js';

export const peopleKeys = {
  me: ['me'] as const,
  users: ['users'] as const,
  teams: ['teams'] as const,
};

export const useMe = () => useQuery({ queryKey: peopleKeys.me, queryFn: peopleApi.me });

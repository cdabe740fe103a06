// The people queries: their keys, and the hooks the feature shares. `useMe` is the signed-in
// person every page asks for its role (one cached answer). The three keys are separate
// families (no common prefix): a change names each one it touches.
import { useQuery } from '@tanstack/react-query';
import { peopleApi } from './api.js';

export const peopleKeys = {
  me: ['me'] as const,
  users: ['users'] as const,
  teams: ['teams'] as const,
};

export const useMe = () => useQuery({ queryKey: peopleKeys.me, queryFn: peopleApi.me });

/** Everyone (admin only: `enabled` false for anyone else, who would be refused). */
export const useUsers = (enabled: boolean) =>
  useQuery({ queryKey: peopleKeys.users, queryFn: peopleApi.list, enabled });

export const useTeams = () => useQuery({ queryKey: peopleKeys.teams, queryFn: peopleApi.teams });

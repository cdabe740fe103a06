// The sign-in settings' queries: one key family under `all`, and a hook per document.
import { useQuery } from '@tanstack/react-query';
import { accessApi, mailApi, ssoApi } from './api.js';

const all = ['settings'] as const;
export const accessKeys = {
  all,
  access: [...all, 'access'] as const,
  mail: [...all, 'mail'] as const,
  sso: [...all, 'sso'] as const,
};

export const useAccessSettings = () =>
  useQuery({ queryKey: accessKeys.access, queryFn: accessApi.get });
export const useMailSettings = () => useQuery({ queryKey: accessKeys.mail, queryFn: mailApi.get });
export const useSsoSettings = () => useQuery({ queryKey: accessKeys.sso, queryFn: ssoApi.get });

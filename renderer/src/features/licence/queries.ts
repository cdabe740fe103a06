// The licence feature's query keys (kept in keys.ts, out of the first load's way), and the
// queries and actions its components share. The page's forms (install, remove, ask, look,
// vouch, poll, download) run through the shared page action; the licence and the status are
// asked again after each success.
import { useQuery } from '@tanstack/react-query';
import { statusKeys } from '../status/index.js';
import { usePageAction, type PageAction } from '../../shared/page-action.js';
import { licenceApi } from './api.js';
import { licenceKeys } from './keys.js';

export { licenceKeys };

export type LicenceAction = PageAction;

export const useLicenceAction = (): LicenceAction =>
  usePageAction(licenceKeys.all, statusKeys.status);

/** GET /v1/licence/installs: this install, the licence's installs, requests and history. */
export const useInstalls = () =>
  useQuery({ queryKey: licenceKeys.installs, queryFn: licenceApi.installs });

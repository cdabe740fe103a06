// The Licence page's forms (install, remove, ask, look, vouch, poll, download) run through
// the shared page action; the licence and status are asked again after each success.
import { statusKeys } from '../status/index.js';
import { usePageAction, type PageAction } from '../../shared/page-action.js';
import { licenceKeys } from './licence-queries.js';

export type LicenceAction = PageAction;

export const useLicenceAction = (): LicenceAction =>
  usePageAction(licenceKeys.all, statusKeys.status);

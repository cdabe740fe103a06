// Everything that shows ledger-derived state is stale once the ledger's seq moves: the live
// heartbeat (features/live) says when, and this asks each such family of queries again. The
// families are the features' own key factories; a feature whose view is made of ledger events
// belongs in this list.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { approvalKeys } from '../features/approvals/index.js';
import { auditKeys } from '../features/audit/index.js';
import { autonomyKeys } from '../features/autonomy/index.js';
import { episodeKeys } from '../features/episodes/index.js';
import { estateKeys } from '../features/estate/index.js';
import { incidentKeys } from '../features/incidents/index.js';
import { keychainKeys } from '../features/keychain/index.js';
import { licenceKeys } from '../features/licence/index.js';
import { useLive } from '../features/live/index.js';
import { policyKeys } from '../features/policy/index.js';
import { statusKeys } from '../features/status/index.js';

const LEDGER_DERIVED = [
  episodeKeys.lists,
  episodeKeys.details,
  incidentKeys.all,
  auditKeys.all,
  statusKeys.status,
  // Discoveries, overrides and confirmed suggestions are ledger events too.
  estateKeys.all,
  // So is every approval decision, autonomy or fix mode change, halt, resume and policy save.
  approvalKeys.all,
  autonomyKeys.all,
  policyKeys.all,
  // Installs asked, vouched and removed are licence events.
  licenceKeys.all,
  // Members added, removed, renamed, heard again; site keys made and used: keychain events.
  keychainKeys.all,
];

/** Mounted once in every signed-in view (the frame, the wall); draws nothing. */
export function LedgerRefresh() {
  const qc = useQueryClient();
  const seq = useLive(true).data?.seq;
  useEffect(() => {
    if (seq === undefined) return;
    for (const queryKey of LEDGER_DERIVED) void qc.invalidateQueries({ queryKey });
  }, [seq, qc]);
  return null;
}

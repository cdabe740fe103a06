// The home that won a fork of two take-overs (design/keychain.md §2.7) may have missed the
// old home's last records that the losing side saw: a member added just before the old home
// was lost, say the losing claimant itself. Following the winner's log as it stands would
// leave that member out of the keychain, so the winner signs those records again at its own
// epoch, each copy marked with the hash of the record it copies (`adopted`); the loser
// follows only once every member it knows is there (adoptsMembers).
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { appendRecord, recordHash, type LogRecord } from './authority-log.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Identity } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';

interface Deps {
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly clock: Clock;
  readonly identity: Identity;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Inside the caller's writer job, on the winning home: copies the old home's records that
 * only the loser holds (checked by the caller with checkLog) into our log. Returns how many
 * were copied; those copied before are not copied again.
 */
export function adoptMissed(deps: Deps, missed: readonly LogRecord[], told: string): number {
  const { store, ledger, clock, identity } = deps;
  const self = identity.fingerprint;
  const st = store.state();
  if (st?.role !== 'home') return 0;
  const done = new Set(store.log().map((r) => r.body['adopted']));
  let copied = 0;
  for (const r of missed) {
    const original = recordHash(r);
    const fp = str(r.body['fp']);
    // Only roster records are the old home's to say; a removal of this home would be void.
    const kind = r.type;
    if (done.has(original) || (kind === 'member_remove' && fp === self)) continue;
    if (kind !== 'member_add' && kind !== 'member_remove' && kind !== 'rename') continue;
    const record = appendRecord(
      store.log().at(-1) ?? null,
      {
        keychain_id: st.keychain_id,
        epoch: st.epoch,
        type: kind,
        body: { ...r.body, adopted: original },
      },
      { fp: self, key: identity.key },
      clock.nowIso(),
    );
    const actor = `peer:${told}`;
    if (kind === 'member_add')
      ledger.append({
        type: 'keychain.member_added',
        actor,
        data: {
          fingerprint: fp,
          label: str(r.body['label']),
          sig_pub: str(r.body['sig_pub']),
          kx_pub: str(r.body['kx_pub']),
          address: typeof r.body['address'] === 'string' ? r.body['address'] : null,
          via: 'fork',
          record,
        },
      });
    else if (kind === 'member_remove') {
      store.dropWitness(fp);
      ledger.append({
        type: 'keychain.member_removed',
        actor,
        data: { fingerprint: fp, reason: str(r.body['reason']) || 'fork', record },
      });
    } else
      ledger.append({
        type: 'keychain.member_renamed',
        actor,
        data: { fingerprint: fp, label: str(r.body['label']), record },
      });
    copied += 1;
  }
  return copied;
}

// Member health as the home hears it (design/keychain.md §2.8): silent after 3 minutes
// without an authenticated word, gone after a day; nothing is removed automatically.
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import type { KeychainEvents } from './keychain.events.js';
import type { KeychainStore, MemberHealth } from './keychain.store.js';

export const SILENT_AFTER_S = 180;
export const GONE_AFTER_S = 86_400;

export function quietSeconds(since: string, nowMs: number): number {
  const t = Date.parse(since);
  return Number.isFinite(t) ? Math.max(0, Math.floor((nowMs - t) / 1000)) : 0;
}

export function healthOf(quietS: number): MemberHealth {
  if (quietS >= GONE_AFTER_S) return 'gone';
  if (quietS >= SILENT_AFTER_S) return 'silent';
  return 'ok';
}

/**
 * Records each member's change of health once per transition (silent, gone, back), on
 * the home only. Run on a timer and after a member is heard.
 */
export function createHealthWatch(deps: {
  store: KeychainStore;
  ledger: DomainLedger<KeychainEvents>;
  writer: Writer;
  clock: Clock;
  self: string;
}) {
  const { store, ledger, writer, clock, self } = deps;
  return {
    async check(): Promise<number> {
      return writer.transact(() => {
        if (store.state()?.role !== 'home') return 0;
        const contact = store.contact();
        const now = clock.now();
        let changed = 0;
        for (const m of store.members()) {
          if (m.fingerprint === self) continue;
          const quiet = quietSeconds(contact.get(m.fingerprint) ?? m.added_at, now);
          const health = healthOf(quiet);
          if (health === m.health) continue;
          const type =
            health === 'ok'
              ? 'keychain.member_back'
              : health === 'silent'
                ? 'keychain.member_silent'
                : 'keychain.member_gone';
          // A member seen again after a day goes straight back to ok; one gone without ever
          // having been marked silent is marked gone (its silence was missed while stopped).
          ledger.append({
            type,
            actor: 'system',
            data: { fingerprint: m.fingerprint, quiet_s: quiet },
          });
          changed += 1;
        }
        return changed;
      });
    },
  };
}

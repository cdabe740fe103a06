// What GET /v1/keychain shows: this install's place, the members with their health as
// the home hears them, and on the home the site keys by id and status (never a secret).
import { healthOf, quietSeconds } from './health.js';
import type { KeychainRole, KeychainStore, MemberRow } from './keychain.store.js';
import { homeCarries, KEYCHAIN_PARTS } from './parts.js';

export function keychainView(store: KeychainStore, now: number, self: string) {
  function siteKeyStatus(k: ReturnType<KeychainStore['siteKeys']>[number]): string {
    if (k.used_at !== null) return 'used';
    if (k.revoked_at !== null) return k.revoked_reason === 'locked' ? 'locked' : 'revoked';
    if (Date.parse(k.expires_at) <= now) return 'expired';
    return 'open';
  }

  function memberView(m: MemberRow, contact: Map<string, string>) {
    const heard = m.fingerprint === self ? null : (contact.get(m.fingerprint) ?? null);
    const quiet = m.fingerprint === self ? 0 : quietSeconds(heard ?? m.added_at, now);
    return {
      label: m.label,
      fingerprint: m.fingerprint,
      fp_short: m.fingerprint.slice(0, 12),
      role: m.role,
      this: m.fingerprint === self,
      health: m.fingerprint === self ? 'ok' : healthOf(quiet),
      quiet_s: quiet,
      via: m.via,
      address: m.address,
      added_at: m.added_at,
      licensed: m.licensed === 1,
    };
  }

  const st = store.state();
  const contact = store.contact();
  const role: KeychainRole | 'none' = st?.role ?? 'none';
  return {
    role,
    fingerprint: self,
    keychain_id: st?.keychain_id ?? null,
    label: store.member(self)?.label ?? st?.label ?? null,
    epoch: st?.epoch ?? null,
    head: store.head()?.hash ?? null,
    home_fp: st?.home_fp ?? null,
    since: st?.since ?? null,
    // The home carries what this version can carry; a member, what its home says it does.
    carried:
      st === null
        ? []
        : st.role === 'home'
          ? homeCarries(st)
          : (JSON.parse(st.carried) as string[]),
    skip: st === null ? [] : (JSON.parse(st.skip) as string[]),
    owned: st === null ? [] : (JSON.parse(st.owned) as string[]),
    parts: [...KEYCHAIN_PARTS],
    members: st === null ? [] : store.members().map((m) => memberView(m, contact)),
    site_keys:
      st?.role !== 'home'
        ? []
        : store.siteKeys().map((k) => ({
            id: k.id,
            label: k.label,
            purpose: k.purpose,
            licence: k.licence === 1,
            status: siteKeyStatus(k),
            created_at: k.created_at,
            expires_at: k.expires_at,
            used_by: k.used_by_fp,
            failed_attempts: k.failed_attempts,
          })),
  };
}

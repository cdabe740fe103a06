// Who a directory entry or an identity provider's account is: a person is bound at their
// first directory or single sign-on sign-in to the entry's DN ('ldap') or to the provider's
// (issuer, subject) ('oidc:<issuer>'). Later sign-ins find the person by that binding; an
// e-mail address alone never lets another entry or account in as someone already bound.
import type { Database } from 'better-sqlite3';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ForbiddenError } from '../shared/errors.js';
import type { AccessEvents } from './access.events.js';

export const IDENTITY_BOUND = 'auth.identity_bound';

export interface IdentityBinding {
  readonly provider: string;
  readonly subject: string;
  readonly user_id: string;
  readonly bound_at: string;
}

export function createIdentitiesStore(db: Database) {
  const bySubject = db.prepare<[string, string], IdentityBinding>(
    'SELECT provider, subject, user_id, bound_at FROM signin_identities WHERE provider = ? AND subject = ?',
  );
  const ofUser = db.prepare<[string, string], IdentityBinding>(
    'SELECT provider, subject, user_id, bound_at FROM signin_identities WHERE provider = ? AND user_id = ?',
  );
  const bind = db.prepare<[string, string, string, string]>(
    'INSERT INTO signin_identities (provider, subject, user_id, bound_at) VALUES (?, ?, ?, ?)',
  );
  const forget = db.prepare<[string, string]>(
    'DELETE FROM signin_identities WHERE provider = ? AND subject = ?',
  );
  return {
    bySubject: (provider: string, subject: string): IdentityBinding | null =>
      bySubject.get(provider, subject) ?? null,
    ofUser: (provider: string, userId: string): IdentityBinding | null =>
      ofUser.get(provider, userId) ?? null,
    bind: (provider: string, subject: string, userId: string, at: string): void => {
      bind.run(provider, subject, userId, at);
    },
    forget: (provider: string, subject: string): void => {
      forget.run(provider, subject);
    },
  };
}
export type IdentitiesStore = ReturnType<typeof createIdentitiesStore>;

/** A person as binding needs to see them (people's User has these fields and more). */
interface Known {
  readonly id: string;
  readonly email: string;
}

export interface BindingDeps {
  readonly identities: IdentitiesStore;
  readonly people: {
    byId(id: string): Known | null;
    byEmail(email: string): Known | null;
  };
  readonly ledger: DomainLedger<AccessEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
}

/**
 * The e-mail address to admit for (provider, subject): a bound person's own address (the
 * one the claim or the directory gives does not matter then); else the given address, when
 * its person (if any) is not bound to another subject of this provider. `mismatch` is the
 * error code of the refusal.
 */
export function addressFor(
  deps: Pick<BindingDeps, 'identities' | 'people'>,
  who: { provider: string; subject: string; email: string; mismatch: string },
): string {
  const bound = deps.identities.bySubject(who.provider, who.subject);
  if (bound !== null) {
    const person = deps.people.byId(bound.user_id);
    if (person !== null) return person.email;
  }
  const known = deps.people.byEmail(who.email);
  const other = known === null ? null : deps.identities.ofUser(who.provider, known.id);
  if (other !== null && other.subject !== who.subject) {
    throw new ForbiddenError(
      who.mismatch,
      `${who.email} is bound to another ${who.provider === 'ldap' ? 'directory entry' : 'account of this identity provider'}; ask an admin`,
    );
  }
  return who.email;
}

/** After admission: bind (provider, subject) to the person, once, with its ledger event. */
export async function bindIdentity(
  deps: BindingDeps,
  who: { provider: string; subject: string; userId: string; mismatch: string },
): Promise<void> {
  await deps.writer.transact(() => {
    const bound = deps.identities.bySubject(who.provider, who.subject);
    if (bound !== null && deps.people.byId(bound.user_id) !== null) {
      if (bound.user_id === who.userId) return;
      throw new ForbiddenError(who.mismatch, 'this identity is bound to another person');
    }
    // A binding to a person deleted since is forgotten.
    if (bound !== null) deps.identities.forget(who.provider, who.subject);
    const other = deps.identities.ofUser(who.provider, who.userId);
    if (other !== null)
      throw new ForbiddenError(
        who.mismatch,
        'this person is bound to another identity of this provider',
      );
    deps.identities.bind(who.provider, who.subject, who.userId, deps.clock.nowIso());
    deps.ledger.append({
      type: IDENTITY_BOUND,
      actor: 'system',
      data: { user_id: who.userId, provider: who.provider, subject: who.subject },
    });
  });
}

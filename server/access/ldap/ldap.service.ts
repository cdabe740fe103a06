// Directory sign-in (POST /v1/auth/ldap): the first configured ldap connector checks the
// user name and password (server/connectors/kinds/ldap.ts), people admits the person by
// their groups (directory_groups in the access settings), and a session opens with method
// 'ldap'. A refused user name or password is answered 401 after the throttle's wait (0.5 s,
// only this request); repeated failures per address and per account are throttled (429).
// Every failure is an `auth.sign_in_failed` event; the password is in none of them.
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import { ForbiddenError, ServiceError, UnauthenticatedError } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import { addressFor, bindIdentity, type IdentitiesStore } from '../identities.js';
import type { Attempt, SignInGuard } from '../throttle.js';
import {
  notSetUp,
  openSession,
  recordFailure,
  SignInUnavailableError,
  type PeopleForSignIn,
  type SessionOpener,
  type SignedIn,
} from './shared.js';
import type { AccessEvents } from '../access.events.js';

/** What this service needs of the connectors domain (the service itself in the app). */
export interface LdapConnectors {
  list(): { connectors: readonly { name: string; kind: string; problem: string | null }[] };
  call(name: string, op: string, args: Readonly<Record<string, unknown>>): Promise<unknown>;
}

export interface LdapSignInDeps<U> {
  readonly connectors: LdapConnectors;
  readonly people: PeopleForSignIn<U>;
  readonly sessions: SessionOpener;
  readonly guard: SignInGuard;
  /** Each person's directory DN, bound at their first directory sign-in. */
  readonly identities: IdentitiesStore;
  readonly ledger: DomainLedger<AccessEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
}

interface Person {
  ok: true;
  dn: string;
  email: string;
  name: string;
  groups: string[];
  group_names: string[];
}
type Answer = Person | { ok: false; why: string };

const isAnswer = (v: unknown): v is Answer =>
  typeof v === 'object' && v !== null && typeof (v as { ok?: unknown }).ok === 'boolean';

export function createLdapSignIn<U>(deps: LdapSignInDeps<U>) {
  const { connectors, people, sessions, guard } = deps;
  const fail = (account: string, address: string, why: string) =>
    recordFailure(deps, { method: 'ldap', account, address, why });

  /** The bind and the admission of one reserved attempt. */
  async function bindAndAdmit(
    username: string,
    password: string,
    address: string,
    attempt: Attempt,
  ): Promise<SignedIn> {
    const c = connector();
    if (c === null) {
      throw notSetUp(
        'ldap_not_configured',
        'directory sign-in is not set up: add a connector of kind ldap',
        'no_ldap_connector',
      );
    }
    let answer: unknown;
    try {
      answer = await connectors.call(c.name, 'authenticate', { username, password });
    } catch (err) {
      // Connector messages never hold the password: it is only ever sent in a bind.
      const detail = err instanceof Error ? err.message : String(err);
      await fail(username, address, 'directory_unavailable');
      throw new SignInUnavailableError(
        'directory_unavailable',
        `the directory cannot check sign-ins now: ${detail}`,
      );
    }
    if (!isAnswer(answer)) throw new Error(`connector ${c.name} answered authenticate oddly`);
    if (!answer.ok) {
      await fail(username, address, answer.why);
      if (answer.why === 'no_email') {
        throw new ForbiddenError(
          'no_email',
          'the directory holds no e-mail address for this person (see email_attribute)',
        );
      }
      return attempt.failed(
        new UnauthenticatedError('bad_credentials', 'the user name or password is wrong'),
      );
    }
    attempt.succeeded();
    // Matched by the entry's DN once bound; by the directory's address only the first time.
    const binding = {
      provider: 'ldap',
      subject: answer.dn.toLowerCase(),
      mismatch: 'ldap_identity_mismatch',
    };
    let user: U;
    try {
      // Groups by DN and by cn: directory_groups may name either.
      user = await people.admit({
        email: addressFor(deps, { ...binding, email: answer.email }),
        ...(answer.name !== '' && { name: answer.name }),
        groups: [...answer.groups, ...answer.group_names],
        via: 'ldap',
      });
      await bindIdentity(deps, { ...binding, userId: people.identity(user).userId });
    } catch (err) {
      if (err instanceof ServiceError) await fail(username, address, err.code);
      throw err;
    }
    return openSession(people, sessions, user, 'ldap');
  }

  /** The connector sign-in uses: the first ldap connector by name. */
  function connector(): { name: string; problem: string | null } | null {
    return connectors.list().connectors.find((c) => c.kind === 'ldap') ?? null;
  }

  return {
    /** Whether directory sign-in is set up (GET /v1/status may show it). */
    configured: (): boolean => connector() !== null,

    async signIn(
      input: { username: string; password: string },
      address: string,
    ): Promise<SignedIn> {
      const username = input.username.trim();
      // Reserved before the bind: concurrent guesses count at once; given back unless judged.
      return guard.attempt(address, username, (attempt) =>
        bindAndAdmit(username, input.password, address, attempt),
      );
    },
  };
}
export type LdapSignIn = ReturnType<typeof createLdapSignIn>;

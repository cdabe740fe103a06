// What directory (LDAP) and single sign-on (OIDC) sign-in share: the people service as the
// contract describes it (admit → a person, identity → who the session is for) and the
// failed sign-in ledger writer. The event name and AdmitIdentity serve code and password
// sign-in (server/access/signin) too. No Fastify here.
import type { Logger } from 'pino';
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import { ConflictError, ServiceError } from '../../shared/errors.js';
import type { SessionIdentity, SessionsService, SessionView } from '../sessions.service.js';
import type { AccessEvents } from '../access.events.js';

/** The ledger event of every failed sign-in (never the password, code or token). */
export const SIGN_IN_FAILED = 'auth.sign_in_failed';

/** Who a sign-in method says someone is (people's `admit` input). */
export interface AdmitIdentity {
  readonly email: string;
  readonly name?: string;
  readonly groups?: readonly string[];
  readonly via: 'code' | 'password' | 'ldap' | 'sso';
}

/**
 * The part of the people service (server/people) that sign-in uses. `admit` throws
 * ForbiddenError sign_in_not_allowed / account_disabled when the person may not sign in.
 */
export interface PeopleForSignIn<U = unknown> {
  admit(identity: AdmitIdentity): Promise<U>;
  /** For the identity bindings (identities.ts): a person by id and by e-mail address. */
  byId(id: string): { readonly id: string; readonly email: string } | null;
  byEmail(email: string): { readonly id: string; readonly email: string } | null;
  identity(user: U): SessionIdentity;
  noteSignIn?(userId: string): void | Promise<void>;
}

export type SessionOpener = Pick<SessionsService, 'signIn'>;

export interface SignedIn {
  readonly token: string;
  readonly session: SessionView;
}

/** The directory or the identity provider cannot be reached or answered wrongly: 503. */
export class SignInUnavailableError extends ServiceError {
  override readonly kind = 'unavailable';
}

/** Sign-in by this method is not set up (no ldap connector, SSO not enabled): 409. */
export const notSetUp = (code: string, message: string, why: string): ConflictError =>
  new ConflictError(code, message, { why });

/** The account as typed, clipped: enough to recognise, never a whole pasted secret. */
export const clipAccount = (account: string): string => account.trim().slice(0, 120);

/** One failed sign-in (or password change) of any method. */
export interface SignInFailure {
  /** code, password (also a wrong current password), ldap or sso */
  readonly method: string;
  readonly account: string;
  readonly address: string;
  readonly why: string;
}

/** The account as typed at a code or password form, safe to record: one line, clipped. */
const clipTyped = (s: string): string => s.replace(/[\r\n\t\0]/g, ' ').slice(0, 200);

/**
 * Records a failed sign-in as auth.sign_in_failed, the one writer every method uses. A
 * directory or SSO account is a name the directory knows, so it is the actor; at the code
 * and password forms it is only what was typed, so the actor stays anonymous. Given a log,
 * a failure to record is logged, never thrown (password and code sign-in); without one it
 * throws, and the request fails with it (directory and SSO).
 */
export async function recordFailure(
  deps: {
    readonly ledger: DomainLedger<AccessEvents>;
    readonly writer: Writer;
    readonly log?: Pick<Logger, 'error'> | undefined;
  },
  failure: SignInFailure,
): Promise<void> {
  const named = failure.method === 'ldap' || failure.method === 'sso';
  const account = named ? clipAccount(failure.account) : clipTyped(failure.account);
  try {
    await deps.writer.transact(() =>
      deps.ledger.append({
        type: SIGN_IN_FAILED,
        actor: named && failure.account !== '' ? account : 'anonymous',
        data: { ...failure, account },
      }),
    );
  } catch (err) {
    if (deps.log === undefined) throw err;
    deps.log.error(
      { err: (err as Error).message, method: failure.method },
      'could not record a failed sign-in',
    );
  }
}

/** Open the session for an admitted person and note the sign-in on the person. */
export async function openSession<U>(
  people: PeopleForSignIn<U>,
  sessions: SessionOpener,
  user: U,
  method: 'ldap' | 'sso',
): Promise<SignedIn> {
  const who = people.identity(user);
  const signedIn = await sessions.signIn(who, method);
  await people.noteSignIn?.(who.userId);
  return signedIn;
}

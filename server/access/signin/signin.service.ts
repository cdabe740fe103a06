// Sign-in by e-mailed code, by password, and break-glass bootstrap with the admin token.
// Every wrong code or password is counted per address and per account (throttle.ts) and
// answered after 0.5 s that holds up only its own request; every failure is a ledger event
// `auth.sign_in_failed` {method, account, address, why}; successes are the sessions'
// `auth.signed_in`. No code, password or token is ever logged or recorded.
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import type { Clock } from '../../shared/clock.js';
import type { ServiceError } from '../../shared/errors.js';
import { ForbiddenError, InvalidInputError, UnauthenticatedError } from '../../shared/errors.js';
import type { Role } from '../../shared/roles.js';
import type { Actor } from '../../shared/types.js';
import { SignInMethod, type SessionIdentity, type SessionsService } from '../sessions.service.js';
import {
  recordFailure as recordFailureOf,
  SIGN_IN_FAILED,
  type AdmitIdentity,
} from '../ldap/shared.js';
import type { Attempt, SignInGuard } from '../throttle.js';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import type { SignInStore } from './signin.store.js';
import type { AccessEvents } from '../access.events.js';
import { PASSWORD_SET, refuse as refuseOf, type PasswordsService } from './passwords.service.js';

export { PASSWORD_SET, SIGN_IN_FAILED, type AdmitIdentity };
export const BOOTSTRAP = 'system.bootstrap';

/** A code is valid this long after it is sent. */
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong codes allowed before a code dies. */
export const CODE_MAX_TRIES = 5;
/** Digits of a code. */
export const CODE_DIGITS = 8;
/**
 * Code requests (each mails someone): 20 per address and 5 per account in 15 minutes, the
 * account's from every address together (mail volume per person; no guess is judged).
 */
export const CODE_REQUEST_LIMITS = {
  perAddress: { max: 20, windowS: 900 },
  perAccount: { max: 5, windowS: 900 },
  accountWide: true,
} as const;

/** A person as sign-in needs to see them (people's User has these fields and more). */
export interface SignInPerson {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly disabled: boolean;
}

/** What sign-in needs from server/people (see .people-contract.md). */
export interface SignInPeople {
  byEmail(email: string): SignInPerson | null;
  byId(id: string): SignInPerson | null;
  /** A known enabled person, or one created under the access settings; else ForbiddenError. */
  admit(identity: AdmitIdentity, actor?: Actor): Promise<SignInPerson>;
  /** Whether admit would let this person in, without creating anyone: null, or the code why not. */
  mayAdmit(identity: AdmitIdentity): string | null;
  identity(user: SignInPerson): SessionIdentity;
  noteSignIn?(userId: string): unknown;
  /** Bootstrap: the person with this e-mail exists, is enabled and is owner (created or promoted). */
  bootstrapOwner(input: { email: string; name?: string }, actor: Actor): Promise<SignInPerson>;
}

export interface SignInDeps {
  readonly store: SignInStore;
  readonly people: SignInPeople;
  readonly sessions: Pick<SessionsService, 'signIn' | 'endSessionsOf'>;
  readonly mail: {
    send(to: string, subject: string, text: string): Promise<{ ok: boolean; detail: string }>;
  };
  readonly ledger: DomainLedger<AccessEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  /** Wrong codes, passwords and bootstrap attempts. */
  readonly guard: SignInGuard;
  /** Code requests (mail is not free): counted without a wait. */
  readonly requests: SignInGuard;
  readonly log?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Passwords, built before people by the composition root (people ask it too). */
  readonly passwords: PasswordsService;
}

export type SignedIn = Awaited<ReturnType<SessionsService['signIn']>>;

const normalEmail = (email: string): string => email.trim().toLowerCase();
const hashCode = (salt: string, code: string): string =>
  createHash('sha256').update(`${salt}:${code}`, 'utf8').digest('hex');
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;

function checkEmail(email: unknown): string {
  if (typeof email !== 'string' || !ADDRESS.test(email.trim()) || email.length > 320)
    throw new InvalidInputError('invalid_input', 'email must be an e-mail address', {
      field: 'email',
    });
  return normalEmail(email);
}

export function createSignInService(deps: SignInDeps) {
  const { store, people, sessions, mail, ledger, writer, clock, guard, requests, log } = deps;
  const pending = new Set<Promise<void>>();

  const recordFailure = (method: string, account: string, address: string, why: string) =>
    recordFailureOf(deps, { method, account, address, why });
  /** Wrong credential: recorded, counted, answered after the wait. */
  const refuse = (
    attempt: Attempt,
    method: string,
    account: string,
    address: string,
    why: string,
    error: ServiceError,
  ): Promise<never> => refuseOf(deps, attempt, { method, account, address, why }, error);
  const { passwords } = deps;

  /** A hash made at older parameters is made again at today's, once the password proved right. */
  async function rehash(userId: string, password: string, stored: string): Promise<void> {
    try {
      const hash = await hashPassword(password);
      await writer.transact(() => {
        // Only if nobody changed the password meanwhile.
        if (store.passwordHash(userId) !== stored) return;
        store.putPassword(userId, hash, clock.nowIso());
        ledger.append({
          type: PASSWORD_SET,
          actor: 'system',
          data: { user_id: userId, changed: false, rehashed: true },
        });
      });
    } catch (err) {
      log?.warn({ err: (err as Error).message, user_id: userId }, 'could not rehash a password');
    }
  }

  async function open(user: SignInPerson, method: SignInMethod): Promise<SignedIn> {
    const signedIn = await sessions.signIn(people.identity(user), method);
    try {
      await people.noteSignIn?.(user.id);
    } catch (err) {
      log?.warn({ err: (err as Error).message, user_id: user.id }, 'could not note a sign-in');
    }
    return signedIn;
  }

  /** Admit after the credential was proven; a refusal is recorded and answered 403 at once. */
  async function admit(identity: AdmitIdentity, address: string): Promise<SignInPerson> {
    try {
      return await people.admit(identity);
    } catch (err) {
      if (err instanceof ForbiddenError)
        await recordFailure(identity.via, identity.email, address, err.code);
      throw err;
    }
  }

  /**
   * Everything after the 202: check the person may sign in, store a code, send it. Never
   * throws. Nobody is created here: an unknown address in an allowed domain becomes a person
   * only at verify, once the mailbox is proven.
   */
  async function deliverCode(email: string, address: string): Promise<void> {
    let why: string | null;
    try {
      why = people.mayAdmit({ email, via: 'code' });
    } catch (err) {
      log?.error({ err: (err as Error).message }, 'checking a person failed');
      why = 'error';
    }
    if (why !== null) {
      await recordFailure('code', email, address, why);
      return;
    }
    const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
    const salt = randomBytes(16).toString('hex');
    const now = clock.now();
    await writer.transact(() => {
      store.dropExpired(new Date(now).toISOString());
      store.putCode(
        email,
        hashCode(salt, code),
        salt,
        new Date(now).toISOString(),
        new Date(now + CODE_TTL_MS).toISOString(),
      );
    });
    const sent = await mail.send(
      email,
      'Your sign-in code',
      [
        `Your sign-in code is ${code}`,
        '',
        `It works once, for ${String(CODE_TTL_MS / 60_000)} minutes.`,
        'If you did not ask to sign in, ignore this mail: nobody can sign in without the code.',
        '',
      ].join('\n'),
    );
    if (!sent.ok) {
      await writer.transact(() => store.dropCode(email));
      await recordFailure('code', email, address, 'mail_not_sent');
    }
  }

  return {
    /**
     * POST /v1/auth/request: answers at once, whether or not the address may sign in (no
     * enumeration); the code is sent in the background.
     */
    async requestCode(emailGiven: unknown, address: string): Promise<void> {
      const email = checkEmail(emailGiven);
      await requests.check(address, email);
      requests.note(address, email);
      const job = deliverCode(email, address).catch((err: unknown) => {
        log?.error({ err: (err as Error).message }, 'sending a sign-in code failed');
      });
      pending.add(job);
      void job.finally(() => pending.delete(job));
    },

    /** POST /v1/auth/verify: the right code opens a session; a wrong one is 401 after 0.5 s. */
    async verifyCode(emailGiven: unknown, code: string, address: string): Promise<SignedIn> {
      const email = checkEmail(emailGiven);
      return guard.attempt(address, email, async (attempt) => {
        const now = clock.now();
        const outcome = await writer.transact((): string => {
          const row = store.code(email);
          if (row === null) return 'no_code';
          if (Date.parse(row.expires_at) <= now) {
            store.dropCode(email);
            return 'expired';
          }
          const given = Buffer.from(hashCode(row.salt, code.trim()), 'hex');
          if (timingSafeEqual(given, Buffer.from(row.code_hash, 'hex'))) {
            store.dropCode(email);
            return 'ok';
          }
          if (row.tries + 1 >= CODE_MAX_TRIES) {
            store.dropCode(email);
            return 'too_many_tries';
          }
          store.addTry(email);
          return 'wrong_code';
        });
        if (outcome !== 'ok') {
          return refuse(
            attempt,
            'code',
            email,
            address,
            outcome,
            new UnauthenticatedError(
              'bad_code',
              'the code is not valid: wrong, used or expired; ask for a new one',
            ),
          );
        }
        attempt.succeeded();
        const user = await admit({ email, via: 'code' }, address);
        return open(user, SignInMethod.Code);
      });
    },

    /** POST /v1/auth/password. */
    async signInWithPassword(
      emailGiven: unknown,
      password: string,
      address: string,
    ): Promise<SignedIn> {
      const email = checkEmail(emailGiven);
      return guard.attempt(address, email, async (attempt) => {
        const user = people.byEmail(email);
        const stored = user === null ? null : store.passwordHash(user.id);
        // An unknown address or one without a password costs one hash as well.
        const matches = await verifyPassword(password, stored ?? (await dummyHash()));
        const why =
          user === null
            ? 'unknown_account'
            : stored === null
              ? 'no_password'
              : !matches
                ? 'wrong_password'
                : null;
        if (why !== null || user === null) {
          return refuse(
            attempt,
            'password',
            email,
            address,
            why ?? 'unknown_account',
            new UnauthenticatedError('bad_password', 'the e-mail address or password is not right'),
          );
        }
        attempt.succeeded();
        const admitted = await admit({ email: user.email, via: 'password' }, address);
        if (stored !== null && needsRehash(stored)) await rehash(user.id, password, stored);
        return open(admitted, SignInMethod.Password);
      });
    },

    /** Set or change a password (PUT /v1/me): the passwords service's. */
    setPassword: passwords.setPassword,
    /** Whether the person has a password (people's `password_set`). */
    hasPassword: passwords.hasPassword,

    /** POST /v1/auth/bootstrap (admin token only): that person is owner, with a session. */
    async bootstrap(
      emailGiven: unknown,
      name: string | undefined,
      address: string,
    ): Promise<SignedIn> {
      const email = checkEmail(emailGiven);
      const actor: Actor = { name: 'admin-token' };
      const user = await people.bootstrapOwner(
        { email, ...(name !== undefined && name.trim() !== '' && { name: name.trim() }) },
        actor,
      );
      await writer.transact(() =>
        ledger.append({
          type: BOOTSTRAP,
          actor: actor.name,
          data: { user_id: user.id, email: user.email, address },
        }),
      );
      guard.succeeded(address, email);
      return open(user, SignInMethod.Bootstrap);
    },

    /**
     * POST /v1/login's guard: throttled per address like every sign-in, the attempt reserved
     * before the token is compared; a wrong admin token is recorded and answered after the
     * wait (`wrong` is thrown then); a right one runs `then`.
     */
    async login<T>(
      address: string,
      tokenIsRight: () => boolean,
      wrong: ServiceError,
      then: () => Promise<T>,
    ): Promise<T> {
      return guard.attempt(address, '', async (attempt) => {
        if (!tokenIsRight()) return refuse(attempt, 'admin-token', '', address, 'bad_token', wrong);
        attempt.succeeded();
        return then();
      });
    },

    /** Wait for codes still being sent (tests, shutdown). */
    async settled(): Promise<void> {
      await Promise.all([...pending]);
    },
  };
}
export type SignInService = ReturnType<typeof createSignInService>;

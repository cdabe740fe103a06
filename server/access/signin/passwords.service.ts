// A person's password, set and asked about apart from signing in: people (PUT /v1/me,
// `password_set`) needs it and sign-in needs people, so the composition root builds this
// first and hands it to both. Every wrong current password is counted by the sign-in guard
// and recorded as `auth.sign_in_failed`; no password is ever logged or recorded.
import type { Logger } from 'pino';
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import type { Clock } from '../../shared/clock.js';
import { InvalidInputError, type ServiceError } from '../../shared/errors.js';
import type { AccessEvents } from '../access.events.js';
import type { SessionsService } from '../sessions.service.js';
import { recordFailure, type SignInFailure } from '../ldap/shared.js';
import type { Attempt, SignInGuard } from '../throttle.js';
import {
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from './passwords.js';
import type { SignInStore } from './signin.store.js';

export const PASSWORD_SET = 'auth.password_set';

interface FailureDeps {
  readonly ledger: DomainLedger<AccessEvents>;
  readonly writer: Writer;
  readonly log?: Pick<Logger, 'info' | 'warn' | 'error'> | undefined;
}

/** Wrong credential: recorded, counted (the attempt's reservation stays), answered after the wait. */
export async function refuse(
  deps: FailureDeps,
  attempt: Attempt,
  failure: SignInFailure,
  error: ServiceError,
): Promise<never> {
  await recordFailure(deps, failure);
  return attempt.failed(error);
}

export interface PasswordsDeps extends FailureDeps {
  readonly store: Pick<SignInStore, 'passwordHash' | 'putPassword'>;
  /** The person whose password it is (people's store or service). */
  readonly person: (userId: string) => { readonly email: string; readonly name: string } | null;
  readonly sessions: Pick<SessionsService, 'endSessionsOf'>;
  readonly clock: Clock;
  /** Wrong current passwords count with every other wrong credential. */
  readonly guard: SignInGuard;
}

export function createPasswordsService(deps: PasswordsDeps) {
  const { store, person, sessions, ledger, writer, clock, guard } = deps;
  return {
    /**
     * Set or change a password (PUT /v1/me). At least 12 characters; the current password is
     * required when the person has one. A wrong current password waits 0.5 s and counts.
     * Every other session of the person ends; the one of `keepToken` (the caller's) stays.
     */
    setPassword: async (
      userId: string,
      password: string,
      current?: string,
      keepToken?: string | null,
    ): Promise<void> => {
      const user = person(userId);
      if (user === null)
        throw new InvalidInputError('invalid_input', 'no such person', { field: 'user_id' });
      if (typeof password !== 'string' || [...password].length < PASSWORD_MIN_LENGTH)
        throw new InvalidInputError(
          'invalid_input',
          `password must be at least ${String(PASSWORD_MIN_LENGTH)} characters`,
          { field: 'password' },
        );
      if (password.length > PASSWORD_MAX_LENGTH)
        throw new InvalidInputError(
          'invalid_input',
          `password must be at most ${String(PASSWORD_MAX_LENGTH)} characters`,
          { field: 'password' },
        );
      const address = `password-change:${userId}`;
      const stored = store.passwordHash(userId);
      if (stored !== null) {
        if (current === undefined || current === '')
          throw new InvalidInputError(
            'invalid_input',
            'current_password is required to change a password',
            { field: 'current_password' },
          );
        await guard.attempt(address, user.email, async (attempt) => {
          if (!(await verifyPassword(current, stored)))
            return refuse(
              deps,
              attempt,
              {
                method: 'password_change',
                account: user.email,
                address,
                why: 'wrong_current_password',
              },
              new InvalidInputError('wrong_current_password', 'current_password is not right', {
                field: 'current_password',
              }),
            );
          attempt.succeeded();
        });
      }
      const hash = await hashPassword(password);
      await writer.transact(() => {
        store.putPassword(userId, hash, clock.nowIso());
        ledger.append({
          type: PASSWORD_SET,
          actor: user.name,
          data: { user_id: userId, changed: stored !== null },
        });
        // Whoever else holds a session of this person (a stolen one, perhaps) is signed out.
        sessions.endSessionsOf(userId, 'password_changed', keepToken);
      });
    },

    /** Whether the person has a password (people's `password_set`). */
    hasPassword: (userId: string): boolean => store.passwordHash(userId) !== null,
  };
}
export type PasswordsService = ReturnType<typeof createPasswordsService>;

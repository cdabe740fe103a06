// Sign-in throttling shared by every sign-in method (code, password, bootstrap, LDAP, SSO).
// Failures are counted per address (the caller's IP, as the trusted-proxy setting decides)
// and per account *from that address* (the e-mail or user name as typed, lower-cased, with
// the address), in sliding windows kept in memory; past the limit a check throws
// TooManyAttemptsError (429 too_many_attempts with retry_after_s). The account's lock-out is
// per (account, address) so that nobody can lock a person out from elsewhere.
//
// An attempt is reserved (`begin`) before the password hash or the directory bind runs: it
// counts as a failure at once and is given back only when it worked or was no guess at all,
// so concurrent guesses cannot all pass the check before the first one is counted. Attempts
// in flight are capped per account (from anywhere) and per address as well.
//
// A failure is answered after a wait (0.5 s) that holds up only its own request: it is a
// timer, never a lock or a queue. Memory is bounded: old entries are pruned and the maps are
// capped.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { WRONG_CREDENTIAL_DELAY_MS } from '../http/auth.js';
import type { Clock } from '../shared/clock.js';

/** Wait before a wrong code, password or token is answered: the one of every wrong credential. */
export const SIGN_IN_FAILURE_DELAY_MS = WRONG_CREDENTIAL_DELAY_MS;

export interface ThrottleLimit {
  /** Failures allowed inside the window; the next attempt is refused. */
  readonly max: number;
  readonly windowS: number;
}

/** 30 failures from one address, or 10 for one account from one address, in 15 minutes. */
export const DEFAULT_PER_ADDRESS: ThrottleLimit = { max: 30, windowS: 900 };
export const DEFAULT_PER_ACCOUNT: ThrottleLimit = { max: 10, windowS: 900 };
/** Attempts being checked at once: per account (from any address) and per address. */
export const DEFAULT_IN_FLIGHT = { perAccount: 3, perAddress: 8 } as const;

/** Keys remembered per map; past it the stalest keys are dropped first. */
const MAX_KEYS = 50_000;

/**
 * 429 too_many_attempts. Not a ServiceError: the error family has no 429 kind yet, so the
 * HTTP layer answers it through `answerThrottled` (below) in each sign-in route plugin.
 */
export class TooManyAttemptsError extends Error {
  readonly statusCode = 429;
  readonly code = 'too_many_attempts';
  readonly retryAfterS: number;
  /** Which limit refused: 'address' or 'account'. Not sent to the caller. */
  readonly scope: 'address' | 'account';
  constructor(scope: 'address' | 'account', retryAfterS: number, busy = false) {
    super(
      busy
        ? `too many sign-ins are being checked for this ${scope === 'address' ? 'address' : 'account'}; try again in ${String(retryAfterS)} s`
        : scope === 'address'
          ? `too many failed sign-ins from this address; try again in ${String(retryAfterS)} s`
          : `too many failed sign-ins for this account; try again in ${String(retryAfterS)} s`,
    );
    this.name = 'TooManyAttemptsError';
    this.scope = scope;
    this.retryAfterS = retryAfterS;
  }
  /** The reply body: {error, message, retry_after_s}. */
  body(): { error: string; message: string; retry_after_s: number } {
    return { error: this.code, message: this.message, retry_after_s: this.retryAfterS };
  }
}

export interface SignInGuardOptions {
  readonly clock: Clock;
  /** Wait before a failure is answered; tests may shorten it. */
  readonly delayMs?: number;
  readonly perAddress?: ThrottleLimit;
  readonly perAccount?: ThrottleLimit;
  readonly inFlight?: { readonly perAccount: number; readonly perAddress: number };
  /**
   * Count an account's limit from every address together. Only for code requests: each one
   * mails the person, and no guess is judged, so mail volume per person is what is limited.
   */
  readonly accountWide?: boolean;
}

/** A reserved sign-in attempt; settle it once (later calls do nothing). */
export interface Attempt {
  /** A wrong credential: the reservation stays counted; answered after the wait. */
  failed(): Promise<void>;
  failed(error: Error): Promise<never>;
  /** It worked: the reservation is given back and the account's failures here forgotten. */
  succeeded(): void;
  /** No guess was judged (bad input, directory down): the reservation is given back. */
  release(): void;
}

/** Timestamps (ms) of recent failures per key, oldest first. */
class Window {
  readonly #hits = new Map<string, number[]>();
  readonly limit: ThrottleLimit;
  constructor(limit: ThrottleLimit) {
    this.limit = limit;
  }

  #recent(key: string, now: number): number[] {
    const hits = this.#hits.get(key);
    if (hits === undefined) return [];
    const from = now - this.limit.windowS * 1000;
    let i = 0;
    while (i < hits.length && (hits[i] ?? 0) <= from) i++;
    if (i > 0) hits.splice(0, i);
    if (hits.length === 0) this.#hits.delete(key);
    return hits;
  }

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfterS(key: string, now: number): number {
    const hits = this.#recent(key, now);
    if (hits.length < this.limit.max) return 0;
    // The attempt is allowed again once enough of the oldest failures leave the window.
    const freeing = hits[hits.length - this.limit.max] ?? now;
    return Math.max(1, Math.ceil((freeing + this.limit.windowS * 1000 - now) / 1000));
  }

  add(key: string, now: number): void {
    const hits = this.#recent(key, now);
    // Re-inserted so that the Map's order is least recently failed first.
    this.#hits.delete(key);
    hits.push(now);
    // Never more than one window's worth of the limit is kept per key.
    if (hits.length > this.limit.max * 2) hits.splice(0, hits.length - this.limit.max * 2);
    this.#hits.set(key, hits);
    while (this.#hits.size > MAX_KEYS) {
      const oldest = this.#hits.keys().next().value;
      if (oldest === undefined) break;
      this.#hits.delete(oldest);
    }
  }

  /** Give back one hit made at `at` (a reservation that turned out not to be a failure). */
  remove(key: string, at: number): void {
    const hits = this.#hits.get(key);
    if (hits === undefined) return;
    const i = hits.lastIndexOf(at);
    if (i !== -1) hits.splice(i, 1);
    if (hits.length === 0) this.#hits.delete(key);
  }

  clear(key: string): void {
    this.#hits.delete(key);
  }

  size(): number {
    return this.#hits.size;
  }
}

/** Accounts are compared as typed but case-insensitively and trimmed. */
export const accountKey = (account: string): string => account.trim().toLowerCase().slice(0, 320);

/** Counts of attempts in flight per key; a key at zero is forgotten. */
class InFlight {
  readonly #n = new Map<string, number>();
  count = (key: string): number => this.#n.get(key) ?? 0;
  add(key: string, by: 1 | -1): void {
    const n = this.count(key) + by;
    if (n <= 0) this.#n.delete(key);
    else this.#n.set(key, n);
  }
}

export function createSignInGuard(options: SignInGuardOptions) {
  const { clock } = options;
  const delayMs = options.delayMs ?? SIGN_IN_FAILURE_DELAY_MS;
  const byAddress = new Window(options.perAddress ?? DEFAULT_PER_ADDRESS);
  const byAccount = new Window(options.perAccount ?? DEFAULT_PER_ACCOUNT);
  const inFlightLimits = options.inFlight ?? DEFAULT_IN_FLIGHT;
  const addressesBusy = new InFlight();
  const accountsBusy = new InFlight();
  /** The account's lock-out key: the account as typed, from this address. */
  const lockKey = (address: string, account: string): string =>
    options.accountWide === true ? accountKey(account) : `${accountKey(account)}\n${address}`;

  function refusal(address: string, account: string): TooManyAttemptsError | null {
    const now = clock.now();
    const a = byAddress.retryAfterS(address, now);
    if (a > 0) return new TooManyAttemptsError('address', a);
    const b = account === '' ? 0 : byAccount.retryAfterS(lockKey(address, account), now);
    if (b > 0) return new TooManyAttemptsError('account', b);
    return null;
  }

  function record(address: string, account: string, now = clock.now()): void {
    byAddress.add(address, now);
    if (account !== '') byAccount.add(lockKey(address, account), now);
  }

  /** Reserve an attempt (counted as a failure until settled otherwise); 429 when refused. */
  function begin(address: string, account: string): Attempt {
    const refused = refusal(address, account);
    if (refused !== null) throw refused;
    const acc = accountKey(account);
    if (addressesBusy.count(address) >= inFlightLimits.perAddress)
      throw new TooManyAttemptsError('address', 1, true);
    if (account !== '' && accountsBusy.count(acc) >= inFlightLimits.perAccount)
      throw new TooManyAttemptsError('account', 1, true);
    const at = clock.now();
    record(address, account, at);
    addressesBusy.add(address, 1);
    if (account !== '') accountsBusy.add(acc, 1);
    let judged = false;
    /** True the first time only: an attempt is judged once. */
    const judge = (): boolean => !judged && (judged = true);
    const leave = (): void => {
      addressesBusy.add(address, -1);
      if (account !== '') accountsBusy.add(acc, -1);
    };
    async function failed(error?: Error): Promise<void> {
      if (judge()) {
        // Still in flight during the wait: the caps bound the guesses per wait.
        try {
          await sleep(delayMs);
        } finally {
          leave();
        }
      }
      if (error !== undefined) throw error;
    }
    return {
      failed: failed as Attempt['failed'],
      succeeded() {
        if (!judge()) return;
        leave();
        byAddress.remove(address, at);
        if (account !== '') byAccount.clear(lockKey(address, account));
      },
      release() {
        if (!judge()) return;
        leave();
        byAddress.remove(address, at);
        if (account !== '') byAccount.remove(lockKey(address, account), at);
      },
    };
  }

  async function failed(address: string, account: string): Promise<void>;
  async function failed(address: string, account: string, error: Error): Promise<never>;
  /**
   * A wrong code, password or token: counted at once (so that parallel guesses count too),
   * then answered after the wait. With `error`, throws it after the wait.
   */
  async function failed(address: string, account: string, error?: Error): Promise<void> {
    record(address, account);
    await sleep(delayMs);
    if (error !== undefined) throw error;
  }

  return {
    /** Throws TooManyAttemptsError (429) when the address or the account is throttled. */
    async check(address: string, account: string): Promise<void> {
      const refused = refusal(address, account);
      if (refused !== null) throw refused;
    },
    /** The same test without throwing: the refusal, or null. */
    refusal,
    begin,
    /**
     * Runs a sign-in attempt reserved with `begin` before any code, hash or bind is checked;
     * an attempt `run` neither failed nor succeeded (bad input, an error) is given back.
     */
    async attempt<T>(
      address: string,
      account: string,
      run: (attempt: Attempt) => Promise<T>,
    ): Promise<T> {
      const reserved = begin(address, account);
      try {
        return await run(reserved);
      } finally {
        reserved.release();
      }
    },
    failed,
    /**
     * Count an attempt that is not a wrong credential (a code request: mail is not free)
     * without waiting.
     */
    note: record,
    /** A sign-in worked: the account's failures from there are forgotten (not the address's). */
    succeeded(address: string, account: string): void {
      if (account !== '') byAccount.clear(lockKey(address, account));
    },
    /** Keys remembered now (for tests and metrics). */
    size(): { addresses: number; accounts: number } {
      return { addresses: byAddress.size(), accounts: byAccount.size() };
    },
  };
}
export type SignInGuard = ReturnType<typeof createSignInGuard>;

/** The 429 body of a throttled sign-in, for the routes' response schemas. */
export const ThrottledBody = Type.Object({
  error: Type.Literal('too_many_attempts'),
  message: Type.String(),
  retry_after_s: Type.Integer(),
});

/**
 * Answer TooManyAttemptsError as 429 {error: 'too_many_attempts', message, retry_after_s}
 * with Retry-After, in the plugin this is called in; every other error goes on to the
 * service's error handler. For sign-in route plugins (code, password, LDAP, SSO).
 */
export function answerThrottled(app: FastifyInstance): void {
  app.setErrorHandler(async (err: Error, _req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof TooManyAttemptsError) {
      return reply
        .code(429)
        .header('retry-after', String(err.retryAfterS))
        .header('cache-control', 'no-store')
        .send(err.body());
    }
    throw err;
  });
}

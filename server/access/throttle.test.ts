import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { createSignInGuard, TooManyAttemptsError } from './throttle.js';

const limits = { perAddress: { max: 4, windowS: 60 }, perAccount: { max: 2, windowS: 60 } };

describe('sign-in throttle', () => {
  it('locks an account out per (account, address): the same account elsewhere still may', async () => {
    const clock = createFakeClock();
    const guard = createSignInGuard({ clock, delayMs: 0, ...limits });
    await guard.failed('10.0.0.1', 'Ann@Example.com');
    clock.advance(10_000);
    await guard.failed('10.0.0.1', 'ann@example.com ');
    const err = await guard.check('10.0.0.1', 'ann@example.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManyAttemptsError);
    expect((err as TooManyAttemptsError).scope).toBe('account');
    expect((err as TooManyAttemptsError).retryAfterS).toBe(50);
    expect((err as TooManyAttemptsError).body()).toMatchObject({
      error: 'too_many_attempts',
      retry_after_s: 50,
    });
    // Nobody locks Ann out from elsewhere: another address may still try her account.
    await expect(guard.check('10.0.0.3', 'ann@example.com')).resolves.toBeUndefined();
    await expect(guard.check('10.0.0.1', 'bob@example.com')).resolves.toBeUndefined();
    clock.advance(50_000);
    await expect(guard.check('10.0.0.1', 'ann@example.com')).resolves.toBeUndefined();
  });

  it('reserves an attempt before it is judged: concurrent attempts past the limit are refused', () => {
    const guard = createSignInGuard({ clock: createFakeClock(), delayMs: 0, ...limits });
    const first = guard.begin('10.0.0.2', 'ann@x.test');
    const second = guard.begin('10.0.0.2', 'ann@x.test');
    expect(() => guard.begin('10.0.0.2', 'ann@x.test')).toThrow(TooManyAttemptsError);
    // Given back when it worked or judged nothing; counted when it failed.
    second.release();
    guard.begin('10.0.0.2', 'ann@x.test').succeeded();
    first.succeeded();
    expect(guard.size()).toEqual({ addresses: 0, accounts: 0 });
  });

  it('caps attempts in flight per account from any address, and per address', async () => {
    const guard = createSignInGuard({
      clock: createFakeClock(),
      delayMs: 50,
      perAddress: { max: 100, windowS: 60 },
      perAccount: { max: 100, windowS: 60 },
      inFlight: { perAccount: 2, perAddress: 3 },
    });
    const a = [guard.begin('10.0.0.1', 'ann@x.test'), guard.begin('10.0.0.2', 'ann@x.test')];
    const busy = (() => {
      try {
        guard.begin('10.0.0.3', 'ann@x.test');
      } catch (err) {
        return err as TooManyAttemptsError;
      }
      return null;
    })();
    expect(busy).toBeInstanceOf(TooManyAttemptsError);
    expect(busy?.retryAfterS).toBe(1);
    const b = [guard.begin('10.0.0.9', 'b@x.test'), guard.begin('10.0.0.9', 'c@x.test')];
    guard.begin('10.0.0.9', 'd@x.test').release();
    b.push(guard.begin('10.0.0.9', 'e@x.test'));
    expect(() => guard.begin('10.0.0.9', 'f@x.test')).toThrow(/being checked for this address/);
    // A failure stays in flight during its wait, then frees its place.
    const waits = a.map((t) => t.failed());
    expect(() => guard.begin('10.0.0.3', 'ann@x.test')).toThrow(TooManyAttemptsError);
    await Promise.all(waits);
    guard.begin('10.0.0.3', 'ann@x.test').release();
    for (const t of b) t.release();
  });

  it('refuses an address after failures across many accounts', async () => {
    const clock = createFakeClock();
    const guard = createSignInGuard({ clock, delayMs: 0, ...limits });
    for (const a of ['a', 'b', 'c', 'd']) await guard.failed('10.0.0.9', `${a}@x.test`);
    const err = await guard.check('10.0.0.9', 'e@x.test').catch((e: unknown) => e);
    expect((err as TooManyAttemptsError).scope).toBe('address');
    await expect(guard.check('10.0.0.8', 'e@x.test')).resolves.toBeUndefined();
  });

  it('forgets an account’s failures on success, not the address’s', async () => {
    const clock = createFakeClock();
    const guard = createSignInGuard({ clock, delayMs: 0, ...limits });
    await guard.failed('10.0.0.1', 'ann@x.test');
    await guard.failed('10.0.0.1', 'ann@x.test');
    guard.succeeded('10.0.0.1', 'ann@x.test');
    await expect(guard.check('10.0.0.1', 'ann@x.test')).resolves.toBeUndefined();
    await guard.failed('10.0.0.1', 'bob@x.test');
    await guard.failed('10.0.0.1', 'cid@x.test');
    await expect(guard.check('10.0.0.1', 'dan@x.test')).rejects.toThrow(/this address/);
  });

  it('waits before answering a failure, then throws the given error', async () => {
    const guard = createSignInGuard({ clock: createFakeClock(), delayMs: 120, ...limits });
    const started = performance.now();
    await expect(guard.failed('10.0.0.1', 'a@x.test', new Error('wrong'))).rejects.toThrow('wrong');
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('counts parallel failures at once, before their waits end', async () => {
    const guard = createSignInGuard({ clock: createFakeClock(), delayMs: 200, ...limits });
    const waits = [guard.failed('10.0.0.1', 'a@x.test'), guard.failed('10.0.0.1', 'a@x.test')];
    await expect(guard.check('10.0.0.1', 'a@x.test')).rejects.toBeInstanceOf(TooManyAttemptsError);
    await Promise.all(waits);
  });
});

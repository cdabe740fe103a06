// The sign-in page's words for a refusal: wrong credentials, too many attempts, a disabled
// account and a person not let in each say what to do.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../shared/api.js';
import { refusal } from './sign-in.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('a refused sign-in in words', () => {
  it('says the given wrong-credential words for a 401', () => {
    expect(
      refusal(new ApiError(401, { error: 'bad_code', message: 'no' }), 'That code is wrong.'),
    ).toBe('That code is wrong.');
  });

  it('says when to try again after a 429', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
    const words = refusal(
      new ApiError(429, { error: 'too_many_attempts', message: 'slow down', retry_after_s: 120 }),
      'wrong',
    );
    expect(words).toMatch(/^Too many attempts: try again in .+ \(at \d\d:\d\d:\d\d\)\.$/);
    expect(words).not.toBe('wrong');
  });

  it('tells a person not let in or disabled whom to ask', () => {
    expect(
      refusal(new ApiError(403, { error: 'sign_in_not_allowed', message: 'not allowed' }), 'x'),
    ).toBe('not allowed. Ask an admin to add you, or to allow your domain or group.');
    expect(
      refusal(new ApiError(403, { error: 'account_disabled', message: 'disabled' }), 'x'),
    ).toBe('disabled. An admin can enable the account.');
    expect(
      refusal(
        new ApiError(400, { error: 'invalid_input', message: 'too short', field: 'email' }),
        'x',
      ),
    ).toBe('email: too short');
  });
});

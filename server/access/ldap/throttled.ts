// The sign-in throttle's 429 as a reply: {error: 'too_many_attempts', message,
// retry_after_s} with a Retry-After header. TooManyAttemptsError is not a ServiceError
// (the error family has no 429 kind), so sign-in routes answer it themselves.
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { TooManyAttemptsError } from '../throttle.js';

export const ThrottledBody = Type.Object({
  error: Type.Literal('too_many_attempts'),
  message: Type.String(),
  retry_after_s: Type.Integer(),
});

/** Run a sign-in; a throttled one is answered 429 here, every other error goes on. */
export async function unlessThrottled<T>(
  reply: FastifyReply,
  work: () => Promise<T>,
): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof TooManyAttemptsError)) throw err;
    return reply
      .code(429)
      .header('retry-after', String(err.retryAfterS))
      .header('cache-control', 'no-store')
      .send(err.body());
  }
}

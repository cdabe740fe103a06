// Sign-in and sessions: POST /v1/login (the admin token signs in the first owner),
// POST /v1/auth/logout, GET /v1/me. Open in every mode: sign-in works during setup.
import { createHash, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { bearerOf, WRONG_CREDENTIAL_DELAY_MS } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { ConflictError, UnauthenticatedError, type ServiceError } from '../shared/errors.js';
import type { Secret } from '../shared/secret.js';
import { FIRST_OWNER, SignInMethod, type SessionsService } from './sessions.service.js';
import { LoginBody, LoginReply, MeBody } from './sessions.schemas.js';
import { answerThrottled } from './throttle.js';

/** What GET /v1/me adds for a person (people.profile); null when the user id is no person. */
export type MeProfile = (userId: string) => {
  email: string;
  handles: Record<string, string | undefined>;
  teams: string[];
} | null;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** What POST /v1/login needs from the sign-in service (signin.service.ts). */
export interface LoginGuard {
  login<T>(
    address: string,
    tokenIsRight: () => boolean,
    wrong: ServiceError,
    then: () => Promise<T>,
  ): Promise<T>;
}

export const sessionsRoutes: FastifyPluginAsyncTypebox<{
  sessions: SessionsService;
  adminToken: Secret;
  delayMs?: number;
  profile?: MeProfile;
  /** The sign-in throttle: a wrong admin token is then counted per address and recorded. */
  loginGuard?: LoginGuard;
}> = async (
  app,
  { sessions, adminToken, delayMs = WRONG_CREDENTIAL_DELAY_MS, profile, loginGuard },
) => {
  if (loginGuard !== undefined) answerThrottled(app);
  // As in the auth plugin: digests of equal length, compared in constant time.
  const adminDigest = digest(adminToken.reveal());
  const isAdminToken = (given: string): boolean => timingSafeEqual(digest(given), adminDigest);

  app.post(
    '/login',
    {
      schema: {
        summary: 'Sign in with the admin token: a session for the first owner',
        tags: ['access'],
        security: [],
        body: LoginBody,
        response: { 200: LoginReply, ...errorResponses },
      },
      // No body at all is a missing token, answered like `{}`: 400 naming `token`.
      preValidation: async (req) => {
        (req as { body: unknown }).body ??= {};
      },
    },
    async (req, reply) => {
      const wrong = new UnauthenticatedError('bad_token', 'the token is not valid');
      const open = () => sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
      let signedIn: Awaited<ReturnType<typeof open>>;
      if (loginGuard !== undefined) {
        signedIn = await loginGuard.login(req.ip, () => isAdminToken(req.body.token), wrong, open);
      } else {
        if (!isAdminToken(req.body.token)) {
          await sleep(delayMs);
          throw wrong;
        }
        signedIn = await open();
      }
      return reply.header('cache-control', 'no-store').send(signedIn);
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        summary: 'Sign out: end the calling session',
        tags: ['access'],
        response: {
          200: Type.Object({ ended: Type.Literal(true) }),
          409: ErrorBody,
          ...errorResponses,
        },
      },
      onRequest: app.requireRole('viewer'),
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      if (req.principal.kind !== 'session') {
        throw new ConflictError(
          'no_session',
          'the admin token is not a session, so there is nothing to sign out',
          { why: 'not_a_session' },
        );
      }
      // Already ended by a concurrent logout or expiry: ended all the same.
      await sessions.signOut(bearerOf(req) ?? '');
      return { ended: true as const };
    },
  );

  app.get(
    '/me',
    {
      schema: {
        summary: 'The caller: name, role and session',
        tags: ['access'],
        response: { 200: MeBody, ...errorResponses },
      },
      onRequest: app.requireRole('viewer'),
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const me = sessions.me(req.principal, bearerOf(req));
      const person = req.principal.kind === 'session' ? profile?.(req.principal.userId) : null;
      return person === null || person === undefined ? me : { ...me, ...person };
    },
  );
};

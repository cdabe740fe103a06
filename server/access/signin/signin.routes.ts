// POST /v1/auth/request, /v1/auth/verify, /v1/auth/password (anyone) and
// POST /v1/auth/bootstrap (admin token only). Open in every mode: people must be able to
// sign in to set the service up.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorBody, errorResponses } from '../../http/common.schemas.js';
import { ForbiddenError } from '../../shared/errors.js';
import { LoginReply } from '../sessions.schemas.js';
import { answerThrottled, ThrottledBody, type SignInGuard } from '../throttle.js';
import type { SignInService } from './signin.service.js';

export { answerThrottled, ThrottledBody };

const Email = Type.String({ minLength: 3, maxLength: 320, description: 'e-mail address' });

export const signInRoutes: FastifyPluginAsyncTypebox<{
  signIn: SignInService;
  /** The guard of wrong credentials: a bad admin token on bootstrap counts there too. */
  guard: SignInGuard;
}> = async (app, { signIn, guard }) => {
  answerThrottled(app);
  const noStore = { 'cache-control': 'no-store' };

  app.post(
    '/auth/request',
    {
      schema: {
        summary: 'Ask for a sign-in code by e-mail (always 202: nobody learns who may sign in)',
        tags: ['access'],
        security: [],
        body: Type.Object({ email: Email }, { additionalProperties: false }),
        response: {
          202: Type.Object({ sent: Type.Literal(true) }),
          429: ThrottledBody,
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      await signIn.requestCode(req.body.email, req.ip);
      return reply
        .code(202)
        .headers(noStore)
        .send({ sent: true as const });
    },
  );

  app.post(
    '/auth/verify',
    {
      schema: {
        summary: 'Sign in with the e-mailed code',
        tags: ['access'],
        security: [],
        body: Type.Object(
          { email: Email, code: Type.String({ minLength: 1, maxLength: 32 }) },
          { additionalProperties: false },
        ),
        response: { 200: LoginReply, 429: ThrottledBody, ...errorResponses },
      },
    },
    async (req, reply) => {
      const signedIn = await signIn.verifyCode(req.body.email, req.body.code, req.ip);
      return reply.headers(noStore).send(signedIn);
    },
  );

  app.post(
    '/auth/password',
    {
      schema: {
        summary: 'Sign in with e-mail address and password',
        tags: ['access'],
        security: [],
        body: Type.Object(
          { email: Email, password: Type.String({ minLength: 1, maxLength: 1024 }) },
          { additionalProperties: false },
        ),
        response: { 200: LoginReply, 429: ThrottledBody, ...errorResponses },
      },
    },
    async (req, reply) => {
      const signedIn = await signIn.signInWithPassword(req.body.email, req.body.password, req.ip);
      return reply.headers(noStore).send(signedIn);
    },
  );

  app.post(
    '/auth/bootstrap',
    {
      schema: {
        summary: 'Break-glass: make this person owner and sign them in (admin token only)',
        tags: ['access'],
        body: Type.Object(
          { email: Email, name: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: { 200: LoginReply, 429: ThrottledBody, 409: ErrorBody, ...errorResponses },
      },
      onRequest: [
        // Bad admin tokens from one address are throttled like wrong codes.
        async (req) => {
          await guard.check(req.ip, '');
        },
        app.requireRole('owner'),
        async (req) => {
          if (req.principal?.kind !== 'admin-token')
            throw new ForbiddenError(
              'admin_token_required',
              'bootstrap takes the admin token, not a session',
              { role: 'admin-token' },
            );
        },
      ],
      onResponse: async (req, reply) => {
        // The auth plugin already waited 0.5 s before its 401; count it against the address.
        if (reply.statusCode === 401) guard.note(req.ip, '');
      },
    },
    async (req, reply) => {
      const signedIn = await signIn.bootstrap(req.body.email, req.body.name, req.ip);
      return reply.headers(noStore).send(signedIn);
    },
  );
};

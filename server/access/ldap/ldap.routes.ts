// POST /v1/auth/ldap: directory sign-in with a user name and password. Open to anyone,
// in every mode (sign-in must work while the service is being set up).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorBody, errorResponses } from '../../http/common.schemas.js';
import { LoginReply } from '../sessions.schemas.js';
import { answerThrottled, ThrottledBody } from '../throttle.js';
import type { LdapSignIn } from './ldap.service.js';

export const LdapSignInBody = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'the directory user name or e-mail, as user_filter finds it',
    }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const ldapRoutes: FastifyPluginAsyncTypebox<{ ldap: LdapSignIn }> = async (
  app,
  { ldap },
) => {
  answerThrottled(app);
  app.post(
    '/auth/ldap',
    {
      schema: {
        summary: 'Directory sign-in: user name and password checked against LDAP',
        tags: ['access'],
        security: [],
        body: LdapSignInBody,
        response: {
          200: LoginReply,
          409: ErrorBody,
          429: ThrottledBody,
          ...errorResponses,
        },
      },
      preValidation: async (req) => {
        (req as { body: unknown }).body ??= {};
      },
    },
    async (req, reply) => {
      const signedIn = await ldap.signIn(req.body, req.ip);
      return reply.header('cache-control', 'no-store').send(signedIn);
    },
  );
};

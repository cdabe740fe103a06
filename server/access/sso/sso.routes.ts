// Single sign-on routes: the flow (open to anyone, every mode) and its settings (admin).
// The callback ends in a redirect to the console, `/sign-in?sso=<one-time code>`; when it
// fails, a browser (Accept: text/html) is sent to `/sign-in?sso_error=<code>&message=…`
// and any other caller gets the JSON error with its status.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { ErrorBody, errorResponses } from '../../http/common.schemas.js';
import { requireMode } from '../../http/operating-gate.js';
import type { Mode } from '../../shared/mode.js';
import { ServiceError } from '../../shared/errors.js';
import { LoginReply } from '../sessions.routes.js';
import { answerThrottled, ThrottledBody, TooManyAttemptsError } from '../throttle.js';
import {
  CallbackQuery,
  DiscoverBody,
  DiscoverReply,
  GroupsQuery,
  GroupsReply,
  RedeemBody,
  SsoSettingsInput,
  SsoSettingsView,
  SyncReply,
  TestReply,
} from './sso.schemas.js';
import type { SsoService } from './sso.service.js';

const Redirect = Type.Null({ description: 'a redirect (Location)' });

export const ssoRoutes: FastifyPluginAsyncTypebox<{
  sso: SsoService;
  /** The settings need a licence (mode configuring); the sign-in flow never does. */
  mode: () => Mode;
}> = async (app, { sso, mode }) => {
  answerThrottled(app);
  const admin = [app.requireRole('admin'), requireMode(mode, 'configuring')];
  app.get(
    '/auth/sso/start',
    {
      schema: {
        summary: 'Single sign-on: redirect to the identity provider (code flow, PKCE)',
        tags: ['access'],
        security: [],
        response: { 302: Redirect, 409: ErrorBody, ...errorResponses },
      },
    },
    async (_req, reply) => {
      const location = await sso.start();
      return reply.header('cache-control', 'no-store').redirect(location, 302);
    },
  );

  app.get(
    '/auth/sso/callback',
    {
      schema: {
        summary:
          'Single sign-on: the provider returns here; redirects to the console with a one-time code',
        tags: ['access'],
        security: [],
        querystring: CallbackQuery,
        response: { 302: Redirect, 409: ErrorBody, 429: ThrottledBody, ...errorResponses },
      },
    },
    async (req, reply) => {
      const browser = (req.headers.accept ?? '').includes('text/html');
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      try {
        const location = await sso.callback(req.query, req.ip);
        return await reply.redirect(location, 302);
      } catch (err) {
        if (!browser || !(err instanceof ServiceError || err instanceof TooManyAttemptsError)) {
          throw err;
        }
        const q = new URLSearchParams({ sso_error: err.code, message: err.message });
        return reply.redirect(`/sign-in?${q.toString()}`, 302);
      }
    },
  );

  app.post(
    '/auth/sso/redeem',
    {
      schema: {
        summary: "Single sign-on: the callback's one-time code for a session",
        tags: ['access'],
        security: [],
        body: RedeemBody,
        response: { 200: LoginReply, 429: ThrottledBody, ...errorResponses },
      },
      preValidation: async (req) => {
        (req as { body: unknown }).body ??= {};
      },
    },
    async (req, reply) => {
      const signedIn = await sso.redeem(req.body.code, req.ip);
      return reply.header('cache-control', 'no-store').send(signedIn);
    },
  );

  app.get(
    '/settings/sso',
    {
      schema: {
        summary: 'Single sign-on settings (the client secret as a reference only)',
        tags: ['access'],
        response: { 200: SsoSettingsView, ...errorResponses },
      },
      onRequest: admin,
    },
    async () => sso.get(),
  );

  app.put(
    '/settings/sso',
    {
      schema: {
        summary: 'Replace the single sign-on settings',
        tags: ['access'],
        body: SsoSettingsInput,
        response: { 200: SsoSettingsView, ...errorResponses },
      },
      onRequest: admin,
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return sso.put(req.body, actorOf(req.principal));
    },
  );

  app.get(
    '/settings/sso/groups',
    {
      schema: {
        summary: 'Search the groups seen in single sign-on sign-ins',
        tags: ['access'],
        querystring: GroupsQuery,
        response: { 200: GroupsReply, ...errorResponses },
      },
      onRequest: admin,
    },
    async (req) => sso.groups(req.query.q ?? ''),
  );

  app.post(
    '/settings/sso/discover',
    {
      schema: {
        summary: "Read an identity provider's metadata: what it offers",
        tags: ['access'],
        body: DiscoverBody,
        response: { 200: DiscoverReply, ...errorResponses },
      },
      onRequest: admin,
    },
    async (req) => sso.discover(req.body),
  );

  app.post(
    '/settings/sso/test',
    {
      schema: {
        summary: 'Test single sign-on settings (saved ones, or the body) against the provider',
        tags: ['access'],
        body: Type.Optional(
          Type.Union([SsoSettingsInput, Type.Object({}, { additionalProperties: false })]),
        ),
        response: { 200: TestReply, ...errorResponses },
      },
      onRequest: admin,
    },
    async (req) => {
      const body = req.body as Partial<SsoSettingsInput> | undefined;
      return sso.test(
        body === undefined || Object.keys(body).length === 0
          ? undefined
          : (body as SsoSettingsInput),
      );
    },
  );

  app.post(
    '/settings/sso/sync',
    {
      schema: {
        summary:
          "Read the provider's metadata and keys again (people's groups are read at sign-in)",
        tags: ['access'],
        response: { 200: SyncReply, ...errorResponses },
      },
      onRequest: admin,
    },
    async () => sso.sync(),
  );
};

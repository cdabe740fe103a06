// Single sign-on routes: the flow (open to anyone, every mode) and its settings (admin; the
// provider itself, owner). The callback ends in a redirect to the console,
// `/sign-in?sso=<one-time code>`; when it fails, a browser (Accept: text/html) is sent to
// `/sign-in?sso_error=<code>&message=…` and any other caller gets the JSON error with its
// status. Start gives the browser a cookie (svc_sso, HttpOnly, SameSite=Lax, 10 minutes)
// that the callback and the redeem must carry: a callback opened in another browser (a
// victim lured into finishing an attacker's sign-in, or the reverse) is refused.
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { ErrorBody, errorResponses } from '../../http/common.schemas.js';
import { requireMode } from '../../http/operating-gate.js';
import type { Mode } from '../../shared/mode.js';
import { roleAtLeast } from '../../shared/roles.js';
import { ServiceError } from '../../shared/errors.js';
import { LoginReply } from '../sessions.schemas.js';
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

/** The browser binding cookie: only the flow's own paths ever see it. */
const BROWSER_COOKIE = 'svc_sso';
const COOKIE_PATH = '/v1/auth/sso';
const COOKIE_MAX_AGE_S = 600;

/** The binding cookie the request carries, or '' (never matches a started flow). */
function browserOf(req: FastifyRequest): string {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === BROWSER_COOKIE) return part.slice(eq + 1).trim();
  }
  return '';
}

function setBrowser(req: FastifyRequest, reply: FastifyReply, value: string, maxAgeS: number) {
  const secure = req.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${BROWSER_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${String(maxAgeS)}; HttpOnly; SameSite=Lax${secure}`,
  );
}

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
    async (req, reply) => {
      const browser = randomBytes(32).toString('base64url');
      const location = await sso.start(browser);
      setBrowser(req, reply, browser, COOKIE_MAX_AGE_S);
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
        const location = await sso.callback(req.query, req.ip, browserOf(req));
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
      const signedIn = await sso.redeem(req.body.code, req.ip, browserOf(req));
      // The binding has done its work: the browser forgets it.
      setBrowser(req, reply, '', 0);
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
      const isOwner = req.principal.role !== null && roleAtLeast(req.principal.role, 'owner');
      return sso.put(req.body, actorOf(req.principal), isOwner);
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

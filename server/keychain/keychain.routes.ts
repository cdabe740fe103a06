import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/common.schemas.js';
import { actorOf } from '../http/auth.js';
import rateLimit from '@fastify/rate-limit';
import { ConflictError, InvalidInputError } from '../shared/errors.js';
import { roleAtLeast } from '../shared/roles.js';
import type { Sealing } from './sealing.js';
import type { KeychainService } from './keychain.service.js';
import type { PullResult } from './member-sync.js';
import type { PairingJoiner } from './pairing-joiner.js';
import type { PairingHome } from './pairing.js';
import { pairingRoutes } from './pairing.routes.js';
import type { Handover } from './handover.js';
import type { Takeover } from './takeover.js';
import {
  HomeBody,
  MemberBody,
  RenameBody,
  KeychainView,
  RevokeBody,
  OwnBody,
  ScopeBody,
  SealBody,
  SealedAnswer,
  UnsealAnswer,
  UnsealBody,
  SiteKeysBody,
  SiteKeysCreated,
} from './keychain.schemas.js';

export const keychainRoutes: FastifyPluginAsyncTypebox<{
  keychain: KeychainService;
  /** A member's pull from its home now. */
  pull: () => Promise<PullResult>;
  /** The home's health watch now. */
  health: () => Promise<number>;
  /** A member leaving its keychain. */
  leave: () => Promise<{ homeInformed: boolean }>;
  /** A member renaming itself through its home: why not, or null. */
  renameSelf: (label: string) => Promise<string | null>;
  sealing: Sealing;
  pairing: PairingHome;
  joiner: PairingJoiner;
  handover: Handover;
  takeover: Takeover;
}> = async (
  app,
  { keychain, pull, health, leave, renameSelf, sealing, pairing, joiner, handover, takeover },
) => {
  /** What every keychain route answers: the view with pairing and handover as each side sees them. */
  const view = () => ({
    ...keychain.view(),
    pairing: pairing.view(),
    joining: joiner.view(),
    handover: handover.view(),
  });
  app.post(
    '/keychain/take-over',
    {
      schema: {
        summary: 'Take over as home after 15 minutes of home silence seen by this member (owner)',
        tags: ['keychain'],
        // No body, or {force}: a body is optional here, so it is checked by hand.
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('owner')],
    },
    async (req) => {
      const body = req.body as { force?: unknown } | null | undefined;
      const bad =
        body != null &&
        (typeof body !== 'object' ||
          Object.keys(body).some((k) => k !== 'force') ||
          (body.force !== undefined && typeof body.force !== 'boolean'));
      if (bad)
        throw new InvalidInputError('invalid_input', 'the body is {force: boolean} or nothing', {
          field: 'force',
        });
      await takeover.claim(body?.force === true, actor(req));
      return view();
    },
  );
  await app.register(pairingRoutes, {
    pairing,
    joiner,
    handover,
    view,
    pull: async () => {
      await pull();
    },
  });
  // Sealing and opening run a KDF of a second or so: five a minute per person (design §2.10).
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) => ({
      statusCode: 429,
      error: 'throttled',
      message: `too many sealed-file calls; retry in ${String(Math.ceil(ctx.ttl / 1000))} s`,
    }),
  });
  const kdfLimit = {
    rateLimit: {
      max: 5,
      timeWindow: 60_000,
      keyGenerator: (req: { principal: { name: string } | null; ip: string }) =>
        req.principal?.name ?? req.ip,
    },
  };
  const actor = (req: { principal: Parameters<typeof actorOf>[0] | null }) => {
    if (req.principal === null) throw new Error('requireRole let an anonymous call through');
    return actorOf(req.principal);
  };
  app.get(
    '/keychain',
    {
      schema: {
        summary: "This install's keychain: role, members with health, site keys",
        tags: ['keychain'],
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer')],
    },
    async (req, reply) => {
      // The pairing and handover codes are for those who type them: admins, never cached.
      void reply.header('cache-control', 'no-store');
      const v = view();
      const role = req.principal?.role ?? null;
      if (role !== null && roleAtLeast(role, 'admin')) return v;
      return {
        ...v,
        pairing:
          v.pairing === null
            ? null
            : { ...v.pairing, requests: v.pairing.requests.map((r) => ({ ...r, code: null })) },
        joining: v.joining === null ? null : { ...v.joining, code: null },
        handover: v.handover === null ? null : { ...v.handover, code: null },
      };
    },
  );
  app.post(
    '/keychain/home',
    {
      schema: {
        summary: 'Make this install the home of a new keychain',
        tags: ['keychain'],
        body: HomeBody,
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => {
      await keychain.makeHome(req.body.label.trim(), actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/site-keys',
    {
      schema: {
        summary: 'Make site keys for new sites to join with (each shown once, usable once)',
        tags: ['keychain'],
        body: SiteKeysBody,
        response: { 200: SiteKeysCreated, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req, reply) => {
      // A key is shown once: no proxy or browser may keep the answer.
      void reply.header('cache-control', 'no-store');
      return keychain.createSiteKeys(
        { ...req.body, labels: req.body.labels.map((l) => l.trim()) },
        actor(req),
      );
    },
  );
  app.post(
    '/keychain/site-keys/revoke',
    {
      schema: {
        summary: 'Revoke a site key not yet used',
        tags: ['keychain'],
        body: RevokeBody,
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => {
      await keychain.revokeSiteKey(req.body.id, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/pull',
    {
      schema: {
        summary: 'Sync now: a member pulls from its home; the home checks its members',
        tags: ['keychain'],
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async () => {
      const role = keychain.view().role;
      if (role === 'none')
        throw new ConflictError('not_in_keychain', 'this install is in no keychain', {
          why: 'no keychain',
        });
      if (role === 'home') await health();
      else {
        const result = await pull();
        if (!result.ok)
          throw new ConflictError('pull_failed', `the pull from the home failed: ${result.why}`, {
            why: result.why,
          });
      }
      return view();
    },
  );
  app.post(
    '/keychain/members/remove',
    {
      schema: {
        summary: 'Remove a member (home): it is refused from now on, 403 member_removed',
        tags: ['keychain'],
        body: MemberBody,
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => {
      await keychain.removeMember(req.body.fingerprint, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/rename',
    {
      schema: {
        summary:
          'Rename a member, or the home itself without a fingerprint (home); a member renames itself through its home',
        tags: ['keychain'],
        body: RenameBody,
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => {
      const v = keychain.view();
      const label = req.body.label.trim();
      // A member renames only itself, and through its home, whose log holds the labels.
      if (v.role === 'member') {
        if (req.body.fingerprint !== undefined && req.body.fingerprint !== v.fingerprint)
          throw new ConflictError(
            'not_home',
            'a member renames only itself; the home renames the others',
            {
              why: 'member',
              home_fp: v.home_fp ?? '',
            },
          );
        const why = await renameSelf(label);
        if (why !== null)
          throw new ConflictError('rename_failed', `the home did not take the new name: ${why}`, {
            why,
          });
        return view();
      }
      await keychain.rename(label, req.body.fingerprint ?? null, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/leave',
    {
      schema: {
        summary: 'Leave the keychain (member); the home is told when it answers',
        tags: ['keychain'],
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async () => {
      const role = keychain.view().role;
      if (role === 'none')
        throw new ConflictError('not_in_keychain', 'this install is in no keychain', {
          why: 'no keychain',
        });
      if (role === 'home')
        throw new ConflictError(
          'home_cannot_leave',
          'the home cannot leave its keychain: hand it over to a member first',
          {
            why: 'home',
          },
        );
      await leave();
      return view();
    },
  );
  app.post(
    '/keychain/seal',
    {
      schema: {
        summary: 'Seal the parts this install carries into a file under a passphrase',
        tags: ['keychain'],
        body: SealBody,
        response: { 200: SealedAnswer, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
      config: kdfLimit,
    },
    async (req, reply) => {
      void reply.header('cache-control', 'no-store');
      return sealing.seal(req.body.passphrase, actor(req).name);
    },
  );
  app.post(
    '/keychain/unseal',
    {
      schema: {
        summary: 'Apply a sealed keychain file (once per version; never an older one)',
        tags: ['keychain'],
        body: UnsealBody,
        response: { 200: UnsealAnswer, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
      config: kdfLimit,
      // A file carries the branding's logos: more than the API's usual body limit.
      bodyLimit: 10 * 1024 * 1024,
    },
    async (req) => sealing.unseal(req.body.file, req.body.passphrase, actor(req).name, 'api'),
  );
  app.post(
    '/keychain/scope',
    {
      schema: {
        summary: 'The parts the home does not carry (home)',
        tags: ['keychain'],
        body: ScopeBody,
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => {
      await keychain.setScope(req.body.skip, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/own',
    {
      schema: {
        summary: "Keep this member's own copy of a part, or take the home's again",
        tags: ['keychain'],
        body: OwnBody,
        response: { 200: KeychainView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => {
      await keychain.setOwn(req.body.part, req.body.own, actor(req));
      return view();
    },
  );
};

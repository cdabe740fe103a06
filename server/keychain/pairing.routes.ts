// The routes of pairing by code (pairing.ts on the home, pairing-joiner.ts on the joining
// install): each answers the whole keychain view, with the codes both sides show.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { actorOf } from '../http/auth.js';
import { errorResponses } from '../http/common.schemas.js';
import {
  ApproveBody,
  CodeBody,
  MemberBody,
  JoinBody,
  KeychainView,
  MemberCodeBody,
} from './keychain.schemas.js';
import type { PairingJoiner } from './pairing-joiner.js';
import type { PairingHome } from './pairing.js';
import type { Handover } from './handover.js';

export const pairingRoutes: FastifyPluginAsyncTypebox<{
  pairing: PairingHome;
  joiner: PairingJoiner;
  handover: Handover;
  /** The whole view (keychain.routes.ts), after the change. */
  view: () => Static<typeof KeychainView>;
  /** A member's pull now (to learn of an offer before accepting it). */
  pull: () => Promise<void>;
}> = async (app, { pairing, joiner, handover, view, pull }) => {
  const actor = (req: { principal: Parameters<typeof actorOf>[0] | null }) => {
    if (req.principal === null) throw new Error('requireRole let an anonymous call through');
    return actorOf(req.principal);
  };
  const common = { tags: ['keychain'], response: { 200: KeychainView, ...errorResponses } };
  const admin = [app.requireRole('admin')];

  app.post(
    '/keychain/window',
    {
      schema: { ...common, summary: 'Open pairing by code for 10 minutes (home)' },
      onRequest: admin,
    },
    async (req) => {
      await pairing.openWindow(actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/join',
    {
      schema: {
        ...common,
        summary: 'Ask a home to pair: both installs then show the same six digits',
        body: JoinBody,
      },
      onRequest: admin,
    },
    async (req, reply) => {
      // The code is shown here: no proxy or browser may keep the answer.
      void reply.header('cache-control', 'no-store');
      await joiner.join(req.body.address.replace(/\/+$/, ''), req.body.label.trim(), actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/join/confirm',
    {
      schema: {
        ...common,
        summary: 'Type the code the home shows (one wrong code ends the request)',
        body: CodeBody,
      },
      onRequest: admin,
    },
    async (req) => {
      await joiner.confirm(req.body.code, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/join/cancel',
    { schema: { ...common, summary: 'Cancel pairing with a home' }, onRequest: admin },
    async (req) => {
      await joiner.cancel(actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/members/confirm',
    {
      schema: {
        ...common,
        summary: 'Type the code a joining install shows (home; one wrong code ends its request)',
        body: MemberCodeBody,
      },
      onRequest: admin,
    },
    async (req) => {
      await pairing.confirmMember(req.body.fingerprint, req.body.code, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/joins/approve',
    {
      schema: {
        ...common,
        summary: 'Give a paired member a seat on the licence (home)',
        body: ApproveBody,
      },
      onRequest: admin,
    },
    async (req) => {
      await pairing.approve(req.body.request, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/handover',
    {
      schema: {
        ...common,
        summary: 'Offer the home to a member: a six-digit code is shown here, typed there',
        body: MemberBody,
      },
      onRequest: admin,
    },
    async (req, reply) => {
      void reply.header('cache-control', 'no-store');
      await handover.offer(req.body.fingerprint, actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/handover/cancel',
    {
      schema: { ...common, summary: 'Withdraw the handover offered (home; before it is accepted)' },
      onRequest: admin,
    },
    async (req) => {
      await handover.cancel(actor(req));
      return view();
    },
  );
  app.post(
    '/keychain/handover/accept',
    {
      schema: {
        ...common,
        summary: 'Accept the home on this member with the code the home shows',
        body: CodeBody,
      },
      onRequest: admin,
    },
    async (req) => {
      await handover.accept(req.body.code, pull, actor(req));
      return view();
    },
  );
};

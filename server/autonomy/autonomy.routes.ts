// GET /v1/autonomy (viewer), POST /v1/autonomy and /v1/fix-mode (admin), POST /v1/halt
// (responder), POST /v1/resume (admin). Open from mode configuring on; `by` counts only with
// the admin token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import { actorId, type Actor } from '../shared/types.js';
import {
  AutonomySet,
  AutonomyView,
  FixModeSet,
  HaltBody,
  HaltState,
  Requested,
  ResumeBody,
  SetAutonomy,
  SetFixMode,
} from './autonomy.schemas.js';
import type { AutonomyService } from './autonomy.service.js';

function actorFrom(req: FastifyRequest, by?: string): Actor {
  if (req.principal === null) throw new Error('requireRole let an anonymous call through');
  return actorOf(req.principal, by);
}

const withConflict = { ...errorResponses, 409: ErrorBody } as const;

export const autonomyRoutes: FastifyPluginAsyncTypebox<{
  autonomy: AutonomyService;
  mode: () => Mode;
}> = async (app, { autonomy, mode }) => {
  const open = requireMode(mode, 'configuring');
  // A POST whose fields are all optional may come without a body: read it as {}.
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });
  app.get(
    '/autonomy',
    {
      schema: {
        summary: 'Autonomy levels, halt, fix mode, and the pending raise and draft requests',
        tags: ['autonomy'],
        response: { 200: AutonomyView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) => autonomy.view(req.principal === null ? null : actorId(actorFrom(req))),
  );
  app.post(
    '/autonomy',
    {
      schema: {
        summary:
          'Set a level ({service, level}; service * is the default): 200 lowered, 202 raise requested, 409 with why',
        tags: ['autonomy'],
        body: SetAutonomy,
        response: { 200: AutonomySet, 202: Requested, ...withConflict },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req, reply) => {
      const r = await autonomy.set(req.body.service, req.body.level, actorFrom(req, req.body.by));
      return r.applied
        ? reply.code(200).send({ service: r.service, level: r.level })
        : reply.code(202).send({ request: r.request });
    },
  );
  app.post(
    '/fix-mode',
    {
      schema: {
        summary:
          'Set fix mode: advise applies at once (200); draft is requested (202) or refused (409)',
        tags: ['autonomy'],
        body: SetFixMode,
        response: { 200: FixModeSet, 202: Requested, ...withConflict },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req, reply) => {
      const r = await autonomy.setFixMode(req.body.mode, actorFrom(req, req.body.by));
      return r.applied
        ? reply.code(200).send({ mode: r.mode })
        : reply.code(202).send({ request: r.request });
    },
  );
  app.post(
    '/halt',
    {
      schema: {
        summary: 'Halt: every action is refused (approved ones too); diagnosis goes on',
        tags: ['autonomy'],
        body: HaltBody,
        response: { 200: HaltState, ...errorResponses },
      },
      onRequest: [app.requireRole('responder'), open],
    },
    async (req) => autonomy.halt(req.body.reason, actorFrom(req, req.body.by)),
  );
  app.post(
    '/resume',
    {
      schema: {
        summary: 'Resume after a halt',
        tags: ['autonomy'],
        body: ResumeBody,
        response: { 200: HaltState, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => autonomy.resume(actorFrom(req, req.body.by), req.body.reason ?? null),
  );
};

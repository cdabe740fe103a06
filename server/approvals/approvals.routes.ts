// GET /v1/approvals (+ /<id>), POST …/approve, …/deny, …/withdraw, and the signed channel
// links: GET /v1/approvals/link (anyone: what the link would do) and POST (anyone: the
// single-use token is the credential). Open from mode configuring on.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import {
  ApprovalList,
  ApprovalListQuery,
  ApprovalRequestBody,
  ApproveBody,
  DenyBody,
  LinkBody,
  LinkPreview,
  LinkQuery,
  LinkUsed,
  RequestIdParams,
  WithdrawBody,
} from './approvals.schemas.js';
import type { ApprovalsService } from './approvals.service.js';
import type { Approver } from './approvers.js';

/**
 * The signed-in caller as an approver. The admin token counts as `admin-token` whatever
 * `by` says; `by` is only recorded, as the person it names (the service checks it is one).
 */
function approverOf(req: FastifyRequest, by?: string): Approver {
  const p = req.principal;
  if (p === null || p.role === null) throw new Error('requireRole let an anonymous call through');
  const given = by?.trim() ?? '';
  if (p.kind === 'admin-token')
    return {
      actor: actorOf(p),
      role: p.role,
      via: 'console',
      ...(given !== '' && { onBehalfOf: given }),
    };
  return { actor: actorOf(p), role: p.role, via: 'console' };
}

const withConflict = { ...errorResponses, 404: ErrorBody, 409: ErrorBody } as const;

export const approvalsRoutes: FastifyPluginAsyncTypebox<{
  approvals: ApprovalsService;
  mode: () => Mode;
}> = async (app, { approvals, mode }) => {
  const open = requireMode(mode, 'configuring');
  // A POST whose fields are all optional may come without a body: read it as {}.
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });
  app.get(
    '/approvals',
    {
      schema: {
        summary: 'Approval requests with decisions and channels; facets status, risk and kind',
        tags: ['approvals'],
        querystring: ApprovalListQuery,
        response: { 200: ApprovalList, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) => approvals.list(req.query),
  );
  app.get(
    '/approvals/link',
    {
      schema: {
        summary: 'What a signed approve/deny link would do; nothing is used',
        tags: ['approvals'],
        security: [],
        querystring: LinkQuery,
        response: { 200: LinkPreview, ...withConflict },
      },
      onRequest: [open],
    },
    async (req) => approvals.peekLink(req.query.token),
  );
  app.post(
    '/approvals/link',
    {
      schema: {
        summary: 'Use a signed single-use approve/deny link (counts as channel:<connector>)',
        tags: ['approvals'],
        security: [],
        body: LinkBody,
        response: { 200: LinkUsed, ...withConflict },
      },
      onRequest: [open],
    },
    async (req) => approvals.useLink(req.body.token, req.body.reason ?? null),
  );
  app.get(
    '/approvals/:request_id',
    {
      schema: {
        summary: 'One approval request',
        tags: ['approvals'],
        params: RequestIdParams,
        response: { 200: ApprovalRequestBody, ...errorResponses, 404: ErrorBody },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) => approvals.get(req.params.request_id),
  );
  app.post(
    '/approvals/:request_id/approve',
    {
      schema: {
        summary:
          'Approve (responder; admin for autonomy and fix mode); never the requester, each approver once',
        tags: ['approvals'],
        params: RequestIdParams,
        body: ApproveBody,
        response: { 200: ApprovalRequestBody, ...withConflict },
      },
      onRequest: [app.requireRole('responder'), open],
    },
    async (req) =>
      approvals.approve(
        req.params.request_id,
        approverOf(req, req.body.by),
        req.body.reason ?? null,
      ),
  );
  app.post(
    '/approvals/:request_id/deny',
    {
      schema: {
        summary: 'Deny (same roles as approve); one deny ends the request',
        tags: ['approvals'],
        params: RequestIdParams,
        body: DenyBody,
        response: { 200: ApprovalRequestBody, ...withConflict },
      },
      onRequest: [app.requireRole('responder'), open],
    },
    async (req) =>
      approvals.deny(req.params.request_id, approverOf(req, req.body.by), req.body.reason),
  );
  app.post(
    '/approvals/:request_id/withdraw',
    {
      schema: {
        summary: 'Withdraw a pending request; 404 when none is pending',
        tags: ['approvals'],
        params: RequestIdParams,
        body: WithdrawBody,
        response: { 200: ApprovalRequestBody, ...withConflict },
      },
      onRequest: [app.requireRole('responder'), open],
    },
    async (req) =>
      approvals.withdraw(
        req.params.request_id,
        approverOf(req, req.body.by),
        req.body.reason ?? null,
      ),
  );
};

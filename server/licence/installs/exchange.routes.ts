// The install exchange's endpoints (licence.md §3.7): open in every mode, like the licence's
// own, since a new install in setup is exactly where ask and poll are needed. Viewers see;
// asking, looking, vouching, polling and removing need the admin role.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { ErrorBody, errorResponses } from '../../http/common.schemas.js';
import { INSTALL_ROLES } from '../document/licence-doc.js';
import { MAX_ARMOUR_BYTES } from './armour.js';
import type { InstallExchange } from './exchange.js';
import { PURPOSES } from './request.js';

const RequestText = Type.String({ minLength: 1, maxLength: MAX_ARMOUR_BYTES });
const Free = Type.Object({}, { additionalProperties: true });

const AskBody = Type.Object(
  {
    /** add, move, dr or replace */
    purpose: Type.Union(PURPOSES.map((p) => Type.Literal(p))),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
const LookBody = Type.Object({ text: RequestText }, { additionalProperties: false });
const VouchBody = Type.Object(
  {
    text: RequestText,
    /** the 6 digits read from the new install's screen, "418 207" or "418207" */
    code: Type.String({ pattern: '^\\s*[0-9]{3} ?[0-9]{3}\\s*$', maxLength: 16 }),
    /** the role the new install gets (default: dr for purpose dr, else production) */
    role: Type.Optional(Type.Union(INSTALL_ROLES.map((r) => Type.Literal(r)))),
  },
  { additionalProperties: false },
);
const RemoveBody = Type.Object(
  { fingerprint: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const installExchangeRoutes: FastifyPluginAsyncTypebox<{
  exchange: InstallExchange;
}> = async (app, { exchange }) => {
  const actor = (p: Parameters<typeof actorOf>[0] | null): string => {
    if (p === null) throw new Error('requireRole let an anonymous call through');
    return actorOf(p).name;
  };
  app.get(
    '/licence/installs',
    {
      schema: {
        summary:
          'This install, the licence’s installs, history, limit, candidate, outgoing requests and what the caller can do',
        tags: ['licence'],
        response: { 200: Free, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer')],
    },
    async (req) => exchange.view(req.principal?.role ?? 'viewer'),
  );
  app.post(
    '/licence/installs/ask',
    {
      schema: {
        summary:
          'On a new install: sign a request to be added; returns the code and the text to carry',
        tags: ['licence'],
        body: AskBody,
        response: { 200: Free, ...errorResponses, 409: ErrorBody },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) =>
      exchange.ask(
        {
          purpose: req.body.purpose,
          ...(req.body.label !== undefined && { label: req.body.label }),
        },
        actor(req.principal),
      ),
  );
  app.post(
    '/licence/installs/look',
    {
      schema: {
        summary: 'Show what a pasted request asks, each check, and its digits; changes nothing',
        tags: ['licence'],
        body: LookBody,
        response: { 200: Free, ...errorResponses },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => exchange.look(req.body.text, actor(req.principal)),
  );
  app.post(
    '/licence/installs/vouch',
    {
      schema: {
        summary:
          'Vouch for a pasted request with its code: granted, pending or manual (409 code_mismatch)',
        tags: ['licence'],
        body: VouchBody,
        response: { 200: Free, ...errorResponses, 409: ErrorBody },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) =>
      exchange.vouch(
        {
          text: req.body.text,
          code: req.body.code,
          ...(req.body.role !== undefined && { role: req.body.role }),
        },
        actor(req.principal),
      ),
  );
  app.post(
    '/licence/installs/poll',
    {
      schema: {
        summary: 'On the new install: where its requests stand',
        tags: ['licence'],
        response: { 200: Free, ...errorResponses, 404: ErrorBody },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => exchange.poll(actor(req.principal)),
  );
  app.post(
    '/licence/installs/remove',
    {
      schema: {
        summary:
          'Remove an install from the licence here: its seat is free (409 for the last production install)',
        tags: ['licence'],
        body: RemoveBody,
        response: { 200: Free, ...errorResponses, 404: ErrorBody, 409: ErrorBody },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req) => exchange.remove(req.body.fingerprint, actor(req.principal)),
  );
};

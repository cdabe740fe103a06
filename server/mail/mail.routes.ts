// GET/PUT /v1/settings/mail and POST /v1/settings/mail/test (admin). Open in every mode:
// mail is part of setting up sign-in.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import { MailSettingsView, MailTestReply } from './mail.schemas.js';
import type { MailService } from './mail.service.js';

export const mailRoutes: FastifyPluginAsyncTypebox<{
  mail: MailService;
  /** Mail settings need a licence (mode configuring). */
  mode: () => Mode;
}> = async (app, { mail, mode }) => {
  const admin = [app.requireRole('admin'), requireMode(mode, 'configuring')];
  app.get(
    '/settings/mail',
    {
      schema: {
        summary: 'Mail settings (secrets as references)',
        tags: ['settings'],
        response: { 200: MailSettingsView, ...errorResponses },
      },
      onRequest: admin,
    },
    async () => mail.get(),
  );

  app.put(
    '/settings/mail',
    {
      schema: {
        summary:
          'Set the mail settings: SMTP (starttls, ssl or none) or a JSON mail API; 409 naming the variables when the environment sets mail',
        description:
          'Secrets (smtp.password, api.token) are {file}, {env} or a typed-in {value}, which is written to an owner-only file and replaced by its {file} reference.',
        tags: ['settings'],
        body: Type.Object(
          {
            transport: Type.String({ description: 'smtp or api' }),
            by: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: true },
        ),
        response: { 200: MailSettingsView, ...errorResponses, 409: ErrorBody },
      },
      onRequest: admin,
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const { by, ...given } = req.body;
      return mail.set(given, actorOf(req.principal, by));
    },
  );

  app.post(
    '/settings/mail/test',
    {
      schema: {
        summary: 'Send a test mail with the stored settings',
        tags: ['settings'],
        body: Type.Object(
          { to: Type.String({ minLength: 3, maxLength: 320 }) },
          { additionalProperties: false },
        ),
        response: { 200: MailTestReply, ...errorResponses },
      },
      onRequest: admin,
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return mail.test(req.body.to.trim(), actorOf(req.principal));
    },
  );
};

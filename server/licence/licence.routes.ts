import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { InstallLicenceBody, LicenceAnswer } from './licence.schemas.js';
import type { LicenceService } from './licence.service.js';

/** Licence endpoints: open in every mode (setup is exactly when they are needed). */
export const licenceRoutes: FastifyPluginAsyncTypebox<{ licence: LicenceService }> = async (
  app,
  { licence },
) => {
  app.post(
    '/licence',
    {
      bodyLimit: 600 * 1024,
      schema: {
        summary: 'Install or replace the licence (409 when a licence file is mounted)',
        tags: ['licence'],
        body: InstallLicenceBody,
        response: { 200: LicenceAnswer, ...errorResponses, 404: ErrorBody, 409: ErrorBody },
      },
      onRequest: [app.requireRole('owner')],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const actor = actorOf(req.principal).name;
      const { changed } = await licence.install(req.body.licence, {
        actor,
        ...(req.body.acknowledge !== undefined && { acknowledge: req.body.acknowledge }),
      });
      return { changed, licence: licence.view() };
    },
  );
  app.delete(
    '/licence',
    {
      schema: {
        summary: 'Remove the licence: back to setup mode',
        tags: ['licence'],
        response: { 200: LicenceAnswer, ...errorResponses, 404: ErrorBody, 409: ErrorBody },
      },
      onRequest: [app.requireRole('owner')],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      await licence.remove(actorOf(req.principal).name);
      return { changed: true, licence: licence.view() };
    },
  );
};

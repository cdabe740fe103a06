import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { InstallLicenceBody, LicenceAnswer } from './licence.schemas.js';
import type { LicenceService } from './licence.service.js';
import { GRANT_ARMOUR_BEGIN, type InstallExchange } from './installs/exchange.js';

/** Licence endpoints: open in every mode (setup is exactly when they are needed). */
export const licenceRoutes: FastifyPluginAsyncTypebox<{
  licence: LicenceService;
  exchange: InstallExchange;
}> = async (app, { licence, exchange }) => {
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
      // An install grant from an install on the licence (§3.7): checked against this
      // install's open requests, then the licence it carries installs with it.
      const text = req.body.licence;
      if (typeof text === 'string' && text.trimStart().startsWith(GRANT_ARMOUR_BEGIN)) {
        const granted = await exchange.acceptGrant(text, {
          actor,
          ...(req.body.acknowledge !== undefined && { acknowledge: req.body.acknowledge }),
        });
        return { changed: granted.changed, licence: licence.view() };
      }
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

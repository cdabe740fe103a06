import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/common.schemas.js';
import { useStrictJson } from '../http/json-body.js';
import { requireMode } from '../http/operating-gate.js';
import { InvalidInputError } from '../shared/errors.js';
import type { Mode } from '../shared/mode.js';
import { ALERT_BODY_LIMIT, IntakeResult, SourceParams } from './intake.schemas.js';
import type { IntakeService } from './intake.service.js';

export const intakeRoutes: FastifyPluginAsyncTypebox<{
  intake: IntakeService;
  mode: () => Mode;
}> = async (app, { intake, mode }) => {
  // Webhook bodies are untrusted: strict UTF-8 (an invalid byte is a 400, never a silent
  // U+FFFD), the strict JSON reading of every route (duplicate keys, overflowing numbers,
  // prototype poisoning) and text/plain JSON as SNS sends it.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  useStrictJson(app, {
    types: ['application/json', 'text/plain'],
    bodyLimit: ALERT_BODY_LIMIT,
    decode: (body) => {
      let text: string;
      try {
        text = utf8.decode(body);
      } catch {
        throw new InvalidInputError('invalid_utf8', 'the body is not valid UTF-8', {
          field: 'body',
        });
      }
      if (text.trim() === '')
        throw new InvalidInputError('invalid_input', 'the body is empty', { field: 'body' });
      return text;
    },
  });

  app.post(
    '/alerts/:source',
    {
      bodyLimit: ALERT_BODY_LIMIT,
      schema: {
        summary: 'Receive a monitoring tool or SIEM webhook; <source> may be auto',
        tags: ['ingest'],
        params: SourceParams,
        body: Type.Unknown(),
        response: { 202: IntakeResult, ...errorResponses },
      },
      onRequest: [app.requireIngest(), requireMode(mode, 'configuring')],
    },
    async (req, reply) => {
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k] = Array.isArray(v) ? v.join(', ') : v;
      return reply.code(202).send(await intake.receive(req.params.source, req.body, headers));
    },
  );
};

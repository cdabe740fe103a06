import type { FastifyError, FastifyInstance } from 'fastify';
import { NotOperatingError, ServiceError, type ErrorKind } from '../shared/errors.js';
import { pathOnly } from '../shared/url.js';

/** The HTTP status of each kind of ServiceError. */
export const statusOf: Record<ErrorKind, number> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  not_operating: 503,
  unavailable: 503,
};

interface AjvError {
  instancePath?: string;
  keyword?: string;
  params?: { missingProperty?: string; additionalProperty?: string };
  message?: string;
}

/** The field a schema failure is about, in dotted form (`data.service`, `limit`). */
export function fieldOf(err: FastifyError): string {
  const first = (err.validation?.[0] ?? {}) as AjvError;
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const leaf = first.params?.missingProperty ?? first.params?.additionalProperty;
  if (leaf !== undefined) return path === '' ? leaf : `${path}.${leaf}`;
  return path === '' ? (err.validationContext ?? 'body') : path;
}

function messageOf(err: FastifyError, field: string): string {
  const first = (err.validation?.[0] ?? {}) as AjvError;
  if (first.keyword === 'required') return `${field} is required`;
  if (first.keyword === 'additionalProperties') return `${field} is not a known field`;
  return `${field} ${first.message ?? 'is not valid'}`;
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof NotOperatingError) {
      return reply.code(503).send({ error: 'not operating yet', mode: err.details['mode'] });
    }
    if (err instanceof ServiceError) {
      return reply
        .code(statusOf[err.kind])
        .send({ ...err.details, error: err.code, message: err.message });
    }
    if (err.validation) {
      const field = fieldOf(err);
      return reply
        .code(400)
        .send({ error: 'invalid_input', message: messageOf(err, field), field });
    }
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      // Malformed JSON, body too large, unsupported media type …
      const code =
        err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError'
          ? 'invalid_json'
          : (err.code ?? 'bad_request').toLowerCase();
      return reply.code(err.statusCode).send({ error: code, message: err.message, field: 'body' });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal', message: 'Internal Server Error' });
  });
  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).send({
      error: 'not_found',
      message: `no route ${request.method} ${pathOnly(request.url)}`,
    });
  });
}

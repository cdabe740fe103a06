// Credentials: the admin token (owner rights, actor `admin-token`), the ingest token
// (events and alerts only) and, from the console issue on, sessions. A wrong credential
// is answered after a 0.5 s wait that holds up only its own request.
import { createHash, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ForbiddenError, UnauthenticatedError } from '../shared/errors.js';
import { roleAtLeast, type Role } from '../shared/roles.js';
import type { Secret } from '../shared/secret.js';
import type { Actor, Principal } from '../shared/types.js';

export const WRONG_CREDENTIAL_DELAY_MS = 500;

export interface SessionLookup {
  lookup(token: string): Principal | null;
}

export interface AuthOptions {
  readonly adminToken: Secret;
  readonly ingestToken: Secret | null;
  readonly sessions?: SessionLookup;
  readonly delayMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** 'none': no Authorization header; 'bad': one that matched nothing. */
    credential: 'none' | 'bad' | 'ok';
  }
  interface FastifyInstance {
    requireRole(role: Role): onRequestAsyncHookHandler;
    requireIngest(): onRequestAsyncHookHandler;
    /**
     * Who a bearer token stands for now (null: nobody): what a request's `principal` would
     * be. A long answer (the live stream) asks again to notice a session that ended.
     */
    principalOf(token: string): Principal | null;
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
const sameDigest = (given: Buffer, expected: Buffer | null): boolean =>
  expected !== null && timingSafeEqual(given, expected);

export function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/** The actor of a state change; `by` counts only with the admin token (specification). */
export function actorOf(principal: Principal, by?: string | null): Actor {
  // The admin token stays `admin-token` by id whatever `by` says: a name is no identity.
  if (principal.kind === 'admin-token' && typeof by === 'string' && by.trim() !== '') {
    return { name: by.trim(), via: 'admin-token', id: 'admin-token' };
  }
  return {
    name: principal.name,
    id: principal.kind === 'session' ? principal.userId : principal.name,
  };
}

async function authPlugin(app: FastifyInstance, options: AuthOptions): Promise<void> {
  const delayMs = options.delayMs ?? WRONG_CREDENTIAL_DELAY_MS;
  // Hashed once: every request compares digests of equal length in constant time.
  const adminDigest = digest(options.adminToken.reveal());
  const ingestDigest = options.ingestToken === null ? null : digest(options.ingestToken.reveal());
  app.decorateRequest('principal', null);
  app.decorateRequest('credential', 'none');

  function principalOf(token: string): Principal | null {
    const given = digest(token);
    if (sameDigest(given, adminDigest)) {
      return { kind: 'admin-token', name: 'admin-token', role: 'owner' };
    }
    if (sameDigest(given, ingestDigest)) {
      return { kind: 'ingest-token', name: 'ingest-token', role: null };
    }
    return token === '' ? null : (options.sessions?.lookup(token) ?? null);
  }
  app.decorate('principalOf', principalOf);

  app.addHook('onRequest', async (request) => {
    const token = bearerOf(request);
    if (token === null) return;
    request.principal = principalOf(token);
    request.credential = request.principal === null ? 'bad' : 'ok';
  });

  async function refuseUnauthenticated(request: FastifyRequest): Promise<never> {
    if (request.credential === 'bad') {
      await sleep(delayMs);
      throw new UnauthenticatedError('bad_token', 'the token or session is not valid');
    }
    throw new UnauthenticatedError(
      'no_credentials',
      'sign in, or send Authorization: Bearer <token>',
    );
  }

  app.decorate('requireRole', (role: Role): onRequestAsyncHookHandler => {
    return async (request) => {
      const p = request.principal;
      if (p === null) return refuseUnauthenticated(request);
      if (p.role === null) {
        throw new ForbiddenError(
          'role_required',
          `this call needs the ${role} role; the ingest token only posts events and alerts`,
          { role },
        );
      }
      if (!roleAtLeast(p.role, role)) {
        throw new ForbiddenError('role_required', `this call needs the ${role} role`, { role });
      }
    };
  });

  app.decorate('requireIngest', (): onRequestAsyncHookHandler => {
    return async (request) => {
      const p = request.principal;
      if (p === null) {
        if (options.ingestToken === null && request.credential === 'bad') {
          await sleep(delayMs);
          throw new UnauthenticatedError(
            'ingest_off',
            'ingestion is off: no SVC_INGEST_TOKEN is configured',
          );
        }
        return refuseUnauthenticated(request);
      }
      // Automation with the admin token (owner rights) may ingest too.
      if (p.kind !== 'ingest-token' && p.kind !== 'admin-token') {
        throw new ForbiddenError('ingest_token_required', 'this call needs the ingest token', {
          role: 'ingest',
        });
      }
    };
  });
}

export const auth = fp(authPlugin, { name: 'svc-auth' });

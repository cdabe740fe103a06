// People, teams, who may sign in, and PUT /v1/me. Open in every mode: people are set up
// during setup too. GET /v1/me lives with the sessions (server/access).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { MeBody, type SessionsService } from '../access/index.js';
import { actorOf, bearerOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import { ConflictError, ForbiddenError } from '../shared/errors.js';
import type { Mode } from '../shared/mode.js';
import type { Principal } from '../shared/types.js';
import {
  AccessSettingsInput,
  AccessSettingsView,
  Deleted,
  IdParams,
  MeChange,
  TeamChange,
  TeamCreate,
  TeamList,
  TeamView,
  UserChange,
  UserCreate,
  UserList,
  UserView,
} from './people.schemas.js';
import type { Caller, PeopleService } from './people.service.js';

function principalOf(req: FastifyRequest): Principal {
  if (req.principal === null) throw new Error('requireRole let an anonymous call through');
  return req.principal;
}

/** Who is asking; `by` counts only with the admin token. */
function callerOf(req: FastifyRequest, by?: string): Caller {
  const p = principalOf(req);
  if (p.role === null) throw new Error('requireRole let the ingest token through');
  return {
    actor: actorOf(p, by),
    role: p.role,
    userId: p.kind === 'session' ? p.userId : null,
  };
}

const withConflict = { ...errorResponses, 404: ErrorBody, 409: ErrorBody } as const;

export const peopleRoutes: FastifyPluginAsyncTypebox<{
  people: PeopleService;
  sessions: Pick<SessionsService, 'me'>;
  /** People and access settings need a licence (mode configuring); /v1/me never does. */
  mode: () => Mode;
}> = async (app, { people, sessions, mode }) => {
  const open = requireMode(mode, 'configuring');
  const admin = [app.requireRole('admin'), open];
  const signedIn = app.requireRole('viewer');
  const viewer = [signedIn, open];
  // Team changes: any signed-in person gets to the service, which lets in an admin or a
  // lead; the ingest token is refused here naming the admin role, like everyone else.
  const adminOrLead = [
    async (req: FastifyRequest): Promise<void> => {
      if (req.principal?.kind === 'ingest-token') {
        throw new ForbiddenError(
          'role_required',
          'this call needs admin or a team lead; the ingest token only posts events and alerts',
          { role: 'admin' },
        );
      }
    },
    signedIn,
    open,
  ];

  app.get(
    '/users',
    {
      schema: {
        summary: 'Everyone who may sign in, with role, handles and teams',
        tags: ['access'],
        response: { 200: UserList, ...errorResponses },
      },
      onRequest: admin,
    },
    async () => ({ users: people.list() }),
  );
  app.post(
    '/users',
    {
      schema: {
        summary: 'Add a person; an admin cannot grant a role above their own',
        tags: ['access'],
        body: UserCreate,
        response: { 201: UserView, ...withConflict },
      },
      onRequest: admin,
    },
    async (req, reply) => {
      const { by, ...input } = req.body;
      return reply.code(201).send(await people.create(input, callerOf(req, by)));
    },
  );
  app.put(
    '/users/:id',
    {
      schema: {
        summary: 'Change a person; role and disabled apply to their open sessions at once',
        tags: ['access'],
        params: IdParams,
        body: UserChange,
        response: { 200: UserView, ...withConflict },
      },
      onRequest: admin,
    },
    async (req) => {
      const { by, ...change } = req.body;
      return people.update(req.params.id, change, callerOf(req, by));
    },
  );
  app.delete(
    '/users/:id',
    {
      schema: {
        summary: 'Delete a person and end their sessions; never the last owner',
        tags: ['access'],
        params: IdParams,
        response: { 200: Deleted, ...withConflict },
      },
      onRequest: admin,
    },
    async (req) => people.remove(req.params.id, callerOf(req)),
  );

  app.get(
    '/teams',
    {
      schema: {
        summary: 'Teams, their leads and members, and the names of those people',
        tags: ['access'],
        response: { 200: TeamList, ...errorResponses },
      },
      onRequest: viewer,
    },
    async () => people.teams(),
  );
  // Team changes: the service lets in an admin or a lead (403 naming the admin role else).
  app.post(
    '/teams',
    {
      schema: {
        summary: 'Add a team (admin, or a lead of a team, who then leads the new one too)',
        tags: ['access'],
        body: TeamCreate,
        response: { 201: TeamView, ...withConflict },
      },
      onRequest: adminOrLead,
    },
    async (req, reply) => {
      const { by, ...input } = req.body;
      return reply.code(201).send(await people.createTeam(input, callerOf(req, by)));
    },
  );
  app.put(
    '/teams/:id',
    {
      schema: {
        summary: 'Change a team (admin or a lead of that team); given fields replace',
        tags: ['access'],
        params: IdParams,
        body: TeamChange,
        response: { 200: TeamView, ...withConflict },
      },
      onRequest: adminOrLead,
    },
    async (req) => {
      const { by, ...change } = req.body;
      return people.updateTeam(req.params.id, change, callerOf(req, by));
    },
  );
  app.delete(
    '/teams/:id',
    {
      schema: {
        summary: 'Delete a team (admin or a lead of that team)',
        tags: ['access'],
        params: IdParams,
        response: { 200: Deleted, ...withConflict },
      },
      onRequest: adminOrLead,
    },
    async (req) => people.deleteTeam(req.params.id, callerOf(req)),
  );

  app.get(
    '/settings/access',
    {
      schema: {
        summary: 'Who may sign in without being added: e-mail domains, directory and SSO groups',
        tags: ['access'],
        response: { 200: AccessSettingsView, ...errorResponses },
      },
      onRequest: admin,
    },
    async () => people.access(),
  );
  app.put(
    '/settings/access',
    {
      schema: {
        summary: 'Replace who may sign in; missing fields take their defaults',
        tags: ['access'],
        body: AccessSettingsInput,
        response: { 200: AccessSettingsView, ...errorResponses },
      },
      onRequest: admin,
    },
    async (req) => {
      const { by, ...input } = req.body;
      return people.setAccess(input, callerOf(req, by));
    },
  );

  app.put(
    '/me',
    {
      schema: {
        summary: 'Change your own name, channel handles or password (never your role)',
        tags: ['access'],
        body: MeChange,
        response: { 200: MeBody, ...withConflict },
      },
      onRequest: signedIn,
    },
    async (req) => {
      const p = principalOf(req);
      if (p.kind !== 'session') {
        throw new ConflictError(
          'not_a_person',
          'the admin token is not a person: there is no name or handle to change',
          { why: 'not_a_person' },
        );
      }
      // A new password ends the person's other sessions; this one stays.
      const user = await people.updateMe(p.userId, req.body, actorOf(p), bearerOf(req));
      // The session carries the person's name: answer with the new one.
      const me = sessions.me({ ...p, name: people.identity(user).name }, bearerOf(req));
      return { ...me, ...people.profile(p.userId) };
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import {
  Catalogue,
  ConnectorInput,
  ConnectorList,
  ConnectorView,
  HealthView,
  NameParams,
  Removed,
  SshHostkey,
  SshHostkeyInput,
  SshKeypair,
  SshKeypairInput,
  TestInput,
} from './connectors.schemas.js';
import type { ConnectorsService } from './connectors.service.js';

export const connectorsRoutes: FastifyPluginAsyncTypebox<{
  connectors: ConnectorsService;
  mode: () => Mode;
}> = async (app, { connectors, mode }) => {
  const open = requireMode(mode, 'configuring');
  app.get(
    '/connectors/catalogue',
    {
      schema: {
        summary: 'Every connector kind with its settings (which are secret) and capabilities',
        tags: ['connectors'],
        response: { 200: Catalogue, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => connectors.catalogue(),
  );
  app.get(
    '/connectors',
    {
      schema: {
        summary: 'Configured connectors, secrets as references, each with its problem and health',
        tags: ['connectors'],
        response: { 200: ConnectorList, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => connectors.list(),
  );
  app.put(
    '/connectors/:name',
    {
      schema: {
        summary: 'Save a connector; typed-in secrets go to 0600 files; the runtime rebuilds',
        tags: ['connectors'],
        params: NameParams,
        body: ConnectorInput,
        response: { 200: ConnectorView, ...errorResponses, 409: ErrorBody },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return connectors.put(req.params.name, req.body, actorOf(req.principal));
    },
  );
  app.delete(
    '/connectors/:name',
    {
      schema: {
        summary: 'Remove a connector; the runtime rebuilds',
        tags: ['connectors'],
        params: NameParams,
        response: { 200: Removed, ...errorResponses, 404: ErrorBody, 409: ErrorBody },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return connectors.remove(req.params.name, actorOf(req.principal));
    },
  );
  app.post(
    '/connectors/test',
    {
      schema: {
        summary: 'Run a health check of a connector document before saving it (nothing is stored)',
        tags: ['connectors'],
        body: TestInput,
        response: { 200: HealthView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => connectors.test(req.body),
  );
  app.post(
    '/connectors/ssh/keypair',
    {
      schema: {
        summary:
          'Make an ssh key pair: the private key to a 0600 file, the answer its {file} and the authorized_keys line restricted to the gate',
        tags: ['connectors'],
        body: SshKeypairInput,
        response: { 200: SshKeypair, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return connectors.sshKeypair(req.body, actorOf(req.principal));
    },
  );
  app.post(
    '/connectors/ssh/hostkey',
    {
      schema: {
        summary: "Read a host's ssh key, to pin it in an ssh connector's host_key",
        tags: ['connectors'],
        body: SshHostkeyInput,
        response: { 200: SshHostkey, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => connectors.sshHostkey(req.body),
  );
};

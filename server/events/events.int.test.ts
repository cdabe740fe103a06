// POST /v1/events cannot forge the events the service writes itself (projections apply
// them: a posted system.started would count a start that never happened).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

describe('POST /v1/events', () => {
  it.each(['system.started', 'system.installed', 'signal.fired', 'signal.resolved'])(
    'refuses the reserved type %s with a 400 naming type, and writes nothing',
    async (type) => {
      const before = server.runtime.ledgerStore.head().seq;
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers: asIngest(),
        payload: { type, actor: 'ci:forger', data: { version: 'x', instance: 'y' } },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_input', field: 'type' });
      expect(server.runtime.ledgerStore.head().seq).toBe(before);
    },
  );

  it('accepts other types under the same prefixes', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: asIngest(),
      payload: { type: 'system.backup_taken', actor: 'ci:backup' },
    });
    expect(res.statusCode).toBe(201);
  });
});

// POST /v1/events cannot forge the events the service writes itself (projections apply
// them: a posted system.started would count a start that never happened).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';
import { INGEST_PREFIXES } from './events.schemas.js';

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

  // Types the service writes that no projection applies: a posted system.stopped before a
  // kill -9 would make the next start report a clean stop, hiding the crash.
  it.each([
    'system.stopped',
    'system.bootstrap',
    'config.mail_set',
    'config.mail_tested',
    'config.connector_keypair',
  ])('refuses %s, which the service writes itself, with a 400 naming type', async (type) => {
    const before = server.runtime.ledgerStore.head().seq;
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: asIngest(),
      payload: { type, actor: 'ci:forger', data: { version: 'x' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field: 'type' });
    expect(server.runtime.ledgerStore.head().seq).toBe(before);
  });

  it('every catalogued type under the ingest prefixes is refused but the events domain own', async () => {
    const own = new Set(['human.action', 'human.deploy']);
    const prefixes = INGEST_PREFIXES;
    const written = server.runtime.ledger.events
      .entries()
      .map((e) => e.type)
      .filter((t) => prefixes.some((p) => t.startsWith(p)) && !own.has(t));
    expect(written.length).toBeGreaterThan(20);
    for (const type of written) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers: asIngest(),
        payload: { type, actor: 'ci:forger' },
      });
      expect(res.statusCode, type).toBe(400);
    }
  });

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

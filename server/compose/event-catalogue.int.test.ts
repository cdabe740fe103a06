// Every domain's catalogue is enforced by the ledger: data that does not match its schema is
// refused before commit (head and projections unchanged); an unknown type is refused too.
import type { TSchema } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpProjections, EventRefused, rebuildProjections } from '../ledger/index.js';
import { asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';
import { EVENT_CATALOGUES } from './event-catalogue.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

interface ObjectSchema {
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, { readonly type?: string }>>;
}

/** Data its schema refuses: a required field missing, else a typed field of another type. */
function badData(schema: TSchema): Record<string, unknown> {
  const s = schema as ObjectSchema;
  if ((s.required ?? []).length > 0) return {};
  const [name, field] =
    Object.entries(s.properties ?? {}).find(([, f]) => f.type !== undefined) ?? [];
  if (name === undefined) throw new Error('no field to break');
  return { [name]: field?.type === 'string' ? 42 : 'not this' };
}

function refusedAppend(type: string, data: Record<string, unknown>): unknown {
  const { runtime } = server;
  const head = runtime.ledgerStore.head().seq;
  const before = dumpProjections(runtime.db, runtime.projections);
  let refused: unknown = null;
  try {
    runtime.writer.transactNow(() => runtime.ledger.append({ type, actor: 'test', data }));
  } catch (err) {
    refused = err;
  }
  expect(runtime.ledgerStore.head().seq).toBe(head);
  expect(dumpProjections(runtime.db, runtime.projections)).toEqual(before);
  return refused;
}

describe('the event catalogue', () => {
  it.each(EVENT_CATALOGUES.map((c) => [c.owner, c.events] as const))(
    '%s: an event whose data fails its schema is refused before commit',
    (_owner, events) => {
      for (const [type, schema] of Object.entries(events)) {
        const err = refusedAppend(type, badData(schema as TSchema));
        expect(err, type).toBeInstanceOf(EventRefused);
        expect((err as EventRefused).message).toContain(type);
      }
    },
  );

  it('refuses a type no domain declares', () => {
    const err = refusedAppend('episode.misspelt', {});
    expect(err).toBeInstanceOf(EventRefused);
    expect((err as EventRefused).message).toBe(
      'event type episode.misspelt is not in the event catalogue',
    );
  });

  it('names the first failing path', () => {
    const err = refusedAppend('episode.team', { episode_id: 'ep-1', verdict: 7 });
    expect((err as EventRefused).path).toBe('verdict');
    expect((err as EventRefused).message).toMatch(/^event episode\.team: data\.verdict /);
  });

  it('declares every type once, each in one domain', () => {
    const types = EVENT_CATALOGUES.flatMap((c) => Object.keys(c.events));
    expect(new Set(types).size).toBe(types.length);
    expect(server.runtime.ledger.events.entries().map((e) => e.type)).toEqual([...types].sort());
  });

  it('names in every projection only catalogued types, however a domain spells them', () => {
    const { events } = server.runtime.ledger;
    for (const p of server.runtime.projections.all())
      for (const type of p.types) expect(events.has(type), `${p.name}: ${type}`).toBe(true);
  });

  it('answers 400 naming the field when a posted event of a catalogued type does not match', async () => {
    const head = server.runtime.ledgerStore.head().seq;
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: asIngest(),
      payload: { type: 'human.deploy', actor: 'ci:x', data: { service: 5 } },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field: 'data.service' });
    expect(server.runtime.ledgerStore.head().seq).toBe(head);
  });

  it('refuses a posted type the service writes itself, also where no projection applies it', async () => {
    // system.stopped is install's, and no projection applies it: forged, it would pass the
    // crash before the next start for a clean stop (issue 18 closed what issue 17 kept).
    const head = server.runtime.ledgerStore.head().seq;
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: asIngest(),
      payload: { type: 'system.stopped', actor: 'ci:x', data: { note: 'no version' } },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field: 'type' });
    expect(server.runtime.ledgerStore.head().seq).toBe(head);
  });
});

describe('replaying the ledger', () => {
  it('replays rows as stored, without the catalogue: an old row its schema now refuses still rebuilds', async () => {
    const own = await buildTestServer();
    try {
      const { runtime } = own;
      const seq = runtime.ledgerStore.head().seq + 1;
      // As a database from before the catalogue may hold: a deploy whose service is a number.
      runtime.writer.transactNow(() => {
        runtime.ledgerStore.insert(
          {
            seq,
            ts: '2026-11-22T10:00:00.000Z',
            type: 'human.deploy',
            actor: 'ci:old',
            data: '{"service":5}',
            reason: null,
            trace_id: null,
          },
          Buffer.alloc(32),
        );
      });
      const result = rebuildProjections(
        runtime.db,
        runtime.ledgerStore,
        runtime.projections,
        true,
        (fn) => {
          runtime.writer.transactNow(fn);
        },
      );
      expect(result.events).toBe(seq);
      expect(result.differing).toEqual([]);
    } finally {
      await own.cleanup();
    }
  });
});

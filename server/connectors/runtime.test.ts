// The runtime with a fake kind: limits, timeouts, problems, rebuilds, working connection.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { createFakeClock } from '../shared/clock.js';
import type { ConnectorDocument } from './connectors.schemas.js';
import { createRegistry } from './registry.js';
import { ConnectorCallError, createConnectorRuntime, type ConnectorEntry } from './runtime.js';
import { echoKind } from '../testing/connectors/echo-kind.js';

let dir: string;
let tokenFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-connectors-'));
  tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 's3cret-from-file\n', { mode: 0o600 });
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const doc = (over: Partial<ConnectorDocument> & { behaviour?: string } = {}): ConnectorDocument => {
  const { behaviour, ...rest } = over;
  return {
    kind: 'echo',
    settings: {
      url: 'http://127.0.0.1:9',
      token: { file: tokenFile },
      ...(behaviour !== undefined && { behaviour }),
    },
    ...rest,
  };
};

function setup(entries: ConnectorEntry[], env: Record<string, string> = {}) {
  const kind = echoKind();
  const runtime = createConnectorRuntime({
    registry: createRegistry([kind]),
    source: () => entries,
    env,
    defaultConcurrency: 4,
    log: createLogger('silent'),
    clock: createFakeClock(),
  });
  return { runtime, kind, entries };
}
const entry = (name: string, document: ConnectorDocument): ConnectorEntry => ({
  name,
  document,
  set_by: 'alice',
  set_at: '2026-01-01T00:00:00.000Z',
});

describe('the connector runtime', () => {
  it('builds clients with secrets resolved from {file} and {env}, and health marks it working', async () => {
    const { runtime, kind } = setup(
      [
        entry('a', doc()),
        entry('b', { ...doc(), settings: { url: 'http://x', token: { env: 'B_TOKEN' } } }),
      ],
      { B_TOKEN: 'from-env' },
    );
    expect(runtime.hasWorkingConnection()).toBe(false);
    runtime.rebuild();
    await runtime.settled();
    expect(kind.probe.tokens).toEqual(['s3cret-from-file', 'from-env']);
    expect(runtime.hasWorkingConnection()).toBe(true);
    const [a] = runtime.list();
    expect(a).toMatchObject({
      name: 'a',
      settings: { token: { file: tokenFile } },
      max_in_flight: null,
      timeout_s: 10,
      problem: null,
      last_health: { ok: true, detail: 'echo ok', at: '2026-01-01T00:00:00.000Z' },
    });
    expect(await runtime.call('a', 'echo', { x: 1 })).toEqual({ x: 1 });
  });

  it('reports a missing secret file, an unset variable and an unknown kind as the problem', async () => {
    const { runtime } = setup([
      entry('a', { ...doc(), settings: { url: 'http://x', token: { file: join(dir, 'nope') } } }),
      entry('b', { ...doc(), settings: { url: 'http://x', token: { env: 'NOPE' } } }),
      entry('c', { ...doc(), kind: 'gone' }),
    ]);
    runtime.rebuild();
    await runtime.settled();
    expect(runtime.list().map((c) => c.problem)).toEqual([
      `secret file ${join(dir, 'nope')} is missing`,
      'environment variable NOPE is not set',
      'kind gone is not known to this version',
    ]);
    expect(runtime.list()[0]?.last_health).toMatchObject({ ok: false });
    expect(runtime.hasWorkingConnection()).toBe(false);
    await expect(runtime.call('a', 'echo')).rejects.toMatchObject({ code: 'problem' });
    await expect(runtime.call('zz', 'echo')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('times a hung call out after timeout_s, frees its slot, and leaves other connectors answering', async () => {
    const { runtime } = setup([
      entry('stuck', doc({ timeout_s: 1, max_in_flight: 1, behaviour: 'hang' })),
      entry('fine', doc({ max_in_flight: 1 })),
    ]);
    runtime.rebuild();
    const started = Date.now();
    const hung = runtime.call('stuck', 'hang');
    const queued = runtime.call('stuck', 'echo', { after: true });
    // The other connector answers at once while the first is stuck.
    expect(await runtime.call('fine', 'echo', { y: 2 })).toEqual({ y: 2 });
    expect(runtime.get('stuck')).toMatchObject({ in_flight: 1 });
    await expect(hung).rejects.toBeInstanceOf(ConnectorCallError);
    await expect(hung).rejects.toThrow('connector stuck: timed out after 1 s');
    await expect(hung).rejects.toMatchObject({ code: 'timeout' });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3000);
    // The slot was freed: the queued call runs (after the background health check, which
    // also hangs and times out).
    expect(await queued).toEqual({ after: true });
    await runtime.settled();
    expect(runtime.get('stuck')?.last_health).toMatchObject({
      ok: false,
      detail: 'connector stuck: timed out after 1 s',
    });
    expect(runtime.get('fine')?.last_health?.ok).toBe(true);
    expect(runtime.hasWorkingConnection()).toBe(true);
  });

  it('aborts the signal of a call that runs past its timeout', async () => {
    const { runtime } = setup([entry('a', doc({ timeout_s: 1 }))]);
    runtime.rebuild();
    await expect(runtime.call('a', 'wait', { ms: 5000 })).rejects.toMatchObject({
      code: 'timeout',
    });
    expect(await runtime.call('a', 'wait', { ms: 5 })).toEqual({ ms: 5 });
  });

  it('bounds calls in flight by max_in_flight, else by the default, and refuses unknown operations', async () => {
    const { runtime } = setup([entry('a', doc({ max_in_flight: 2 })), entry('b', doc())]);
    runtime.rebuild();
    await runtime.settled();
    const calls = Array.from({ length: 10 }, () => runtime.call('a', 'wait', { ms: 20 }));
    const others = Array.from({ length: 10 }, () => runtime.call('b', 'wait', { ms: 20 }));
    expect(runtime.get('a')).toMatchObject({ in_flight: 2, queued: 8 });
    expect(runtime.get('b')).toMatchObject({ in_flight: 4, queued: 6 });
    await Promise.all([...calls, ...others]);
    await expect(runtime.call('a', 'drop_tables')).rejects.toMatchObject({
      code: 'unknown_operation',
    });
  });

  it('fails fast when too many calls wait', async () => {
    const kind = echoKind();
    const runtime = createConnectorRuntime({
      registry: createRegistry([kind]),
      source: () => [entry('a', doc({ max_in_flight: 1, timeout_s: 1 }))],
      env: {},
      defaultConcurrency: 4,
      log: createLogger('silent'),
      clock: createFakeClock(),
      queueLimit: 3,
    });
    runtime.rebuild();
    await runtime.settled();
    const pending = Array.from({ length: 4 }, () => runtime.call('a', 'wait', { ms: 50 }));
    await expect(runtime.call('a', 'echo')).rejects.toMatchObject({ code: 'busy' });
    await Promise.all(pending);
  });

  it('rebuilds only what changed, closes replaced clients, and picks up a fixed secret file', async () => {
    const entries = [entry('a', doc()), entry('b', doc())];
    const { runtime, kind } = setup(entries);
    runtime.rebuild();
    await runtime.settled();
    expect(kind.probe.created).toBe(2);

    entries[1] = entry('b', doc({ timeout_s: 5 }));
    entries.push(
      entry('c', { ...doc(), settings: { url: 'http://x', token: { file: join(dir, 'later') } } }),
    );
    runtime.rebuild();
    await runtime.settled();
    expect(kind.probe.created).toBe(3); // b anew; a kept; c not built
    expect(kind.probe.closed).toBe(1); // the old b
    expect(runtime.get('c')?.problem).toMatch(/is missing/);

    writeFileSync(join(dir, 'later'), 'late');
    runtime.rebuild();
    await runtime.settled();
    expect(runtime.get('c')?.problem).toBeNull();
    expect(runtime.get('c')?.last_health?.ok).toBe(true);

    entries.splice(0);
    runtime.rebuild();
    await runtime.settled();
    expect(runtime.list()).toEqual([]);
    expect(runtime.hasWorkingConnection()).toBe(false);
    expect(kind.probe.closed).toBe(4);
  });

  it('probes a throwaway client, with a typed-in secret held in memory only', async () => {
    const { runtime, kind } = setup([]);
    const ok = await runtime.probe('new', {
      kind: 'echo',
      settings: { url: 'http://x', token: { value: 'typed' } },
    });
    expect(ok).toMatchObject({ ok: true, detail: 'echo ok' });
    expect(kind.probe.tokens).toEqual(['typed']);
    const failed = await runtime.probe('new', doc({ behaviour: 'throw' }));
    expect(failed).toMatchObject({ ok: false, detail: 'connector new: connection refused' });
    const hung = await runtime.probe('new', doc({ behaviour: 'hang', timeout_s: 1 }));
    expect(hung).toMatchObject({ ok: false, detail: 'connector new: timed out after 1 s' });
    await runtime.settled();
    expect(kind.probe.closed).toBe(3);
    expect(runtime.list()).toEqual([]);
    expect(runtime.hasWorkingConnection()).toBe(false);
  });
});

// The what-changed snapshots check (ok, with nothing to read or all fresh; a warning or a
// failure naming the stale connections with their age), and the connections check showing
// each connection's duration.
import { describe, expect, it } from 'vitest';
import { connectionsCheck } from './core-checks.js';
import { snapshotsCheck, type SnapshotFreshness } from './snapshots-check.js';

const MIN = 60_000;
type C = SnapshotFreshness['connectors'][number];
const c = (connector: string, patch: Partial<C> = {}): C => ({
  connector,
  kind: 'prometheus',
  status: 'ok',
  age_ms: 5 * MIN,
  fresh: true,
  detail: null,
  ...patch,
});
const run = (connectors: C[]) => snapshotsCheck(() => ({ max_age_ms: 30 * MIN, connectors })).run();

describe('what-changed snapshots check', () => {
  it('is in Core, and ok with nothing to read, saying so', async () => {
    const check = snapshotsCheck(() => ({ max_age_ms: 30 * MIN, connectors: [] }));
    expect([check.area, check.name]).toEqual(['Core', 'What-changed snapshots']);
    expect(await check.run()).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^no connection has a setup to read/) as unknown,
    });
  });

  it('is ok when every connection was read within 30 minutes', async () => {
    expect(await run([c('prom'), c('repo', { age_ms: 12 * MIN })])).toEqual({
      status: 'ok',
      detail: "2 connections' setup read within 30 min; the oldest 12 min ago",
      hint: '',
    });
  });

  it('warns naming a stale connection and its age while others are fresh', async () => {
    const r = await run([
      c('prom'),
      c('repo', { status: 'failed', age_ms: 42 * MIN, fresh: false, detail: 'no repo' }),
    ]);
    expect(r.status).toBe('warn');
    expect(r.detail).toBe(
      '1 of 2 not read within 30 min: repo: last read 42 min ago; failing: no repo',
    );
    expect(r.hint).toMatch(/fix the failing connections/);
  });

  it('warns, not fails, for a connection not read yet', async () => {
    const r = await run([c('new', { status: 'never', age_ms: null, fresh: false })]);
    expect(r).toMatchObject({
      status: 'warn',
      detail: '1 of 1 not read within 30 min: new: not read yet',
    });
  });

  it('fails when every connection is stale', async () => {
    const r = await run([
      c('prom', { status: 'failed', age_ms: null, fresh: false, detail: 'refused' }),
      c('web', { age_ms: 3 * 60 * MIN, fresh: false }),
    ]);
    expect(r.status).toBe('fail');
    expect(r.detail).toBe(
      '2 of 2 not read within 30 min: prom: never read; failing: refused; web: last read 3.0 h ago',
    );
  });
});

describe('connections check', () => {
  it("shows each connection's duration", async () => {
    const r = await connectionsCheck(() => [
      {
        name: 'prom',
        kind: 'prometheus',
        problem: null,
        last_health: { ok: true, detail: 'Prometheus 2.42.0', duration_ms: 12 },
      },
      {
        name: 'web',
        kind: 'http',
        problem: null,
        last_health: { ok: false, detail: 'HTTP 503', duration_ms: 40 },
      },
    ]).run();
    expect(r.status).toBe('warn');
    expect(r.detail).toBe(
      'prom (prometheus): ok, Prometheus 2.42.0 in 12 ms; web (http): failed, HTTP 503 in 40 ms',
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { Writer } from '../../db/writer.js';
import type { LedgerService } from '../../ledger/index.js';
import { ModelError, type ModelRequest } from '../../../models/index.js';
import type { Assessment, Candidate, InvestigatorTools } from '../readings.js';
import { createInvestigator } from './investigator.js';
import { MODEL_INVESTIGATED, MODEL_PROPOSED } from './investigator-session.js';

interface Logged {
  type: string;
  data: Record<string, unknown>;
}

function world(ids: string[], proves: string | null) {
  const done: string[] = [];
  const catalogue: Candidate[] = ids.map((id) => ({
    id,
    check: id.split('@')[0] ?? id,
    title: `read ${id}`,
    pack: 'p',
    service: 'web',
  }));
  const tools: InvestigatorTools = {
    catalogue,
    read: (id) => {
      if (done.includes(id) || !ids.includes(id)) return Promise.resolve([]);
      done.push(id);
      return Promise.resolve([id]);
    },
    assess: (path): Assessment => ({
      lead: proves !== null && path.includes(proves) ? 'proven' : 'unproven',
      settled: proves !== null && path.includes(proves),
      evidence: path.filter((p) => done.includes(p)),
      unreadable: [],
      hypotheses: [],
    }),
    done: () => [...done],
  };
  return { tools, done };
}

function harness(answer: (r: ModelRequest) => unknown) {
  const events: Logged[] = [];
  const requests: ModelRequest[] = [];
  const ledger = {
    append: (e: Logged) => {
      events.push(e);
      return e;
    },
  } as unknown as LedgerService;
  const writer = { transact: <T>(fn: () => T) => Promise.resolve(fn()) } as unknown as Writer;
  const models = {
    call: (_s: 's1' | 's2', r: ModelRequest) => {
      requests.push(r);
      try {
        return Promise.resolve({
          value: answer(r),
          usage: { prompt_tokens: 10, completion_tokens: 5 },
          model: 'm',
          seconds: 0.1,
          cached: false,
        });
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
  return { events, requests, ledger, writer, models };
}

const enumOf = (r: ModelRequest, key: 'next' | 'checks'): string[] => {
  const props = (
    r.schema as { properties: Record<string, { enum?: string[]; items?: { enum: string[] } }> }
  ).properties[key];
  return props?.enum ?? props?.items?.enum ?? [];
};
const ctx = { episode_id: 'ep-1', service: 'web', alerts: ['Down'] };
const BOUNDS = { s2Calls: 16, reads: 24, depth: 4 };

/** Runs one investigator over a world, with the default bounds unless given. */
const investigate = (
  h: ReturnType<typeof harness>,
  tools: InvestigatorTools,
  kind: 'loop' | 'mcts',
  more: { bounds?: typeof BOUNDS; now?: () => number } = {},
) => createInvestigator({ ...h, kind, bounds: BOUNDS, timeoutS: 60, ...more }).extend(ctx, tools);
const ids = ['a.one@web', 'b.two@web', 'c.three@web', 'd.four@web', 'e.five@web', 'f.six@web'];

describe('the loop investigator', () => {
  it('reads what it proposes until a cause is proven, and records each read and the run', async () => {
    const h = harness((r) => ({ next: enumOf(r, 'next')[0], why: 'first left' }));
    const w = world(ids, 'b.two@web');
    await investigate(h, w.tools, 'loop');
    expect(w.done).toEqual(['a.one@web', 'b.two@web']);
    expect(h.events.filter((e) => e.type === MODEL_PROPOSED).map((e) => e.data['check'])).toEqual([
      'a.one',
      'b.two',
    ]);
    const summary = h.events.find((e) => e.type === MODEL_INVESTIGATED)?.data;
    expect(summary).toMatchObject({
      stopped: 'settled',
      s2_calls: 2,
      reads: 2,
      investigator: 'loop',
    });
  });

  it('never exceeds its bounds, whatever the model proposes', async () => {
    const h = harness((r) => ({ next: enumOf(r, 'next')[0], why: '' }));
    const w = world(ids, null);
    await investigate(h, w.tools, 'loop', { bounds: { s2Calls: 3, reads: 24, depth: 10 } });
    expect(h.requests).toHaveLength(3);
    expect(w.done).toHaveLength(3);
    expect(h.events.find((e) => e.type === MODEL_INVESTIGATED)?.data).toMatchObject({
      stopped: 'bounds',
      s2_calls: 3,
      reads: 3,
    });
  });

  it('offers only catalogue checks it has not read, and stops when told', async () => {
    let round = 0;
    const h = harness((r) => {
      round += 1;
      return { next: round === 2 ? 'stop' : enumOf(r, 'next')[1], why: '' };
    });
    const w = world(ids, null);
    await investigate(h, w.tools, 'loop');
    expect(enumOf(h.requests[1] as ModelRequest, 'next')).not.toContain('b.two@web');
    expect(enumOf(h.requests[1] as ModelRequest, 'next')).toContain('stop');
    expect(w.done).toEqual(['b.two@web']);
    expect(h.events.find((e) => e.type === MODEL_INVESTIGATED)?.data['stopped']).toBe('model');
  });

  it('stops without reading when the model fails or the ceiling is spent', async () => {
    for (const [kind, stopped] of [
      ['timeout', 'error'],
      ['ceiling_spent', 'ceiling'],
    ] as const) {
      const h = harness(() => {
        throw new ModelError(kind, 'no', { purpose: 'investigator.next_check' });
      });
      const w = world(ids, null);
      await investigate(h, w.tools, 'loop');
      expect(w.done).toEqual([]);
      expect(h.events.find((e) => e.type === MODEL_INVESTIGATED)?.data).toMatchObject({
        stopped,
        error_kind: kind,
      });
    }
  });

  it('makes no call when the catalogue is empty', async () => {
    const h = harness(() => ({ next: 'stop', why: '' }));
    await investigate(h, world([], null).tools, 'loop');
    expect(h.requests).toHaveLength(0);
    expect(h.events).toHaveLength(0);
  });

  it('stops when its time is spent', async () => {
    let t = 0;
    const h = harness((r) => {
      t += 40_000;
      return { next: enumOf(r, 'next')[0], why: '' };
    });
    const w = world(ids, null);
    await investigate(h, w.tools, 'loop', {
      bounds: { s2Calls: 16, reads: 24, depth: 10 },
      now: () => t,
    });
    expect(h.events.find((e) => e.type === MODEL_INVESTIGATED)?.data['stopped']).toBe('time');
    expect(w.done.length).toBeLessThan(3);
  });
});

describe('the tree search investigator', () => {
  it('expands proposals, reads each check once, and stops when a branch proves a cause', async () => {
    const h = harness((r) => ({ checks: enumOf(r, 'checks').slice(0, 3), why: 'try' }));
    const w = world(ids, 'c.three@web');
    await investigate(h, w.tools, 'mcts');
    expect(w.done).toEqual(['a.one@web', 'b.two@web', 'c.three@web']);
    expect(new Set(w.done).size).toBe(w.done.length);
    expect(h.events.find((e) => e.type === MODEL_INVESTIGATED)?.data).toMatchObject({
      stopped: 'settled',
      s2_calls: 1,
      reads: 3,
      investigator: 'mcts',
    });
  });

  it('keeps within calls, reads and depth on a tree with nothing to find', async () => {
    for (const bounds of [
      { s2Calls: 4, reads: 24, depth: 4 },
      { s2Calls: 16, reads: 5, depth: 4 },
      { s2Calls: 16, reads: 24, depth: 2 },
    ]) {
      const h = harness((r) => ({ checks: enumOf(r, 'checks').slice(-2), why: '' }));
      const w = world(ids, null);
      await investigate(h, w.tools, 'mcts', { bounds });
      const summary = h.events.find((e) => e.type === MODEL_INVESTIGATED)?.data as {
        s2_calls: number;
        reads: number;
        depth: number;
      };
      expect(h.requests.length).toBeLessThanOrEqual(bounds.s2Calls);
      expect(summary.s2_calls).toBe(h.requests.length);
      expect(summary.reads).toBeLessThanOrEqual(bounds.reads);
      expect(summary.depth).toBeLessThanOrEqual(bounds.depth);
      expect(h.events.filter((e) => e.type === MODEL_PROPOSED)).toHaveLength(summary.reads);
      for (const e of h.events.filter((x) => x.type === MODEL_PROPOSED))
        expect(e.data['depth'] as number).toBeLessThanOrEqual(bounds.depth);
    }
  });

  it('gives each proposal its request with only unread-on-this-path catalogue ids', async () => {
    const h = harness((r) => ({ checks: enumOf(r, 'checks').slice(0, 1), why: '' }));
    const w = world(ids, null);
    await investigate(h, w.tools, 'mcts', { bounds: { s2Calls: 3, reads: 24, depth: 4 } });
    for (const r of h.requests) {
      expect(r.purpose).toBe('investigator.propose');
      for (const id of enumOf(r, 'checks')) expect(ids).toContain(id);
    }
    expect(enumOf(h.requests[1] as ModelRequest, 'checks')).not.toContain('a.one@web');
  });
});

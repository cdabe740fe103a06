// The live hub without HTTP: caps, Last-Event-ID, coalescing, access checks on commits.
import { describe, expect, it } from 'vitest';
import { createLiveHub, StreamLimitError, type LiveSink } from './live-stream.js';

function sink() {
  const chunks: string[] = [];
  let ended = false;
  const s: LiveSink = {
    start: () => undefined,
    write: (c) => chunks.push(c),
    end: () => {
      ended = true;
    },
  };
  return {
    s,
    seqs: () =>
      chunks.flatMap((c) => [...c.matchAll(/data: \{"seq":(\d+)\}/g)].map((m) => Number(m[1]))),
    text: () => chunks.join(''),
    ended: () => ended,
  };
}
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('live hub', () => {
  it('refuses past the caps with StreamLimitError, writing nothing', () => {
    let seq = 1;
    const hub = createLiveHub({
      seq: () => seq,
      touchesAccess: () => false,
      maxPerCaller: 1,
      maxTotal: 2,
    });
    const a = sink();
    hub.open({ key: 'a', allowed: () => true }, a.s, null);
    const refused = sink();
    expect(() => hub.open({ key: 'a', allowed: () => true }, refused.s, null)).toThrow(
      StreamLimitError,
    );
    hub.open({ key: 'b', allowed: () => true }, sink().s, null);
    expect(() => hub.open({ key: 'c', allowed: () => true }, refused.s, null)).toThrow(
      /at most|limit/,
    );
    expect(refused.text()).toBe('');
    expect(hub.size()).toBe(2);
    hub.close();
    expect(hub.size()).toBe(0);
    expect(hub.timers()).toBe(0);
    seq++;
  });

  it('sends the head at once unless Last-Event-ID is the head', () => {
    const hub = createLiveHub({ seq: () => 7, touchesAccess: () => false });
    const fresh = sink();
    const same = sink();
    hub.open({ key: 'a', allowed: () => true }, fresh.s, null);
    hub.open({ key: 'a', allowed: () => true }, same.s, 7);
    expect(fresh.seqs()).toEqual([7]);
    expect(same.seqs()).toEqual([]);
    expect(same.text()).toMatch(/^retry: 3000\n/);
    hub.close();
  });

  it('coalesces: a burst in one turn is one event; later ones wait for the interval', async () => {
    let seq = 1;
    const hub = createLiveHub({ seq: () => seq, touchesAccess: () => false, coalesceMs: 100 });
    const a = sink();
    hub.open({ key: 'a', allowed: () => true }, a.s, null);
    for (let i = 0; i < 50; i++) {
      seq++;
      hub.committed({ type: 'human.action' });
    }
    await tick(10);
    expect(a.seqs()).toEqual([1, 51]);
    seq++;
    hub.committed({ type: 'human.action' });
    await tick(10);
    expect(a.seqs()).toEqual([1, 51]);
    await tick(120);
    expect(a.seqs()).toEqual([1, 51, 52]);
    hub.close();
  });

  it('checks access on a commit that touches it, not on others; ends with event: end', async () => {
    let seq = 1;
    let allowed = true;
    let checks = 0;
    const hub = createLiveHub({
      seq: () => seq,
      touchesAccess: (t) => t === 'auth.signed_out',
      heartbeatMs: 60_000,
    });
    const a = sink();
    hub.open({ key: 'a', allowed: () => (checks++, allowed) }, a.s, null);
    allowed = false;
    seq++;
    hub.committed({ type: 'human.action' });
    await tick(5);
    expect(checks).toBe(0);
    expect(a.ended()).toBe(false);
    seq++;
    hub.committed({ type: 'auth.signed_out' });
    await tick(300);
    expect(checks).toBe(1);
    expect(a.ended()).toBe(true);
    expect(a.text()).toContain('event: end\ndata: {"reason":"signed_out"}');
    expect(hub.size()).toBe(0);
    expect(hub.timers()).toBe(0);
  });

  it('refuses new streams once closed', () => {
    const hub = createLiveHub({ seq: () => 1, touchesAccess: () => false });
    hub.close();
    expect(() => hub.open({ key: 'a', allowed: () => true }, sink().s, null)).toThrow(
      StreamLimitError,
    );
  });
});

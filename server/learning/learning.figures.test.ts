import { describe, expect, it } from 'vitest';
import {
  calibrationOf,
  demotionOf,
  patternOf,
  precisionBy,
  standingOf,
  supportOf,
  type Label,
} from './learning.figures.js';

let seq = 0;
const label = (over: Partial<Label> = {}): Label => ({
  episode_id: `ep-${String(++seq)}`,
  seq,
  correct: true,
  source: 'team',
  cause: 'nginx_down',
  pack: 'nginx',
  confidence: 'proven',
  service: 'web',
  alerts: ['NginxDown'],
  fix: 'restart_nginx',
  by: 'rory',
  at: '2026-11-28T08:00:00.000Z',
  ...over,
});
const newestFirst = (ls: Label[]): Label[] => [...ls].sort((a, b) => b.seq - a.seq);

describe('precision', () => {
  it('counts the labels a cause led at proven, linked or suspected, per cause and per pack', () => {
    const ls = [
      label(),
      label({ correct: false }),
      label({ confidence: 'suspected' }),
      label({ confidence: 'disputed', correct: false }),
      label({ cause: null, pack: null, confidence: 'unproven' }),
      label({ cause: 'disk_full', pack: 'host', confidence: 'linked' }),
    ];
    expect(precisionBy(ls, 'cause')).toEqual([
      { name: 'nginx_down', labels: 3, correct: 2, precision: 0.667 },
      { name: 'disk_full', labels: 1, correct: 1, precision: 1 },
    ]);
    expect(precisionBy(ls, 'pack').map((p) => p.name)).toEqual(['nginx', 'host']);
  });
});

describe('calibration', () => {
  it('says for each confidence level how often it was right, null where nothing was labelled', () => {
    const c = calibrationOf([
      label(),
      label({ correct: false }),
      label({ confidence: 'cleared', correct: false }),
    ]);
    expect(c.find((x) => x.confidence === 'proven')).toEqual({
      confidence: 'proven',
      labels: 2,
      correct: 1,
      share: 0.5,
    });
    expect(c.find((x) => x.confidence === 'cleared')?.share).toBe(0);
    expect(c.find((x) => x.confidence === 'linked')?.share).toBeNull();
  });
});

describe('demotion', () => {
  it('needs five labels below 80%, reads only the last fifty, and lifts when they recover', () => {
    const four = [label(), label(), label({ correct: false }), label({ correct: false })];
    expect(demotionOf(newestFirst(four))).toBeNull();
    const five = [...four, label({ correct: false })];
    expect(demotionOf(newestFirst(five))).toMatchObject({ labels: 5, correct: 2, precision: 0.4 });
    // Exactly at the bar is not below it.
    const atBar = [label(), label(), label(), label(), label({ correct: false })];
    expect(demotionOf(newestFirst(atBar))).toBeNull();
    // Fifty right after the wrong ones: the old labels fall out of the window.
    const recovered = [...five, ...Array.from({ length: 50 }, () => label())];
    expect(standingOf(newestFirst(recovered))).toMatchObject({ labels: 50, precision: 1 });
    expect(demotionOf(newestFirst(recovered))).toBeNull();
    // Labels at levels where it did not lead do not count.
    const noise = Array.from({ length: 9 }, () => label({ confidence: 'cleared', correct: false }));
    expect(demotionOf(newestFirst(noise))).toBeNull();
  });
});

describe('patterns', () => {
  it('keys a claim by service, cause, fix and its alerts in any order; makes none from suspicion', () => {
    const a = patternOf(label({ alerts: ['B', 'A', 'A'] }));
    const b = patternOf(label({ alerts: ['A', 'B'] }));
    expect(a?.pattern_id).toMatch(/^lp-[0-9a-f]{12}$/);
    expect(a).toEqual(b);
    expect(a?.alerts).toEqual(['A', 'B']);
    expect(patternOf(label({ alerts: ['A', 'B'], fix: null }))?.pattern_id).not.toBe(a?.pattern_id);
    expect(patternOf(label({ confidence: 'suspected' }))).toBeNull();
    expect(patternOf(label({ cause: null }))).toBeNull();
  });

  it('counts support and contradiction of one pattern only', () => {
    const key = patternOf(label());
    if (key === null) throw new Error('no key');
    const ls = [label(), label(), label({ correct: false }), label({ service: 'api' })];
    expect(supportOf(key, ls)).toEqual({ support: 2, wrong: 1 });
  });
});

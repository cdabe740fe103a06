// Suggested links from fake evidence: episodes opening together, probes reaching another
// service's port, a study's relations; filters for linked, decided and unknown names; stable
// ids.
import { describe, expect, it } from 'vitest';
import type { ObservationRow } from './estate.observed.js';
import {
  coOpenings,
  probesServedByOthers,
  studiedRelations,
  suggestionId,
  suggestions,
  type StudiedRelation,
} from './suggestions.js';

const at = (minute: number, second = 0) =>
  new Date(Date.UTC(2026, 10, 20, 0, minute, second)).toISOString();

/** db opens first, web 30 s later, `times` times an hour apart; plus noise. */
function openings(times: number) {
  const out: { service: string; t_open: string }[] = [];
  for (let i = 0; i < times; i++) {
    out.push({ service: 'db', t_open: at(i * 60) });
    out.push({ service: 'web', t_open: at(i * 60, 30) });
  }
  out.push({ service: 'batch', t_open: at(30) });
  return out;
}

describe('coOpenings', () => {
  it('suggests a pair that opened together at least 3 times; the one first is depended on', () => {
    expect(coOpenings(openings(3))).toEqual([
      {
        from: 'web',
        to: 'db',
        score: 1,
        evidence:
          'episodes of db and web opened within 120 s of each other 3 times in the last 30 days; db opened first 3 times',
      },
    ]);
    expect(coOpenings(openings(2))).toEqual([]);
  });

  it('counts each opening once per pair, outside the window never', () => {
    // db flaps 5 times within a minute while web opens once: one coincidence, not five.
    const flap = [0, 5, 10, 15, 20].map((s) => ({ service: 'db', t_open: at(0, s) }));
    expect(coOpenings([...flap, { service: 'web', t_open: at(0, 30) }], { minTimes: 2 })).toEqual(
      [],
    );
    const apart = [
      { service: 'a', t_open: at(0) },
      { service: 'b', t_open: at(2, 1) },
    ];
    expect(coOpenings(apart, { minTimes: 1 })).toEqual([]);
  });

  it('says when the order varies; scores by the fewer episodes', () => {
    const mixed = [
      { service: 'a', t_open: at(0) },
      { service: 'b', t_open: at(0, 10) },
      { service: 'b', t_open: at(10) },
      { service: 'a', t_open: at(10, 10) },
      { service: 'a', t_open: at(20) },
      { service: 'b', t_open: at(20) },
      { service: 'a', t_open: at(40) },
      { service: 'a', t_open: at(50) },
    ];
    const [s] = coOpenings(mixed);
    expect(s).toMatchObject({ from: 'a', to: 'b', score: 1 });
    expect(s?.evidence).toMatch(/3 times in the last 30 days, in no consistent order$/);
  });
});

const rows: ObservationRow[] = [
  {
    connector: 'ssh-a',
    observations: {
      listen: [
        { service: 'nginx', host: '10.0.0.1', address: '0.0.0.0', port: 80 },
        { service: 'shop', host: '10.0.0.1', address: '127.0.0.1', port: 8080 },
      ],
      connect: [],
      probes: [],
      candidates: [],
    },
  },
  {
    connector: 'shop-probe',
    observations: {
      listen: [],
      connect: [],
      candidates: [],
      probes: [
        { service: 'shop', url: 'http://10.0.0.1/', host: '10.0.0.1', port: 80 },
        { service: 'nginx', url: 'http://10.0.0.1/', host: '10.0.0.1', port: 80 },
      ],
    },
  },
];

describe('probesServedByOthers', () => {
  it('suggests the probed service depends on whoever listens at the URL; itself never', () => {
    expect(probesServedByOthers(rows)).toEqual([
      {
        from: 'shop',
        to: 'nginx',
        score: 0.8,
        evidence:
          'the probe of shop (http://10.0.0.1/, connector shop-probe) reaches 10.0.0.1:80, where nginx listens',
      },
    ]);
  });
});

describe('suggestions', () => {
  const base = {
    services: ['db', 'web', 'batch', 'shop', 'nginx'],
    links: [],
    openings: openings(4),
    observations: rows,
    decided: new Set<string>(),
  };

  it('gives each pair a stable id, best first', () => {
    const all = suggestions(base);
    expect(all.map((s) => [s.id, s.from, s.to, s.score])).toEqual([
      [suggestionId('web', 'db'), 'web', 'db', 1],
      [suggestionId('shop', 'nginx'), 'shop', 'nginx', 0.8],
    ]);
    expect(suggestionId('web', 'db')).toMatch(/^sug-[0-9a-f]{16}$/);
    expect(suggestionId('web', 'db')).not.toBe(suggestionId('db', 'web'));
  });

  it('never suggests a linked pair (either way), a decided one, or names the estate lacks', () => {
    expect(suggestions({ ...base, links: [{ from: 'db', to: 'web' }] }).map((s) => s.from)).toEqual(
      ['shop'],
    );
    expect(
      suggestions({ ...base, decided: new Set([suggestionId('shop', 'nginx')]) }).map(
        (s) => s.from,
      ),
    ).toEqual(['web']);
    expect(
      suggestions({ ...base, decided: new Set([suggestionId('nginx', 'shop')]) }).map(
        (s) => s.from,
      ),
    ).toEqual(['web']);
    expect(suggestions({ ...base, services: ['db', 'shop', 'nginx'] }).map((s) => s.from)).toEqual([
      'shop',
    ]);
  });

  it('joins the evidence when both sources give the same pair', () => {
    const together = [0, 60, 120].flatMap((m) => [
      { service: 'nginx', t_open: at(m) },
      { service: 'shop', t_open: at(m, 5) },
    ]);
    const [s] = suggestions({ ...base, openings: together });
    expect(s).toMatchObject({ from: 'shop', to: 'nginx', score: 1 });
    expect(s?.evidence).toMatch(/nginx opened first 3 times; the probe of shop/);
  });
});

describe('studiedRelations (source c)', () => {
  const lead: StudiedRelation = {
    from: 'shop',
    to: 'db',
    lag: 2,
    strength: 0.93,
    score: 0.93,
    readings: 'db cpu → shop cpu',
    method: 'lagged_correlation',
    step_s: 300,
    at: '2026-11-28T08:00:00.000Z',
  };

  it('names the readings, the method, the lag in steps and seconds, strength and score', () => {
    expect(studiedRelations([lead])).toEqual([
      {
        from: 'shop',
        to: 'db',
        score: 0.93,
        evidence:
          'the study of 2026-11-28 found db cpu → shop cpu related by lagged correlation: db leads by 2 steps (600 s), strength 0.93, score 0.93',
      },
    ]);
  });

  it('moving together says so; the causal service is named when its links were used', () => {
    const [s] = studiedRelations([
      { ...lead, lag: 0, method: 'causal_service', readings: 'db cpu with shop cpu' },
    ]);
    expect(s?.evidence).toBe(
      'the study of 2026-11-28 found db cpu with shop cpu related by the causal discovery service: they move together (lag 0), in no consistent order, strength 0.93, score 0.93',
    );
  });

  it('becomes a suggestion among the others, and is filtered like them', () => {
    const input = {
      services: ['shop', 'db'],
      links: [],
      openings: [],
      observations: [],
      decided: new Set<string>(),
      relations: [lead],
    };
    expect(suggestions(input).map((s) => [s.id, s.from, s.to])).toEqual([
      [suggestionId('shop', 'db'), 'shop', 'db'],
    ]);
    expect(suggestions({ ...input, links: [{ from: 'db', to: 'shop' }] })).toEqual([]);
    expect(suggestions({ ...input, services: ['shop'] })).toEqual([]);
  });
});

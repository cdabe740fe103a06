// The estate page's pure parts: node kinds from free-text kinds, origin kinds from how a link
// was made, the default focus, the neighbourhood within a depth, and arrow-key moves.
import { describe, expect, it } from 'vitest';
import type { EstateLink, EstateService } from './api.js';
import {
  defaultFocus,
  describeOrigin,
  nearestInDirection,
  neighbourhood,
  nodeKindOf,
  ORIGIN_KINDS,
  originKindOf,
  type OriginKind,
} from './model.js';

const svc = (name: string, kind: string | null = null): EstateService => ({
  name,
  kind,
  hosts: [],
  origins: [],
});
const PROM = { connector: 'prom', how: 'label depends_on' };
const link = (from: string, to: string, origin: EstateLink['origin'] = PROM): EstateLink => ({
  from,
  to,
  origin,
});
const ALL = new Set<OriginKind>(ORIGIN_KINDS.map((o) => o.kind));

describe('what a service is', () => {
  it('reads the kind an override gives, and calls a name only a link knows unknown', () => {
    expect(nodeKindOf(svc('db', 'postgresql'))).toBe('datastore');
    expect(nodeKindOf(svc('bus', 'kafka'))).toBe('queue');
    expect(nodeKindOf(svc('pay', 'saas'))).toBe('external');
    expect(nodeKindOf(svc('web'))).toBe('service');
    expect(nodeKindOf(svc('web', 'nginx'))).toBe('service');
    expect(nodeKindOf(undefined)).toBe('unknown');
  });
});

describe('how a link was made', () => {
  it('tells discovered, observed, override and suggestion apart, and says it in words', () => {
    expect(originKindOf(PROM)).toBe('discovered');
    expect(originKindOf({ connector: 'ssh-web', how: 'observed connection' })).toBe('observed');
    expect(originKindOf({ connector: null, how: 'override' })).toBe('override');
    expect(originKindOf({ connector: null, how: 'suggestion confirmed' })).toBe('suggestion');
    expect(describeOrigin(PROM)).toBe('prom: label depends_on');
    expect(describeOrigin({ connector: null, how: 'override' })).toBe('override');
  });
});

describe('the focus and its neighbourhood', () => {
  const links = [link('web', 'api'), link('api', 'db'), link('db', 'disk'), link('api', 'cache')];

  it('focuses the most linked service, the first by name on a tie', () => {
    expect(defaultFocus([svc('web'), svc('api'), svc('db')], links)).toBe('api');
    expect(defaultFocus([svc('b'), svc('a')], [])).toBe('a');
    expect(defaultFocus([], [])).toBeNull();
  });

  it('keeps what lies within the depth either way, and counts what one more step adds', () => {
    const one = neighbourhood('api', 1, links, ALL);
    expect([...one.nodes.keys()].sort()).toEqual(['api', 'cache', 'db', 'web']);
    expect(one.links).toHaveLength(3);
    expect(one.beyond).toBe(1);
    const two = neighbourhood('api', 2, links, ALL);
    expect(two.nodes.get('disk')).toBe(2);
    expect(two.beyond).toBe(0);
  });

  it('leaves out links whose origin is hidden, and a link made twice the same way once', () => {
    const mixed = [
      link('web', 'api'),
      link('web', 'api'),
      link('api', 'db', { connector: null, how: 'override' }),
    ];
    const shown = neighbourhood('api', 1, mixed, new Set<OriginKind>(['discovered']));
    expect([...shown.nodes.keys()].sort()).toEqual(['api', 'web']);
    expect(shown.links).toHaveLength(1);
  });
});

describe('arrow keys between nodes', () => {
  const at = new Map([
    ['a', { x: 0, y: 0 }],
    ['right', { x: 200, y: 10 }],
    ['far-right', { x: 400, y: 0 }],
    ['below', { x: 60, y: 100 }],
  ]);
  it('moves to the nearest node in that direction, or nowhere', () => {
    expect(nearestInDirection('a', 'ArrowRight', at)).toBe('right');
    expect(nearestInDirection('a', 'ArrowDown', at)).toBe('below');
    expect(nearestInDirection('a', 'ArrowLeft', at)).toBeNull();
    expect(nearestInDirection('nowhere', 'ArrowUp', at)).toBeNull();
  });
});

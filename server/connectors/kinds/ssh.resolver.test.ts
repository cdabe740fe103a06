import { describe, expect, it } from 'vitest';
import { parseResolver } from './ssh.resolver.js';

describe('resolver', () => {
  it('reads each name the gate asked its resolver for, and counts the failures', () => {
    const r = parseResolver(
      [
        'resolver 3',
        'name localhost ok 127.0.0.1',
        'name db.shop.internal fail',
        'name deploy.shop.internal fail',
        '',
      ].join('\n'),
    );
    expect(r).toEqual({
      names: [
        { name: 'localhost', resolved: true, address: '127.0.0.1' },
        { name: 'db.shop.internal', resolved: false, address: null },
        { name: 'deploy.shop.internal', resolved: false, address: null },
      ],
      checked: 3,
      resolved: 1,
      failed: 2,
      failing: 'db.shop.internal, deploy.shop.internal',
    });
  });

  it('reads a gate that names nothing to ask as nothing checked', () => {
    expect(parseResolver('resolver 0\n')).toEqual({
      names: [],
      checked: 0,
      resolved: 0,
      failed: 0,
      failing: '',
    });
  });

  it('refuses an answer without its header, or cut short (a cut answer never reads as all well)', () => {
    expect(() => parseResolver('name localhost ok 127.0.0.1\n')).toThrow(/no resolver header/);
    expect(() => parseResolver('resolver 2\nname localhost ok 127.0.0.1\n')).toThrow(
      /named 2 names but answered 1/,
    );
    expect(() => parseResolver('resolver 1\nname localhost maybe\n')).toThrow(
      /cannot read the line/,
    );
  });
});

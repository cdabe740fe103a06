import { describe, expect, it } from 'vitest';
import { StrictJsonError, parseStrictJson } from './strict-json.js';

describe('parseStrictJson', () => {
  it('reads what JSON.parse reads when nothing is ambiguous', () => {
    expect(parseStrictJson(' {"a":[1,{"b":"x\\"y"}],"c":null} \n', 1000)).toEqual({
      a: [1, { b: 'x"y' }],
      c: null,
    });
  });
  it.each([
    ['{"a":1,"a":2}', /duplicate key "a"/],
    ['{"a":1,"\\u0061":2}', /duplicate key "a"/],
    ['{"x":{"a":1,"b":{"a":1,"a":2}}}', /duplicate key "a"/],
    ['\ufeff{}', /byte-order mark/],
    ['{} {}', /trailing bytes/],
    ['{"a":1}x', /trailing bytes/],
    ['[1,]', /not JSON|expected/],
    [`${'['.repeat(40)}${']'.repeat(40)}`, /nested deeper/],
  ])('refuses %j', (text, why) => {
    expect(() => parseStrictJson(text, 1000)).toThrow(StrictJsonError);
    expect(() => parseStrictJson(text, 1000)).toThrow(why);
  });
  it('refuses more bytes than allowed, counting UTF-8 bytes', () => {
    expect(() => parseStrictJson(`"${'é'.repeat(6)}"`, 12)).toThrow(/larger than 12 bytes/);
  });
});

import { describe, expect, it } from 'vitest';
import { validate } from './validate.js';

describe('validate', () => {
  const schema = {
    type: 'object',
    required: ['verdict', 'checks'],
    additionalProperties: false,
    properties: {
      verdict: { enum: ['safe', 'unsafe'] },
      checks: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 5 } },
      score: { type: 'integer', minimum: 0, maximum: 10 },
    },
  };

  it('accepts a value that fits', () => {
    expect(validate(schema, { verdict: 'safe', checks: ['a'], score: 3 })).toEqual([]);
  });

  it('names each problem with its path', () => {
    const problems = validate(schema, {
      verdict: 'maybe',
      checks: ['toolong', 1],
      x: 1,
      score: 2.5,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        '$.verdict: not one of the allowed values',
        '$.checks[0]: longer than 5',
        '$.checks[1]: expected string',
        '$.x: not allowed',
        '$.score: expected integer',
      ]),
    );
    expect(validate(schema, {})).toContain('$.verdict: missing');
    expect(validate(schema, [])).toEqual(['$: expected object']);
  });
});

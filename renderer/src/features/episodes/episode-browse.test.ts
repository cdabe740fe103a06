// Where an episode stands in the list it was opened from: previous, next, its place; none
// when it is not in that list (opened from a link, or from another list since).
import { describe, expect, it } from 'vitest';
import { neighbours } from './episode-browse.js';

const LIST = { from: '/episodes?service=payments', ids: ['ep-a', 'ep-b', 'ep-c'] };

describe('neighbours', () => {
  it('gives the previous and the next, and the place', () => {
    expect(neighbours(LIST, 'ep-b')).toEqual({
      previous: 'ep-a',
      next: 'ep-c',
      at: 2,
      of: 3,
      from: '/episodes?service=payments',
    });
  });

  it('has no previous for the first and no next for the last', () => {
    expect(neighbours(LIST, 'ep-a')?.previous).toBeNull();
    expect(neighbours(LIST, 'ep-c')?.next).toBeNull();
  });

  it('is null for an episode not in the list, or without a list', () => {
    expect(neighbours(LIST, 'ep-z')).toBeNull();
    expect(neighbours(null, 'ep-a')).toBeNull();
  });
});

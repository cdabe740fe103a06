// The episode timeline in a DOM: the chips filter by kind and count each, the order flips,
// both written to the URL (a view is a link), keys 1–8 pick a chip, and the row a link
// points at stays in view whatever the filter.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Timeline } from './episode-timeline.js';
import { anEpisode } from './episode.fixture.js';

afterEach(cleanup);

const ID = 'ep-20261129T100000Z-abc123';
const event = (seq: number, type: string, data: Record<string, unknown> = {}) => ({
  seq,
  ts: `2026-11-29T10:0${String(seq)}:00Z`,
  type,
  actor: 'system',
  data: { episode_id: ID, ...data },
  reason: null,
});
const EPISODE = anEpisode({
  episode_id: ID,
  timeline: [
    event(1, 'episode.opened'),
    event(2, 'check.finished'),
    event(3, 'check.finished'),
    event(4, 'action.verified'),
  ],
});

function show(url: string) {
  window.history.replaceState(null, '', url);
  render(<Timeline episode={EPISODE} />);
}
const seqs = () =>
  within(screen.getByRole('list', { name: 'timeline' }))
    .getAllByRole('listitem')
    .map((li) => li.getAttribute('data-seq'));
const chip = (name: RegExp) =>
  within(screen.getByRole('group', { name: 'timeline filters' })).getByRole('button', { name });

describe('the episode timeline', () => {
  it('filters by kind with counted chips and writes the filter to the URL', () => {
    show(`/episodes/${ID}`);
    expect(seqs()).toEqual(['1', '2', '3', '4']);
    expect(chip(/Findings/).textContent).toBe('Findings 2');
    expect(chip(/All/).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(chip(/Findings/));
    expect(window.location.search).toBe('?kind=findings');
    expect(seqs()).toEqual(['2', '3']);
    expect(chip(/Findings/).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(chip(/All/));
    expect(window.location.search).toBe('');
    expect(seqs()).toEqual(['1', '2', '3', '4']);
  });

  it('flips the order, keeping the filter', () => {
    show(`/episodes/${ID}?kind=findings`);
    fireEvent.click(screen.getByRole('button', { name: 'Newest first' }));
    expect(new URLSearchParams(window.location.search).get('order')).toBe('newest');
    expect(new URLSearchParams(window.location.search).get('kind')).toBe('findings');
    expect(seqs()).toEqual(['3', '2']);
  });

  it('keeps the linked row in view under any filter, marked as current', () => {
    show(`/episodes/${ID}?seq=4&kind=findings`);
    expect(seqs()).toEqual(['2', '3', '4']);
    const linked = screen.getAllByRole('listitem').find((li) => li.dataset['seq'] === '4');
    expect(linked?.getAttribute('aria-current')).toBe('true');
  });

  it('picks a chip by its number key, not while typing', () => {
    show(`/episodes/${ID}`);
    act(() => {
      fireEvent.keyDown(window, { key: '5' });
    });
    expect(seqs()).toEqual(['4']);
    const input = document.body.appendChild(document.createElement('input'));
    act(() => {
      fireEvent.keyDown(input, { key: '1' });
    });
    expect(seqs()).toEqual(['4']);
    input.remove();
  });
});

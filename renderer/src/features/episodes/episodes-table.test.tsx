// The Episodes table's keys in a DOM: Space peeks from a row but ticks a focused tick box,
// Esc puts the peek away (not while typing elsewhere) and gives the row back the focus, and
// the ticks stay when a filter matches nothing.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EpisodeRow } from './api.js';
import { EpisodesTable } from './episodes-table.js';
import { anEpisodeRow } from './episode.fixture.js';

beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify({ name: 'Ann', role: 'responder', kind: 'session' }), {
          headers: { 'content-type': 'application/json' },
        }),
      ),
    ),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const row = (episode_id: string): EpisodeRow => anEpisodeRow({ episode_id });

function table(rows: EpisodeRow[]) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const ui = (r: EpisodeRow[]) => (
    <QueryClientProvider client={client}>
      <input aria-label="query" />
      <EpisodesTable rows={r} grouped={false} sortHeader={(_, label) => <th>{label}</th>} />
    </QueryClientProvider>
  );
  const view = render(ui(rows));
  return { rerender: (r: EpisodeRow[]) => view.rerender(ui(r)) };
}

const key = (el: Element, k: string, shiftKey = false) =>
  fireEvent.keyDown(el, { key: k, shiftKey, bubbles: true });
const link = (id: string) => screen.getByRole('link', { name: id });

describe('the Episodes table', () => {
  it('peeks on Space from a row, and puts it away on Esc with the focus back on the row', () => {
    table([row('ep-a'), row('ep-b')]);
    link('ep-b').focus();
    key(link('ep-b'), ' ');
    expect(screen.getByRole('complementary', { name: 'Peek at ep-b' })).toBeTruthy();
    // Esc typed in another field is that field's: the peek stays.
    key(screen.getByLabelText('query'), 'Escape');
    expect(screen.queryByRole('complementary', { name: 'Peek at ep-b' })).not.toBeNull();
    screen.getByRole('button', { name: /Close the peek/ }).focus();
    key(screen.getByRole('button', { name: /Close the peek/ }), 'Escape');
    expect(screen.queryByRole('complementary')).toBeNull();
    expect(document.activeElement).toBe(link('ep-b'));
  });

  it('lets Space tick a focused tick box, and x answer there too', () => {
    table([row('ep-a'), row('ep-b')]);
    const box = screen.getByRole('checkbox', { name: 'Tick ep-a' });
    box.focus();
    key(box, ' ');
    expect(screen.queryByRole('complementary')).toBeNull();
    key(box, 'x');
    expect((box as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText('1 ticked')).toBeTruthy();
  });

  it('keeps the ticks while a filter matches nothing', () => {
    const { rerender } = table([row('ep-a'), row('ep-b')]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Tick every row on this page' }));
    expect(screen.getByText('2 ticked')).toBeTruthy();
    rerender([]);
    expect(screen.getByText('2 ticked')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });
});

// The Episodes query bar in a DOM: an ARIA combobox that completes field names from
// GET /v1/search/fields and values from the loaded facet counts, first option preselected,
// arrows to move, Enter to take, Escape to close; `/` focuses it (not while typing elsewhere);
// Search writes the query to the URL; a bad query is shown at its caret.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../shared/api.js';
import { paramHref } from '../../shared/list-nav.js';
import { QueryBar } from './episodes-query.js';
import { episodeKeys } from './queries.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const list = (fields: { name: string; type: string; values?: string[] }[]) => ({
  fields,
  facets: [],
  data: false,
  time: 't_open',
  text: [],
});
const FIELDS = {
  episodes: list([
    { name: 'service', type: 'keyword' },
    { name: 'severity', type: 'keyword', values: ['critical', 'high', 'warning'] },
    { name: 'decision', type: 'keyword' },
  ]),
  ledger: list([]),
  approvals: list([]),
};
const FACETS = { service: { payments: 41, 'pay gateway': 3, checkout: 7 } };

let client = new QueryClient();
/** Until GET /v1/search/fields has answered. */
const loaded = () =>
  waitFor(() => expect(client.getQueryData(episodeKeys.searchFields)).toBeDefined());

function bar(url = '/episodes', error: unknown = null) {
  client = new QueryClient();
  vi.stubGlobal(
    'fetch',
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify(FIELDS), { headers: { 'content-type': 'application/json' } }),
      ),
    ),
  );
  window.history.replaceState(null, '', url);
  render(
    <QueryClientProvider client={client}>
      <QueryBar
        params={new URLSearchParams(window.location.search)}
        error={error}
        facets={FACETS}
        withParam={(params, key, value) => paramHref('/episodes', params, key, value)}
      />
    </QueryClientProvider>,
  );
  return screen.getByRole<HTMLInputElement>('combobox');
}

const type = (input: HTMLInputElement, value: string) => {
  fireEvent.change(input, { target: { value } });
};
const options = () => screen.queryAllByRole('option').map((o) => o.textContent);
const selected = () =>
  screen
    .queryAllByRole('option')
    .filter((o) => o.getAttribute('aria-selected') === 'true')
    .map((o) => o.textContent);

describe('the episodes query bar', () => {
  it('completes field names, the first preselected, and Enter takes the chosen one', async () => {
    const input = bar();
    await loaded();
    type(input, 's');
    expect(options()).toEqual(['service:', 'severity:', 'decision:']);
    expect(selected()).toEqual(['service:']);
    expect(input.getAttribute('aria-expanded')).toBe('true');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(selected()).toEqual(['severity:']);
    expect(input.getAttribute('aria-activedescendant')).toBe(
      screen.getByRole('option', { name: 'severity:' }).id,
    );
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.value).toBe('severity:');
    // The field's enumerated values follow, as it has no facet counts.
    expect(options()).toEqual(['critical', 'high', 'warning']);
  });

  it('completes values from the facet counts, quoting one with a space, keeping negation', async () => {
    const input = bar();
    await loaded();
    type(input, '-service:pay');
    expect(options()).toEqual(['payments (41)', 'pay gateway (3)']);
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    fireEvent.keyDown(input, { key: 'Tab' });
    expect(input.value).toBe('-service:"pay gateway" ');
  });

  it('puts the caret after the taken suggestion before the next key can land', async () => {
    const input = bar();
    await loaded();
    // Completing a word in the middle: the caret follows the insert, not the end of the text.
    input.focus();
    // What a browser does when "serv" is typed before an existing term: the value changes
    // with the caret after the typed letters, then the input event fires.
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(
      input,
      'serv decision:open',
    );
    input.setSelectionRange(4, 4);
    fireEvent.input(input);
    expect(options()).toEqual(['service:']);
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.value).toBe('service: decision:open');
    // No frame has passed: a letter typed now goes after "service:".
    expect(input.selectionStart).toBe('service:'.length);
  });

  it('closes the suggestions on Escape', async () => {
    const input = bar();
    await loaded();
    type(input, 'dec');
    expect(options()).toEqual(['decision:']);
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.getByRole('listbox', { hidden: true }).hidden).toBe(true);
    expect(input.getAttribute('aria-expanded')).toBe('false');
  });

  it('focuses on / but not while typing elsewhere, and Search writes the query to the URL', () => {
    const input = bar('/episodes?sort=-t_open');
    const other = document.body.appendChild(document.createElement('textarea'));
    other.focus();
    fireEvent.keyDown(other, { key: '/' });
    expect(document.activeElement).toBe(other);
    other.remove();
    fireEvent.keyDown(document.body, { key: '/' });
    expect(document.activeElement).toBe(input);
    type(input, '  service:checkout ');
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    const params = new URLSearchParams(window.location.search);
    expect(params.get('query')).toBe('service:checkout');
    expect(params.get('sort')).toBe('-t_open');
  });

  it('shows a bad query at its caret, marking the box invalid', () => {
    const input = bar(
      '/episodes?query=service%3A',
      new ApiError(400, {
        error: 'bad_query',
        message: 'a value must follow service:',
        position: 8,
      }),
    );
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('a value must follow service:');
    expect(alert.querySelector('.caret')?.textContent).toBe('service:\n        ^');
  });
});

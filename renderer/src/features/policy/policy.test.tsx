// The policy editor in a DOM: a section's JSON is checked before saving (a bad one is marked
// with its line and column and nothing is sent), and a save sends the whole document with only
// that section replaced. A viewer's editor is read-only.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PolicyPage } from './policy.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const VIEW = {
  policy: { grouping: { window_s: 300, by: ['service'] }, inhibit: [] },
  source: 'api',
  file: null,
  sha256: 'a'.repeat(64),
  set_by: 'ana',
  set_at: '2026-11-29T10:00:00Z',
};

function page(role = 'admin') {
  const fetch = vi.fn(async (url: string, init?: RequestInit) => {
    const body =
      url === '/v1/me'
        ? { name: 'ana', role, kind: 'user' }
        : init?.method === 'PUT'
          ? { ...VIEW, policy: JSON.parse(init.body as string) as unknown }
          : VIEW;
    return Promise.resolve(new Response(JSON.stringify(body), { status: 200 }));
  });
  vi.stubGlobal('fetch', fetch);
  render(
    <QueryClientProvider client={new QueryClient()}>
      <PolicyPage />
    </QueryClientProvider>,
  );
  return fetch;
}

const puts = (fetch: ReturnType<typeof page>) =>
  fetch.mock.calls.filter(([, init]) => init?.method === 'PUT');

describe('the policy section editor', () => {
  it('checks the JSON before saving and says where it breaks', async () => {
    const fetch = page();
    const editor = await screen.findByLabelText('Inhibition as JSON');
    fireEvent.change(editor, { target: { value: '[\n  {"a": 1,}\n]' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save inhibition' }));
    expect(await screen.findByText(/is not valid JSON.*line 2/)).toBeTruthy();
    expect(editor.getAttribute('aria-invalid')).toBe('true');
    expect(puts(fetch)).toHaveLength(0);
  });

  it('saves the whole document with only this section replaced', async () => {
    const fetch = page();
    const editor = await screen.findByLabelText('Inhibition as JSON');
    fireEvent.change(editor, { target: { value: '[{"source": {"alertname": "Down"}}]' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save inhibition' }));
    await screen.findByText('✓ Saved');
    await waitFor(() => {
      expect(puts(fetch)).toHaveLength(1);
    });
    expect(JSON.parse(puts(fetch)[0]?.[1]?.body as string)).toEqual({
      grouping: VIEW.policy.grouping,
      inhibit: [{ source: { alertname: 'Down' } }],
    });
  });

  it('is read-only for a viewer, saying the role it needs', async () => {
    page('viewer');
    const editor = await screen.findByLabelText('Inhibition as JSON');
    await screen.findByText(/Read-only: changing the policy needs the admin role/);
    expect(editor).toHaveProperty('readOnly', true);
  });
});

// The incidents list's status filter in a DOM: each box ticks one status, the URL holds the
// ticked ones in the specification's order (a view is a link), and the request asks for them.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IncidentList } from './api.js';
import { IncidentsPage } from './incidents.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const LIST: IncidentList = {
  incidents: [
    {
      incident_id: 'in-20261129T100000Z-abc123',
      status: 'monitoring',
      root_episode_id: 'ep-20261129T100000Z-abc123',
      services: ['checkout', 'payments'],
      episodes: 2,
      t_open: '2026-11-29T10:00:00Z',
      t_resolved: null,
    },
  ],
  total: 1,
  limit: 100,
  offset: 0,
};

function show(url: string) {
  const asked: URLSearchParams[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      asked.push(new URL(url, 'http://console').searchParams);
      return Promise.resolve(
        new Response(JSON.stringify(LIST), { headers: { 'content-type': 'application/json' } }),
      );
    }),
  );
  window.history.replaceState(null, '', url);
  render(
    <QueryClientProvider client={new QueryClient()}>
      <IncidentsPage />
    </QueryClientProvider>,
  );
  return asked;
}

const box = (name: string) => screen.getByRole<HTMLInputElement>('checkbox', { name });
const statusInUrl = () => new URLSearchParams(window.location.search).get('status');

describe('the incidents status filter', () => {
  it('asks for every status while none is ticked, and lists what comes back', async () => {
    const asked = show('/incidents');
    expect(await screen.findByRole('link', { name: 'in-20261129T100000Z-abc123' })).toBeTruthy();
    expect(screen.getByText('none ticked: every status')).toBeTruthy();
    expect(asked[0]?.has('status')).toBe(false);
    expect(screen.getByRole('cell', { name: 'checkout, payments' })).toBeTruthy();
  });

  it('keeps the ticked statuses in the URL in their order, and asks for them', async () => {
    const asked = show('/incidents');
    fireEvent.click(box('resolved'));
    expect(statusInUrl()).toBe('resolved');
    fireEvent.click(box('open'));
    expect(statusInUrl()).toBe('open,resolved');
    expect(box('open').checked).toBe(true);
    await waitFor(() => expect(asked.at(-1)?.get('status')).toBe('open,resolved'));
    fireEvent.click(box('resolved'));
    expect(statusInUrl()).toBe('open');
  });

  it('reads the filter from a link', () => {
    show('/incidents?status=mitigating,monitoring');
    expect(box('mitigating').checked).toBe(true);
    expect(box('monitoring').checked).toBe(true);
    expect(box('open').checked).toBe(false);
  });
});

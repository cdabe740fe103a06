// The ticked episodes' verdict in a DOM: a viewer sees it off with the role it needs; a
// responder's verdict goes to each episode in turn, and a refusal is named by its episode
// while the others are still recorded.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EpisodeRow } from './api.js';
import { BulkVerdict } from './episodes-bulk-verdict.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const rows = ['ep-a', 'ep-b', 'ep-c'].map((episode_id) => ({ episode_id }) as EpisodeRow);

/** The service: who is signed in; POST .../team refused for ep-b. */
function serve(role: string): { posted: string[]; busy: boolean[] } {
  const posted: string[] = [];
  const busy: boolean[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init?: RequestInit) => {
      if (url === '/v1/me') return Promise.resolve(json({ name: 'Ann', role, kind: 'session' }));
      if (url.endsWith('/team') && init?.method === 'POST') {
        posted.push(url);
        if (url.includes('ep-b'))
          return Promise.resolve(
            json({ error: 'not_found', message: 'no closed episode ep-b' }, 404),
          );
        return Promise.resolve(json({ verdict: 'none', by: 'Ann', at: '', seq: 9 }));
      }
      return Promise.resolve(json({}));
    }),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <BulkVerdict rows={rows} onBusy={(b) => busy.push(b)} />
    </QueryClientProvider>,
  );
  return { posted, busy };
}

const record = () => screen.getByRole('button', { name: 'Record for 3' });

describe('a verdict for the ticked episodes', () => {
  it('is off for a viewer, who is told the role it needs', async () => {
    serve('viewer');
    await screen.findByText(/needs the responder role; you are signed in as viewer/);
    expect(screen.getByLabelText<HTMLSelectElement>('Verdict').disabled).toBe(true);
    expect((record() as HTMLButtonElement).disabled).toBe(true);
  });

  it('records each in turn and names the one refused', async () => {
    const { posted, busy } = serve('responder');
    await waitFor(() =>
      expect(screen.getByLabelText<HTMLSelectElement>('Verdict').disabled).toBe(false),
    );
    expect((record() as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Verdict'), { target: { value: 'none' } });
    fireEvent.click(record());
    await screen.findByText('Recorded for 2 of 3.');
    expect(posted.map((u) => u.split('/')[3])).toEqual(['ep-a', 'ep-b', 'ep-c']);
    // The ticks were held while it ran, and let go after.
    expect(busy).toEqual([true, false]);
    const refused = screen.getByRole('list', { name: 'refused' });
    expect(refused.textContent).toContain('ep-b');
    expect(refused.textContent).toContain('no closed episode ep-b');
  });
});

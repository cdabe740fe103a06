// The verdict form in a DOM: nothing is chosen for the person, Record stays off until an answer
// is, "other" needs its detail, the POST carries what was chosen, and a viewer sees the form
// disabled with the role it needs before trying.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VerdictForm } from './episode-verdict.js';
import { anEpisode } from './episode.fixture.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const EPISODE = anEpisode();

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The service as the form meets it: who is signed in, and what POST .../team received. */
function serve(role: string) {
  const posted: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init?: RequestInit) => {
      if (url === '/v1/me') return Promise.resolve(json({ name: 'Ann', role, kind: 'session' }));
      if (url.endsWith('/team') && init?.method === 'POST') {
        const body = JSON.parse(init.body as string) as { verdict: string };
        posted.push(body);
        return Promise.resolve(
          json({ ...body, episode_id: EPISODE.episode_id, by: 'Ann', at: '', seq: 9 }),
        );
      }
      return Promise.resolve(json(EPISODE));
    }),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <VerdictForm episode={EPISODE} />
    </QueryClientProvider>,
  );
  return posted;
}

const record = () => screen.getByRole('button', { name: 'Record verdict' });
/** Whether a control is off, by its own attribute or a disabled fieldset around it. */
const off = (el: HTMLElement): boolean =>
  (el as HTMLInputElement).disabled || (el.closest('fieldset')?.disabled ?? false);

describe('the verdict form', () => {
  it('chooses nothing for the person and asks a detail for "other" before it records', async () => {
    const posted = serve('responder');
    await waitFor(() =>
      expect(off(screen.getByRole('radio', { name: /Did nothing/ }))).toBe(false),
    );
    expect(screen.getAllByRole('radio').filter((r) => (r as HTMLInputElement).checked)).toEqual([]);
    expect(off(record())).toBe(true);
    expect(screen.getByText('Choose what the team did.')).toBeTruthy();

    fireEvent.click(screen.getByRole('radio', { name: /Did something else/ }));
    expect(off(record())).toBe(true);
    expect(screen.getByText('Say what the team did instead.')).toBeTruthy();

    fireEvent.change(screen.getByRole('textbox', { name: /Detail \(required\)/ }), {
      target: { value: '  Restarted the pod  ' },
    });
    expect(off(record())).toBe(false);
    fireEvent.click(record());
    await waitFor(() =>
      expect(posted).toEqual([{ verdict: 'other', detail: 'Restarted the pod' }]),
    );
  });

  it('sends no detail with an answer that needs none', async () => {
    const posted = serve('owner');
    await waitFor(() =>
      expect(off(screen.getByRole('radio', { name: /Did nothing/ }))).toBe(false),
    );
    fireEvent.click(screen.getByRole('radio', { name: /Followed its advice/ }));
    fireEvent.click(record());
    await waitFor(() => expect(posted).toEqual([{ verdict: 'advice' }]));
  });

  it('shows a viewer the role it needs, with every control off', async () => {
    serve('viewer');
    const note = await screen.findByRole('note');
    expect(note.textContent).toContain('needs the responder role; you are signed in as viewer');
    for (const radio of screen.getAllByRole('radio')) expect(off(radio)).toBe(true);
    expect(off(record())).toBe(true);
  });
});

// The halt form in a DOM: a reason is required before anything is sent, and the reason sent is
// the one typed (trimmed); the halt state it answers lands in the autonomy query's cache.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HaltForm } from './halt-button.js';
import { autonomyKeys } from './queries.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const HALTED = { reason: 'bad deploy', by: 'ana', at: '2026-11-29T10:00:00Z' };

function form() {
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
    Promise.resolve(new Response(JSON.stringify({ halted: HALTED }), { status: 200 })),
  );
  vi.stubGlobal('fetch', fetch);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  qc.setQueryData(autonomyKeys.all, { halted: null });
  const onDone = vi.fn();
  render(
    <QueryClientProvider client={qc}>
      <HaltForm onDone={onDone} focus={false} />
    </QueryClientProvider>,
  );
  return { fetch, onDone, qc };
}

describe('the halt form', () => {
  it('asks for a reason and sends nothing without one', () => {
    const { fetch, onDone } = form();
    fireEvent.change(screen.getByLabelText(/Reason for halting/), { target: { value: '   ' } });
    fireEvent.click(screen.getByRole('button', { name: /Halt now/ }));
    expect(screen.getByRole('alert').textContent).toContain('Say why');
    expect(screen.getByLabelText(/Reason for halting/).getAttribute('aria-invalid')).toBe('true');
    expect(fetch).not.toHaveBeenCalled();
    expect(onDone).not.toHaveBeenCalled();
  });

  it('sends the reason typed, trimmed, and shows the halt at once', async () => {
    const { fetch, onDone, qc } = form();
    fireEvent.change(screen.getByLabelText(/Reason for halting/), {
      target: { value: '  bad deploy ' },
    });
    fireEvent.click(screen.getByRole('button', { name: /Halt now/ }));
    await waitFor(() => {
      expect(onDone).toHaveBeenCalled();
    });
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe('/v1/halt');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(init?.body as string)).toEqual({ reason: 'bad deploy' });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(qc.getQueryData(autonomyKeys.all)).toMatchObject({ halted: HALTED });
  });
});

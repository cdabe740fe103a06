// The estate overrides editor: it shows the server's document, refuses text that is not one
// JSON object before sending it, sends what was typed, and shows the server's complaint with
// the field it names. A person without the admin role reads it but cannot save.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EstateOverridesView } from './api.js';
import { OverridesEditor } from './overrides-editor.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const VIEW: EstateOverridesView = {
  overrides: { services: {}, links: [{ from: 'web', to: 'db' }], ignore: [] },
  set_by: 'ana',
  set_at: '2026-11-29T10:00:00Z',
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function editor(isAdmin: boolean, put: (body: unknown) => Response = (b) => json(200, b)) {
  const fetch = vi.fn(async (_url: string, init?: RequestInit) =>
    Promise.resolve(
      init?.method === 'PUT' ? put(JSON.parse(init.body as string)) : json(200, VIEW),
    ),
  );
  vi.stubGlobal('fetch', fetch);
  render(
    <QueryClientProvider
      client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}
    >
      <OverridesEditor isAdmin={isAdmin} reason="Only an admin can do this" />
    </QueryClientProvider>,
  );
  return fetch;
}

const puts = (fetch: ReturnType<typeof editor>) =>
  fetch.mock.calls.filter(([, init]) => init?.method === 'PUT');

describe('the estate overrides editor', () => {
  it("shows the server's document and who set it; Save waits for a change", async () => {
    editor(true);
    const text = screen.getByLabelText<HTMLTextAreaElement>('Overrides JSON');
    await waitFor(() => {
      expect(text.value).toContain('"from": "web"');
    });
    expect(screen.getByText(/Set by ana/)).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Save overrides' }).disabled).toBe(
      true,
    );
  });

  it('refuses text that is not one JSON object, without sending it', async () => {
    const fetch = editor(true);
    const text = screen.getByLabelText('Overrides JSON');
    await waitFor(() => {
      expect(screen.getByText(/Set by ana/)).toBeTruthy();
    });
    fireEvent.change(text, { target: { value: '{"links": [' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save overrides' }));
    expect(screen.getByRole('alert').textContent).toContain('not valid JSON');
    expect(text.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(text, { target: { value: '["web"]' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save overrides' }));
    expect(screen.getByRole('alert').textContent).toContain('one JSON object');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(puts(fetch)).toHaveLength(0);
  });

  it('sends what was typed and says it saved', async () => {
    const fetch = editor(true, () =>
      json(200, { ...VIEW, overrides: { ...VIEW.overrides, ignore: ['legacy'] } }),
    );
    await waitFor(() => {
      expect(screen.getByText(/Set by ana/)).toBeTruthy();
    });
    fireEvent.change(screen.getByLabelText('Overrides JSON'), {
      target: { value: '{"ignore": ["legacy"]}' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save overrides' }));
    await waitFor(() => {
      expect(screen.getByRole('status').textContent).toContain('Saved the overrides');
    });
    expect(JSON.parse(puts(fetch)[0]?.[1]?.body as string)).toEqual({ ignore: ['legacy'] });
  });

  it("shows the server's complaint with the field it names", async () => {
    editor(true, () =>
      json(400, {
        error: 'invalid_input',
        message: 'must NOT have additional properties',
        field: 'links.0.weight',
      }),
    );
    await waitFor(() => {
      expect(screen.getByText(/Set by ana/)).toBeTruthy();
    });
    fireEvent.change(screen.getByLabelText('Overrides JSON'), {
      target: { value: '{"links": [{"from": "a", "to": "b", "weight": 1}]}' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save overrides' }));
    await waitFor(() => {
      expect(screen.getByRole('alert').textContent).toContain('(field links.0.weight)');
    });
  });

  it('is read-only without the admin role, and says why', async () => {
    editor(false);
    const text = screen.getByLabelText<HTMLTextAreaElement>('Overrides JSON');
    await waitFor(() => {
      expect(text.value).toContain('web');
    });
    expect(text.readOnly).toBe(true);
    expect(screen.getByRole('button', { name: 'Save overrides' }).getAttribute('title')).toBe(
      'Only an admin can do this',
    );
  });
});

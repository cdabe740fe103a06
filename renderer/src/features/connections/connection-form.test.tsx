// The connection form generated from a kind's settings: each setting type gets its input
// (numbers with the kind's bounds, required marked), a secret is sent as a reference or a
// value typed once, and the body the form builds leaves empty optional settings out.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Connector, ConnectorKind, ConnectorSetting } from './api.js';
import { ConnectionForm } from './connection-form.js';
import { bodyOf, draftOf } from './draft.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const setting = (name: string, type: string, extra: Partial<ConnectorSetting> = {}) => ({
  name,
  type,
  required: false,
  description: `the ${name}`,
  secret: type === 'secret',
  ...extra,
});

const KIND: ConnectorKind = {
  kind: 'prometheus',
  title: 'Prometheus',
  description: 'metrics',
  capabilities: ['metrics'],
  operations: ['query'],
  settings: [
    setting('url', 'url', { required: true }),
    setting('step_s', 'integer', { minimum: 1, maximum: 60, default: 15 }),
    setting('verify_tls', 'boolean', { default: true }),
    setting('headers', 'string_list'),
    setting('token', 'secret'),
  ],
};
const FRAMEWORK = [setting('max_in_flight', 'integer'), setting('timeout_s', 'integer')];

const SAVED: Connector = {
  name: 'prom',
  kind: 'prometheus',
  settings: { url: 'http://prom:9090', step_s: 30, token: { env: 'PROM_TOKEN' } },
  max_in_flight: null,
  timeout_s: 10,
  problem: null,
  last_health: null,
  in_flight: 0,
  queued: 0,
  set_by: 'ana',
  set_at: '2026-11-29T10:00:00Z',
};

function form(editing?: Connector) {
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
    Promise.resolve(
      new Response(JSON.stringify({ ok: true, detail: 'up', duration_ms: 12 }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    ),
  );
  vi.stubGlobal('fetch', fetch);
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ConnectionForm
        kinds={[KIND]}
        framework={FRAMEWORK}
        editing={editing}
        disabled={false}
        onManaged={vi.fn()}
        onDone={vi.fn()}
        onCancel={vi.fn()}
      />
    </QueryClientProvider>,
  );
  return fetch;
}

describe('the connection form', () => {
  it("makes each setting's input from its type, with bounds and the required mark", () => {
    form();
    // The label says "required" in words, beside the mark that is hidden from screen readers.
    const url = screen.getByLabelText(/^url \* \(required\)$/);
    expect(url.getAttribute('type')).toBe('url');
    expect(url.getAttribute('aria-describedby')).toContain('hint');
    const step = screen.getByLabelText('step_s');
    expect(step.getAttribute('type')).toBe('number');
    expect(step.getAttribute('min')).toBe('1');
    expect(step.getAttribute('max')).toBe('60');
    expect(step.getAttribute('placeholder')).toBe('15');
    expect(screen.getByLabelText<HTMLInputElement>(/verify_tls/).checked).toBe(true);
    expect(screen.getByLabelText('headers').tagName).toBe('TEXTAREA');
    // An optional secret starts unset; typing one in shows a password field.
    const where = screen.getByRole('radiogroup', { name: 'Where token comes from' });
    expect(screen.getByRole<HTMLInputElement>('radio', { name: /Not set/ }).checked).toBe(true);
    expect(where).toBeTruthy();
    fireEvent.click(screen.getByRole('radio', { name: /Type it/ }));
    expect(screen.getByLabelText(/^Value of token/).getAttribute('type')).toBe('password');
  });

  it('shows a saved secret as its reference, never a value, and keeps it', () => {
    form(SAVED);
    expect(screen.getByText(/Saved: from the environment variable PROM_TOKEN/)).toBeTruthy();
    expect(
      screen.getByLabelText<HTMLInputElement>('Environment variable holding token').value,
    ).toBe('PROM_TOKEN');
    expect(screen.getByLabelText<HTMLInputElement>('step_s').value).toBe('30');
  });

  it('refuses a bad name before asking the server', async () => {
    const fetch = form();
    fireEvent.change(screen.getByLabelText(/^Name/), { target: { value: 'Bad Name' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByRole('alert').textContent).toContain('lower case letters');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetch).not.toHaveBeenCalled();
  });

  it('tests the document the fields make, and says the result', async () => {
    const fetch = form();
    fireEvent.change(screen.getByLabelText(/^url/), { target: { value: ' http://p:9090 ' } });
    fireEvent.change(screen.getByLabelText('headers'), { target: { value: 'a: 1\n\n b: 2 ' } });
    fireEvent.click(screen.getByRole('radio', { name: /From a file/ }));
    fireEvent.change(screen.getByLabelText(/File holding token/), {
      target: { value: '/run/secrets/t' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Test' }));
    await waitFor(() => {
      expect(screen.getByRole('status').textContent).toContain('Test passed');
    });
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe('/v1/connectors/test');
    expect(JSON.parse(init?.body as string)).toEqual({
      kind: 'prometheus',
      settings: {
        url: 'http://p:9090',
        verify_tls: true,
        headers: ['a: 1', 'b: 2'],
        token: { file: '/run/secrets/t' },
      },
    });
  });
});

describe('a draft and its body', () => {
  it('round-trips a saved connector, leaving empty optional settings out', () => {
    const d = draftOf(KIND, 'prom', SAVED);
    expect(bodyOf(KIND, d)).toEqual({
      kind: 'prometheus',
      settings: {
        url: 'http://prom:9090',
        step_s: 30,
        verify_tls: true,
        token: { env: 'PROM_TOKEN' },
      },
      timeout_s: 10,
    });
  });

  it('sends a typed secret as {value} and a non-integer as text for the server to explain', () => {
    const d = draftOf(KIND, 'prom');
    d.secrets['token'] = { mode: 'value', value: 's3cret', file: '', env: '' };
    d.text['step_s'] = '2.5';
    expect(bodyOf(KIND, d).settings).toMatchObject({ token: { value: 's3cret' }, step_s: '2.5' });
  });
});

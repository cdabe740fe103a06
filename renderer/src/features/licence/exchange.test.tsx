// The install exchange's forms: asking (a purpose and a trimmed label; the code shown large
// with the text to carry), looking at a pasted request (each check, the digits to compare) and
// vouching with the code read out (only once six digits are typed); each button follows the
// caller's `can` and says why it is disabled.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InstallsView, LookAnswer } from './api.js';
import { AskPanel } from './ask-panel.js';
import { VouchPanel } from './vouch-panel.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const YES = { allowed: true };
const VIEW: InstallsView = {
  this: {
    fingerprint: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF',
    kind: 'machine-id',
    label: null,
    role: null,
    on_licence: false,
    vouched_until: null,
  },
  installs: [],
  history: [],
  limit: { installs: 3, used: 1 },
  candidate: null,
  outgoing: [],
  can: { ask: YES, look: YES, vouch: YES, poll: YES, remove: YES },
};

const LOOK: LookAnswer = {
  request: {
    req_id: 'req-1',
    fingerprint: 'QQQQ-RRRR-SSSS-TTTT-UUUU-WXYZ',
    kind: 'machine-id',
    label: 'dr-site-b',
    purpose: 'dr',
    version: '1.0.0',
    created_at: '2026-11-29T10:00:00Z',
    expires_at: '2026-11-30T10:00:00Z',
  },
  digits: '418 207',
  checks: [
    { name: 'signature', ok: true },
    { name: 'seat_available', ok: false, detail: '3 of 3 used' },
  ],
  would: 'pending',
  why: 'no seat free',
};

/** Stubs fetch with an answer per path; returns the calls made. */
function serve(answers: Record<string, unknown>) {
  const fetch = vi.fn(async (url: string, _init?: RequestInit) => {
    const path = new URL(url, 'http://localhost').pathname;
    return Promise.resolve(
      new Response(JSON.stringify(answers[path] ?? {}), {
        status: path in answers ? 200 : 404,
        headers: { 'content-type': 'application/json' },
      }),
    );
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}
const bodyOf = (fetch: ReturnType<typeof serve>, path: string): unknown => {
  const call = fetch.mock.calls.find(([url]) => url === path);
  return call === undefined ? undefined : JSON.parse(call[1]?.body as string);
};

const wrap = (node: React.ReactNode) =>
  render(<QueryClientProvider client={new QueryClient()}>{node}</QueryClientProvider>);

describe('asking to be added', () => {
  it('sends the purpose and the trimmed label, then shows the code and the text to carry', async () => {
    const fetch = serve({
      '/v1/licence/installs/ask': {
        req_id: 'req-1',
        code: '418 207',
        text: '-----BEGIN SVC INSTALL REQUEST-----',
        fingerprint: VIEW.this.fingerprint,
        purpose: 'dr',
        expires_at: '2026-11-30T10:00:00Z',
      },
    });
    wrap(<AskPanel view={VIEW} owner />);
    fireEvent.change(screen.getByLabelText('Purpose'), { target: { value: 'dr' } });
    fireEvent.change(screen.getByLabelText(/^Label/), { target: { value: '  dr-site-b ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Ask to be added' }));
    await waitFor(() => {
      expect(screen.getByLabelText('request code').textContent).toBe('418 207');
    });
    expect(bodyOf(fetch, '/v1/licence/installs/ask')).toEqual({
      purpose: 'dr',
      label: 'dr-site-b',
    });
    expect(screen.getByLabelText<HTMLTextAreaElement>(/Request text to carry/).value).toContain(
      'INSTALL REQUEST',
    );
  });

  it("follows `can`: disabled with the server's why, and pasting needs the owner", () => {
    serve({});
    const why = 'this install is already on a licence';
    wrap(
      <AskPanel
        view={{ ...VIEW, can: { ...VIEW.can, ask: { allowed: false, why } } }}
        owner={false}
      />,
    );
    expect(
      screen.getByRole<HTMLButtonElement>('button', { name: 'Ask to be added' }).disabled,
    ).toBe(true);
    expect(screen.getByText(why)).toBeTruthy();
    expect(
      screen.getByRole<HTMLButtonElement>('button', { name: 'Install the answer' }).disabled,
    ).toBe(true);
    expect(screen.getByText(/needs the owner role/)).toBeTruthy();
  });
});

describe('looking at a request and vouching', () => {
  it('shows each check and the digits, and vouches only with six digits typed', async () => {
    const fetch = serve({
      '/v1/licence/installs/look': LOOK,
      '/v1/licence/installs/vouch': {
        result: 'pending',
        why: 'the authority answers later',
        req_id: 'req-1',
        fingerprint: LOOK.request?.fingerprint,
      },
    });
    wrap(<VouchPanel view={{ ...VIEW, this: { ...VIEW.this, on_licence: true } }} />);
    fireEvent.change(screen.getByLabelText('Request text from the new install'), {
      target: { value: 'REQUEST TEXT' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Look at the request' }));
    await waitFor(() => {
      expect(screen.getByLabelText('digits to compare').textContent).toBe('418 207');
    });
    expect(bodyOf(fetch, '/v1/licence/installs/look')).toEqual({ text: 'REQUEST TEXT' });
    const checks = screen.getByRole('list', { name: 'checks' }).textContent;
    expect(checks).toContain('✓ signature');
    expect(checks).toContain('✗ seat available — 3 of 3 used');
    expect(screen.getAllByText('WXYZ').length).toBeGreaterThan(0);

    const vouch = screen.getByRole<HTMLButtonElement>('button', { name: 'Vouch' });
    fireEvent.change(screen.getByLabelText('Code read out from the new install'), {
      target: { value: '418 20' },
    });
    expect(vouch.disabled).toBe(true);
    expect(screen.getByText('type the 6-digit code first')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Code read out from the new install'), {
      target: { value: '418 207' },
    });
    expect(vouch.disabled).toBe(false);
    fireEvent.click(vouch);
    await waitFor(() => {
      expect(screen.getByRole('status', { name: 'vouch result' }).textContent).toContain(
        'the authority answers later',
      );
    });
    expect(bodyOf(fetch, '/v1/licence/installs/vouch')).toEqual({
      text: 'REQUEST TEXT',
      code: '418 207',
    });
  });

  it('says a refused request cannot be vouched for, and offers no Vouch', async () => {
    serve({ '/v1/licence/installs/look': { ...LOOK, would: 'refused', why: 'signature bad' } });
    wrap(<VouchPanel view={{ ...VIEW, this: { ...VIEW.this, on_licence: true } }} />);
    fireEvent.change(screen.getByLabelText('Request text from the new install'), {
      target: { value: 'REQUEST TEXT' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Look at the request' }));
    await waitFor(() => {
      expect(screen.getByRole('alert').textContent).toContain(
        'cannot be vouched for: signature bad',
      );
    });
    expect(screen.queryByRole('button', { name: 'Vouch' })).toBeNull();
  });
});

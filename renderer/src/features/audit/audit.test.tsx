// The Audit page in a DOM: a row opens to show its seq, hash, the episodes and incidents it
// names as links, and its data; rows open and close independently; Verify says the result in
// words, with the first bad seq as a link to the events around it.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LedgerPage, VerifyReport } from './api.js';
import { AuditPage } from './audit.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const EPISODE = 'ep-20261129T100000Z-abc123';
const INCIDENT = 'in-20261129T100000Z-def456';
const event = (seq: number, type: string, data: Record<string, unknown>) => ({
  seq,
  ts: '2026-11-29T10:00:00Z',
  type,
  actor: 'system',
  data,
  reason: null,
  trace_id: EPISODE,
  hash: `${String(seq).repeat(8)}cafe`,
});
const PAGE: LedgerPage = {
  events: [
    event(12, 'episode.opened', { episode_id: EPISODE, incident_id: INCIDENT, service: 'pay' }),
    event(11, 'signal.received', { service: 'pay' }),
  ],
  more: false,
  counts: {},
  head: { seq: 12, hash: 'cafe' },
  checkpoint: null,
};
const BROKEN: VerifyReport = {
  ok: false,
  checked: 40,
  head: { seq: 40, hash: 'cafe' },
  segments: 0,
  sealed_through: 0,
  failure: { seq: 17, check: 'hash', segment: null, message: 'the hash does not match' },
  duration_ms: 3,
  events_per_s: 1000,
  algorithm: 'sha256',
  key_fingerprint: 'ab12',
  verified_at: '2026-11-29T10:00:00Z',
};

function show() {
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) =>
      Promise.resolve(
        new Response(JSON.stringify(url.startsWith('/v1/ledger/verify') ? BROKEN : PAGE), {
          headers: { 'content-type': 'application/json' },
        }),
      ),
    ),
  );
  window.history.replaceState(null, '', '/audit');
  render(
    <QueryClientProvider client={new QueryClient()}>
      <AuditPage />
    </QueryClientProvider>,
  );
}

describe('the Audit page', () => {
  it('opens a row to show its hash, the objects it names and its data, and closes it', async () => {
    show();
    const opener = await screen.findByRole('button', { name: 'Open event 12' });
    expect(opener.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByLabelText('data of event 12')).toBeNull();
    fireEvent.click(opener);
    expect(opener.getAttribute('aria-expanded')).toBe('true');
    expect(opener.getAttribute('aria-label')).toBe('Close event 12');
    const detail = document.getElementById(opener.getAttribute('aria-controls') ?? '');
    expect(detail).not.toBeNull();
    const d = within(detail!);
    expect(d.getByText('1212121212121212cafe')).toBeTruthy();
    expect(d.getByRole('link', { name: `episode ${EPISODE}` }).getAttribute('href')).toBe(
      `/episodes/${EPISODE}`,
    );
    expect(d.getByRole('link', { name: `incident ${INCIDENT}` }).getAttribute('href')).toBe(
      `/incidents/${INCIDENT}`,
    );
    expect(d.getByRole('link', { name: 'events around it' }).getAttribute('href')).toBe(
      '/audit?order=asc&after_seq=6&limit=11',
    );
    expect(d.getByLabelText('data of event 12').textContent).toContain('"service": "pay"');
    // Another row opens on its own, and the first closes again.
    fireEvent.click(screen.getByRole('button', { name: 'Open event 11' }));
    expect(screen.getByLabelText('data of event 12')).toBeTruthy();
    fireEvent.click(opener);
    expect(screen.queryByLabelText('data of event 12')).toBeNull();
    expect(screen.getByLabelText('data of event 11')).toBeTruthy();
  });

  it('says a failed verification in words, linking the first bad seq', async () => {
    show();
    fireEvent.click(screen.getByRole('button', { name: 'Verify the ledger' }));
    const result = await screen.findByRole('status');
    expect(result.textContent).toContain(
      '✗ Verification failed at seq 17 (hash): the hash does not match.',
    );
    expect(
      within(result)
        .getByRole('link', { name: 'Show the events around seq 17' })
        .getAttribute('href'),
    ).toBe('/audit?order=asc&after_seq=11&limit=11');
  });
});

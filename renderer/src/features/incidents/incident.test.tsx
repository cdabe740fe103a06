// One incident in a DOM: its confirmed causes read as names, each with the episode that
// confirmed it, and each history entry links to its ledger event and to its episode.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Incident } from './api.js';
import { IncidentPage } from './incident.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const ROOT = 'ep-20261129T100000Z-abc123';
const JOINED = 'ep-20261129T100500Z-def456';
const INCIDENT: Incident = {
  incident_id: 'in-20261129T100000Z-abc123',
  status: 'monitoring',
  root_episode_id: ROOT,
  services: ['payments', 'checkout'],
  lifecycle: {
    status: 'monitoring',
    opened_at: '2026-11-29T10:00:00Z',
    resolved_at: null,
    duration_s: 600,
  },
  episodes: [],
  causes: [
    { episode_id: ROOT, cause: { cause: 'db pool exhausted', confidence: 'proven' } },
    { episode_id: JOINED, cause: 'bad deploy' },
  ],
  fixes: [],
  history: [
    { at: '2026-11-29T10:00:00Z', seq: 41, event: 'opened', episode_id: ROOT, service: 'payments' },
    { at: '2026-11-29T10:05:00Z', seq: 57, event: 'joined', episode_id: JOINED },
    { at: '2026-11-29T10:09:00Z', seq: 63, event: 'status', from: 'open', to: 'monitoring' },
  ],
};

function show() {
  vi.stubGlobal(
    'fetch',
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify(INCIDENT), {
          headers: { 'content-type': 'application/json' },
        }),
      ),
    ),
  );
  render(
    <QueryClientProvider client={new QueryClient()}>
      <IncidentPage id={INCIDENT.incident_id} />
    </QueryClientProvider>,
  );
}

describe('an incident', () => {
  it('names its causes, each with the episode that confirmed it', async () => {
    show();
    await screen.findByRole('heading', { name: /Incident/ });
    const causes = screen.getByText('Causes').nextElementSibling;
    expect(causes?.textContent).toBe(`db pool exhausted (${ROOT}), bad deploy (${JOINED})`);
  });

  it('links each history entry to its ledger event and its episode', async () => {
    show();
    await screen.findByRole('heading', { name: /Incident/ });
    for (const seq of [41, 57, 63])
      expect(screen.getByRole('link', { name: `#${String(seq)}` }).getAttribute('href')).toBe(
        `/audit?seq=${String(seq)}`,
      );
    const joined = screen.getByRole('link', { name: '#57' }).closest('li');
    expect(joined?.querySelector(`a[href="/episodes/${JOINED}"]`)).not.toBeNull();
  });
});

// The doctor in a DOM: areas failing first, checks failing first within each, a check that is
// not ok links to the page that mends it, and Re-run asks the server afresh.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DoctorReport } from './api.js';
import { DoctorSection } from './doctor.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const check = (area: string, name: string, status: 'ok' | 'warn' | 'fail') => ({
  area,
  check: name,
  status,
  detail: `${name} is ${status}`,
  hint: '',
  duration_ms: 1,
});
const REPORT: DoctorReport = {
  status: 'fail',
  checked_at: '2026-11-29T10:00:00Z',
  cached: true,
  checks: [
    check('Core', 'Main database', 'ok'),
    check('Core', 'Alert intake', 'warn'),
    check('Audit', 'Ledger chain', 'ok'),
    check('Licence', 'Licence', 'fail'),
  ],
};

function serve() {
  const fetched: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      fetched.push(url);
      return Promise.resolve(
        new Response(JSON.stringify({ ...REPORT, cached: !url.includes('fresh=1') }), {
          headers: { 'content-type': 'application/json' },
        }),
      );
    }),
  );
  render(
    <QueryClientProvider client={new QueryClient()}>
      <DoctorSection />
    </QueryClientProvider>,
  );
  return fetched;
}

describe('the doctor', () => {
  it('shows the areas failing first, and the checks failing first within each', async () => {
    serve();
    const tables = await screen.findAllByRole('table');
    expect(tables.map((t) => t.getAttribute('aria-label'))).toEqual([
      'doctor checks: Licence',
      'doctor checks: Core',
      'doctor checks: Audit',
    ]);
    const core = within(tables[1]!)
      .getAllByRole('rowheader')
      .map((th) => th.textContent);
    expect(core).toEqual(['Alert intake', 'Main database']);
    expect(screen.getByText(/1 failing, 1 warning, 2 ok/)).toBeTruthy();
  });

  it('links a check that is not ok to the page that mends it, and an ok one to none', async () => {
    serve();
    const licence = await screen.findByRole('table', { name: 'doctor checks: Licence' });
    const mend = within(licence).getByRole('link', { name: 'Mend on the Licence page' });
    expect(mend.getAttribute('href')).toBe('/licence');
    const intake = within(screen.getByRole('table', { name: 'doctor checks: Core' }));
    expect(intake.getByRole('link').getAttribute('href')).toBe('/connections');
    const audit = screen.getByRole('table', { name: 'doctor checks: Audit' });
    expect(within(audit).queryByRole('link')).toBeNull();
  });

  it('re-runs the checks without the cache', async () => {
    const fetched = serve();
    fireEvent.click(await screen.findByRole('button', { name: 'Re-run' }));
    await waitFor(() => expect(fetched).toEqual(['/v1/doctor', '/v1/doctor?fresh=1']));
    await waitFor(() => expect(screen.queryByText(/\(cached\)/)).toBeNull());
  });
});

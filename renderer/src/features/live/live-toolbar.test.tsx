// Live's toolbar in a DOM: each severity button counts the rows of its severity and toggles
// only itself; search and grouping hand a whole new view to the page (which writes the URL).
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunningEpisode } from './api.js';
import type { LiveView } from './live-rows.js';
import { LiveToolbar } from './live-toolbar.js';

afterEach(cleanup);

const row = (id: string, severity: string): RunningEpisode => ({
  episode_id: id,
  service: 'checkout',
  alerts: ['HighLatency'],
  status: 'investigating',
  step: 'checks',
  t_open: '2026-11-29T10:00:00Z',
  severity,
  incident_id: null,
  autonomy: 'shadow',
  confidence: '',
  action: '',
});

const ROWS = [row('e1', 'critical'), row('e2', 'critical'), row('e3', 'warning')];
const ALL: LiveView = { group: 'none', sev: [], q: '' };

function toolbar(view: LiveView = ALL) {
  const onView = vi.fn<(next: LiveView) => void>();
  const onPause = vi.fn();
  render(<LiveToolbar view={view} onView={onView} rows={ROWS} paused={false} onPause={onPause} />);
  return { onView, onPause };
}

describe('the Live toolbar', () => {
  it('counts each severity and toggles that one only, keeping the others', () => {
    const { onView } = toolbar({ ...ALL, sev: ['warning'] });
    const critical = screen.getByRole('button', { name: /critical/ });
    expect(critical.textContent).toContain('2');
    expect(critical.getAttribute('aria-pressed')).toBe('false');
    expect(screen.getByRole('button', { name: /warning/ }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    fireEvent.click(critical);
    expect(onView).toHaveBeenLastCalledWith({ ...ALL, sev: ['critical', 'warning'] });
    fireEvent.click(screen.getByRole('button', { name: /warning/ }));
    expect(onView).toHaveBeenLastCalledWith({ ...ALL, sev: [] });
  });

  it('hands the search and the grouping to the page as a new view', () => {
    const { onView } = toolbar();
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search' }), {
      target: { value: 'pay' },
    });
    expect(onView).toHaveBeenLastCalledWith({ ...ALL, q: 'pay' });
    fireEvent.change(screen.getByRole('combobox', { name: /Group by/ }), {
      target: { value: 'service' },
    });
    expect(onView).toHaveBeenLastCalledWith({ ...ALL, group: 'service' });
  });

  it('pauses through its button', () => {
    const { onPause } = toolbar();
    fireEvent.click(screen.getByRole('button', { name: /Pause/ }));
    expect(onPause).toHaveBeenCalledTimes(1);
  });
});

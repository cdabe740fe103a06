// The Study page's controls in a DOM: Start takes whole minutes from 1 to 120 and sends them,
// and is closed to a non-admin or while a study runs; the progress line says the step, where
// it is and how far, and Stop is closed while the study is already stopping.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StudyBody } from './api.js';
import { Progress, StartForm } from './study.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** Renders with a fresh query client; every call answers `answer` and is recorded. */
function withServer(ui: ReactNode, answer: unknown = {}) {
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
    Promise.resolve(new Response(JSON.stringify(answer), { status: 200 })),
  );
  vi.stubGlobal('fetch', fetch);
  render(<QueryClientProvider client={new QueryClient()}>{ui}</QueryClientProvider>);
  return fetch;
}

const running = (over: Partial<NonNullable<StudyBody['running']>> = {}): StudyBody => ({
  running: {
    study_id: 'stu-1',
    step: 'causes',
    service: 'checkout',
    cause: 'disk_full',
    done: 2,
    of: 5,
    ends_at: '2026-11-29T12:15:00Z',
    stopping: false,
    ...over,
  },
  study: null,
  last: [],
});

const minutes = () => screen.getByRole('spinbutton', { name: /Minutes/ });
const start = () => screen.getByRole('button', { name: 'Start study' });

describe('starting a study', () => {
  it('takes whole minutes from 1 to 120 only, and sends them', async () => {
    const fetch = withServer(<StartForm admin running={false} />, { study_id: 'stu-2' });
    for (const bad of ['0', '121', '1.5', '']) {
      fireEvent.change(minutes(), { target: { value: bad } });
      expect((start() as HTMLButtonElement).disabled).toBe(true);
    }
    fireEvent.change(minutes(), { target: { value: '30' } });
    expect((start() as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(start());
    await waitFor(() => {
      expect(fetch).toHaveBeenCalled();
    });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/v1/study');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(init?.body as string)).toEqual({ minutes: 30 });
  });

  it('is closed to a non-admin, saying the role, and while a study runs', () => {
    withServer(<StartForm admin={false} running={false} />);
    expect(screen.getByRole('note').textContent).toContain('needs the admin role');
    expect((minutes() as HTMLInputElement).disabled).toBe(true);
    expect((start() as HTMLButtonElement).disabled).toBe(true);
    cleanup();
    withServer(<StartForm admin running />);
    expect((start() as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('a running study', () => {
  it('says its step, where it is and how far, and Stop sends the stop', async () => {
    const fetch = withServer(<Progress body={running()} admin />, running({ stopping: true }));
    expect(screen.getByRole('status', { name: 'study progress' }).textContent).toBe(
      'reading causes: checkout · disk_full — 2 of 5 causes read',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Stop study' }));
    await waitFor(() => {
      expect(fetch).toHaveBeenCalled();
    });
    expect(fetch.mock.calls[0]![0]).toBe('/v1/study/stop');
  });

  it('says it is stopping and closes Stop, and closes it to a non-admin', () => {
    withServer(<Progress body={running({ stopping: true, service: null, cause: null })} admin />);
    expect(screen.getByRole('status', { name: 'study progress' }).textContent).toBe(
      'reading causes — 2 of 5 causes read — stopping before the next cause',
    );
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Stop study' }).disabled).toBe(
      true,
    );
    cleanup();
    withServer(<Progress body={running()} admin={false} />);
    const stop = screen.getByRole<HTMLButtonElement>('button', { name: 'Stop study' });
    expect(stop.disabled).toBe(true);
    expect(stop.title).toContain('admin role');
  });
});

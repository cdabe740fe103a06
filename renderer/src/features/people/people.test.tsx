// People's forms: the handles change sent (emptied removed, unchanged left out), a team's body
// (every lead a member), and a person's editor sending only what changed.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Person } from './api.js';
import { handlesChange } from './handles.js';
import { PersonEditor } from './person-forms.js';
import { teamBody } from './teams.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const ANA: Person = {
  id: 'usr-1',
  email: 'ana@example.com',
  name: 'Ana',
  role: 'responder',
  handles: { slack: '@ana', phone: '+4412345' },
  teams: [],
  disabled: false,
  password_set: false,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  last_sign_in_at: null,
};

describe('the handles change', () => {
  it('removes an emptied handle, leaves an unchanged one out and trims a new one', () => {
    expect(
      handlesChange(ANA.handles, {
        slack: '  ',
        mattermost: ' ana.m ',
        teams: '',
        phone: '+4412345',
      }),
    ).toEqual({ slack: null, mattermost: 'ana.m' });
  });
});

describe("a team's body", () => {
  it('trims the name and makes every lead a member, once', () => {
    expect(teamBody('  SRE ', ['usr-2'], ['usr-1', 'usr-2'])).toEqual({
      name: 'SRE',
      leads: ['usr-2'],
      members: ['usr-1', 'usr-2'],
    });
    expect(teamBody('SRE', ['usr-3'], ['usr-1']).members).toEqual(['usr-1', 'usr-3']);
  });
});

describe("a person's editor", () => {
  it('sends only the role and the handles that changed, then closes', async () => {
    const fetch = vi.fn(
      async (_url: string, _init: RequestInit) =>
        new Response(JSON.stringify({ ...ANA, role: 'admin' }), { status: 200 }),
    );
    vi.stubGlobal('fetch', fetch);
    const onDone = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <PersonEditor person={ANA} myRole="admin" onDone={onDone} />
      </QueryClientProvider>,
    );
    fireEvent.change(screen.getByRole('combobox', { name: 'Role' }), {
      target: { value: 'admin' },
    });
    fireEvent.change(screen.getByRole('textbox', { name: 'Slack' }), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(onDone).toHaveBeenCalled();
    });
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toContain('/v1/users/usr-1');
    expect(init?.method).toBe('PUT');
    expect(typeof init?.body).toBe('string');
    expect(JSON.parse(init?.body as string)).toEqual({ role: 'admin', handles: { slack: null } });
  });

  it('offers no role above the caller’s own', () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <PersonEditor person={ANA} myRole="admin" onDone={() => undefined} />
      </QueryClientProvider>,
    );
    const option = (name: string) => screen.getByRole<HTMLOptionElement>('option', { name });
    expect(option('owner (needs an owner)').disabled).toBe(true);
    expect(option('admin').disabled).toBe(false);
  });
});

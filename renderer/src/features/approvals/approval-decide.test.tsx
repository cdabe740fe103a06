// The decision form and the quorum words in a DOM: the requester is told why they cannot
// approve, Deny needs a reason before anything is sent, and Approve asks to confirm by name
// before it sends. Quorum counts each approver once, by id.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../people/index.js';
import type { ApprovalDecisionEntry, ApprovalRequest } from './api.js';
import { DecideForm } from './approval-decide.js';
import { quorumText, waitsFor } from './approval-words.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const approve = (by: string, by_id = by): ApprovalDecisionEntry => ({
  by,
  by_id,
  decision: 'approve',
  at: '2026-11-29T10:05:00Z',
  via: 'console',
  reason: null,
});

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  request_id: 'apr-1',
  kind: 'action',
  status: 'pending',
  title: 'Restart checkout',
  summary: '',
  service: 'checkout',
  risk: 'medium',
  episode_id: null,
  subject: {},
  subject_sha256: 'ab',
  quorum: 2,
  approver_role: 'responder',
  requested_by: 'ana',
  requested_by_id: 'usr-ana',
  requested_at: '2026-11-29T10:00:00Z',
  expires_at: '2026-11-30T10:00:00Z',
  decisions: [],
  channels: [],
  closed_at: null,
  reason: null,
  ...over,
});

const ana: Me = {
  name: 'ana',
  role: 'responder',
  kind: 'session',
  user_id: 'usr-ana',
  session: null,
};
const bo: Me = { name: 'bo', role: 'responder', kind: 'session', user_id: 'usr-bo', session: null };
const vic: Me = { name: 'vic', role: 'viewer', kind: 'session', user_id: 'usr-vic', session: null };

function decide(r: ApprovalRequest, me: Me) {
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
    Promise.resolve(
      new Response(JSON.stringify({ ...r, decisions: [approve(me.name, me.user_id ?? me.name)] }), {
        status: 200,
      }),
    ),
  );
  vi.stubGlobal('fetch', fetch);
  render(
    <QueryClientProvider client={new QueryClient()}>
      <DecideForm r={r} me={me} />
    </QueryClientProvider>,
  );
  return fetch;
}

describe('the decision form', () => {
  it('tells the requester why they cannot approve their own request', () => {
    decide(request(), ana);
    expect(screen.getByRole('note').textContent).toContain('You requested this');
    expect(screen.getByRole('button', { name: 'Approve' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Deny' })).toHaveProperty('disabled', true);
  });

  it('names the role a viewer lacks', () => {
    decide(request(), vic);
    expect(screen.getByRole('note').textContent).toContain('needs the responder role');
  });

  it('asks why before a deny, and sends nothing without a reason', () => {
    const fetch = decide(request(), bo);
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    expect(screen.getByText(/the reason is required/)).toBeTruthy();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('asks to confirm an approval by name, then sends it and says the quorum', async () => {
    const fetch = decide(request(), bo);
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(fetch).not.toHaveBeenCalled();
    expect(screen.getByRole('group', { name: 'Confirm approval' }).textContent).toContain(
      'Restart checkout',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Confirm approval' }));
    await waitFor(() => {
      expect(screen.getByRole('status').textContent).toBe('✓ Approved: 1 of 2 approvals');
    });
    expect(fetch.mock.calls[0]?.[0]).toBe('/v1/approvals/apr-1/approve');
  });
});

describe('quorum words', () => {
  it('counts each approver once, by id', () => {
    const r = request({ decisions: [approve('bo', 'usr-bo'), approve('Bo B.', 'usr-bo')] });
    expect(quorumText(r)).toBe('1 of 2 approvals');
    expect(quorumText(request({ quorum: 1 }))).toBe('0 of 1 approval');
  });

  it('waits for someone who may approve and has not yet, never for the requester', () => {
    expect(waitsFor(request(), bo)).toBe(true);
    expect(waitsFor(request(), ana)).toBe(false);
    expect(waitsFor(request(), vic)).toBe(false);
    expect(waitsFor(request({ decisions: [approve('bo', 'usr-bo')] }), bo)).toBe(false);
    expect(waitsFor(request({ status: 'approved' }), bo)).toBe(false);
  });
});

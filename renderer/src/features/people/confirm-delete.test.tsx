// Deleting in place: a double click on "Yes, delete" sends one DELETE (busy until the lists
// are read again), "Keep" gives the focus back to Delete, and a role's reason disables it.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmDelete } from './confirm-delete.js';

afterEach(() => {
  cleanup();
});

function show(remove: () => Promise<unknown>, why: string | null = null) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ConfirmDelete what="team db" question="Delete team db?" remove={remove} why={why} />
    </QueryClientProvider>,
  );
}

describe('ConfirmDelete', () => {
  it('sends one DELETE for a double click', async () => {
    const remove = vi.fn(() => Promise.resolve());
    show(remove);
    fireEvent.click(screen.getByRole('button', { name: 'Delete team db' }));
    const yes = screen.getByRole('button', { name: 'Yes, delete' });
    fireEvent.click(yes);
    fireEvent.click(yes);
    await waitFor(() => expect(remove).toHaveBeenCalledTimes(1));
  });

  it('gives the focus back to Delete on Keep', () => {
    show(() => Promise.resolve());
    fireEvent.click(screen.getByRole('button', { name: 'Delete team db' }));
    expect(screen.getByRole('group', { name: 'Delete team db?' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Keep' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete team db' }));
  });

  it('is disabled with the reason when the person may not delete', () => {
    show(() => Promise.resolve(), 'Deleting a team needs the admin role or leading it');
    const button = screen.getByRole('button', { name: 'Delete team db' });
    expect(button.hasAttribute('disabled')).toBe(true);
    expect(button.getAttribute('title')).toMatch(/admin role/);
  });
});

// Copy where the console is usually reached, plain http from another machine: no Clipboard
// API there, so the hidden-textarea way copies, and when that fails too the person is told.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CopyButton } from './clipboard.js';

const execCommand = vi.fn<(command: string) => boolean>();

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  execCommand.mockReset();
});

/** A browser outside a secure context: `navigator.clipboard` is absent. */
function insecure(copies: boolean): void {
  vi.stubGlobal('navigator', { ...navigator, clipboard: undefined });
  execCommand.mockReturnValue(copies);
  Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
}

describe('the Copy button', () => {
  it('copies through a selected textarea without the Clipboard API, and says so', async () => {
    insecure(true);
    render(<CopyButton text="# Digest" what="the digest as Markdown" label="Copy the Markdown" />);
    const button = screen.getByRole('button', { name: 'Copy the digest as Markdown' });
    button.focus();
    fireEvent.click(button);
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Copied.'));
    expect(execCommand).toHaveBeenCalledWith('copy');
    // The focus is back where it was.
    expect(document.activeElement).toBe(button);
    // The textarea used for it is gone.
    expect(document.querySelector('textarea')).toBeNull();
  });

  it('tells the person to copy by hand when nothing could copy', async () => {
    insecure(false);
    render(<CopyButton text="abc" what="the code" />);
    fireEvent.click(screen.getByRole('button', { name: 'Copy the code' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/Ctrl\+C/));
  });

  it('uses the Clipboard API where there is one', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    render(<CopyButton text="abc" what="the code" />);
    fireEvent.click(screen.getByRole('button', { name: 'Copy the code' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Copied.'));
    expect(writeText).toHaveBeenCalledWith('abc');
  });
});

// The keyboard layer in a DOM: `?` opens the sheet of shortcuts and Esc closes it, giving the
// focus back; `g` then a letter goes to a page and swallows that letter; keys typed into a
// field, or held with Ctrl, are left alone; a `g` not followed in time expires.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHORD_MS, GO_TO, SHORTCUTS, Shortcuts, showShortcuts } from './shortcuts.js';

beforeEach(() => {
  window.history.replaceState(null, '', '/live');
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const press = (key: string, target: Element = document.body, init: KeyboardEventInit = {}) =>
  fireEvent.keyDown(target, { key, ...init });

describe('the keyboard layer', () => {
  it('opens the sheet on ? with every shortcut, and Esc closes it, giving the focus back', () => {
    render(<Shortcuts />);
    const before = document.body.appendChild(document.createElement('button'));
    before.focus();
    press('?', before, { shiftKey: true });
    const sheet = screen.getByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(sheet.querySelectorAll('tbody tr')).toHaveLength(SHORTCUTS.length);
    expect(sheet.textContent).toContain('go to Episodes');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    // Behind the sheet nothing hears the keys.
    const behind = vi.fn();
    document.addEventListener('keydown', behind);
    press('p', document.activeElement ?? document.body);
    expect(behind).not.toHaveBeenCalled();
    document.removeEventListener('keydown', behind);
    press('Escape', document.activeElement ?? document.body);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(before);
    before.remove();
  });

  it('goes to a page on g then its letter, and that letter reaches no page', () => {
    render(<Shortcuts />);
    const livePause = vi.fn();
    document.addEventListener('keydown', livePause);
    press('g');
    expect(screen.getByRole('status').textContent).toMatch(/^g —/);
    // Shift alone (on the way to `?`) does not end the wait.
    press('Shift', document.body, { shiftKey: true });
    press('a');
    expect(window.location.pathname).toBe('/approvals');
    const heard = livePause.mock.calls.map(([e]) => (e as KeyboardEvent).key);
    expect(heard).not.toContain('g');
    expect(heard).not.toContain('a');
    expect(screen.getByRole('status').textContent).toBe('');
    for (const [key, page] of Object.entries(GO_TO)) {
      press('g');
      press(key);
      expect(window.location.pathname).toBe(page.path);
    }
    document.removeEventListener('keydown', livePause);
  });

  it('leaves keys typed into a field, or held with Ctrl, alone', () => {
    render(<Shortcuts />);
    const input = document.body.appendChild(document.createElement('input'));
    press('g', input);
    press('e', input);
    press('?', input, { shiftKey: true });
    expect(window.location.pathname).toBe('/live');
    expect(screen.queryByRole('dialog')).toBeNull();
    input.remove();
    press('g', document.body, { ctrlKey: true });
    press('e');
    expect(window.location.pathname).toBe('/live');
  });

  it('forgets a g not followed in time, and a g followed by another key', () => {
    vi.useFakeTimers();
    render(<Shortcuts />);
    press('g');
    act(() => {
      vi.advanceTimersByTime(CHORD_MS + 1);
    });
    expect(screen.getByRole('status').textContent).toBe('');
    press('e');
    expect(window.location.pathname).toBe('/live');
    press('g');
    press('x');
    press('e');
    expect(window.location.pathname).toBe('/live');
  });

  it('keeps the key that ends a g from the page, and g ? lists the shortcuts', () => {
    render(<Shortcuts />);
    const page = vi.fn();
    document.addEventListener('keydown', page);
    press('g');
    press('c');
    expect(page).not.toHaveBeenCalled();
    press('g');
    press('?', document.body, { shiftKey: true });
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
    document.removeEventListener('keydown', page);
  });

  it('answers nothing while a dialog holds the focus', () => {
    render(
      <>
        <Shortcuts />
        <div role="dialog" aria-label="Confirm halt">
          <button type="button">Halt now</button>
        </div>
      </>,
    );
    const inDialog = screen.getByRole('button', { name: 'Halt now' });
    press('g', inDialog);
    press('e', inDialog);
    press('?', inDialog, { shiftKey: true });
    expect(window.location.pathname).toBe('/live');
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();
  });

  it('keeps Tab inside the open sheet', () => {
    render(<Shortcuts />);
    press('?', document.body, { shiftKey: true });
    const close = screen.getByRole('button', { name: 'Close' });
    const list = screen.getByLabelText('the shortcuts');
    expect(document.activeElement).toBe(close);
    press('Tab', close);
    expect(document.activeElement).toBe(list);
    press('Tab', list, { shiftKey: true });
    expect(document.activeElement).toBe(close);
  });

  it('opens from the palette too', () => {
    render(<Shortcuts />);
    act(() => {
      showShortcuts();
    });
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
  });
});

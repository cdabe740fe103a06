// What every keyboard shortcut of the console checks first (console.md D.2): a key typed
// into a field is text, never a command, and a key held with Ctrl, ⌘ or Alt belongs to the
// browser or the palette.

/** Whether a key press goes into something being typed in (where `p` or `/` is a letter). */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** A key press a single-key shortcut may answer: no modifier but Shift, not typing. */
export function shortcutKey(e: KeyboardEvent): boolean {
  return !e.ctrlKey && !e.metaKey && !e.altKey && !typingIn(e.target);
}

// What every keyboard shortcut of the console checks first (console.md D.2): a key typed
// into a field is text, never a command; a key held with Ctrl, ⌘ or Alt belongs to the
// browser or the palette; and while a dialog is open (the palette, the halt form, the
// shortcut list) the page behind it does not answer keys.

/** Whether a key press goes into something being typed in (where `p` or `/` is a letter). */
export function isTypingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Whether a dialog holds the key press, or a modal one is open. */
function isInDialog(target: EventTarget | null): boolean {
  if (target instanceof Element && target.closest('[role="dialog"], dialog') !== null) return true;
  return document.querySelector('[aria-modal="true"]') !== null;
}

/** A key press a single-key shortcut may answer: no modifier but Shift, not typing, no dialog. */
export function isShortcutKey(e: KeyboardEvent): boolean {
  return !e.ctrlKey && !e.metaKey && !e.altKey && !isTypingIn(e.target) && !isInDialog(e.target);
}

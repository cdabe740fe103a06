// What every keyboard shortcut of the console checks first (console.md D.2): a key typed
// into a field is text, never a command; a key held with Ctrl, ⌘ or Alt belongs to the
// browser or the palette; and while a dialog is open (the palette, the halt form, the
// shortcut list) the page behind it does not answer keys.

/** Inputs that take no text: a letter typed on one is no text, so shortcuts still answer. */
const NOT_TEXT = ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'color', 'range'];

/** Whether a key press goes into something being typed in (where `p` or `/` is a letter). */
export function isTypingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !NOT_TEXT.includes(target.type);
  return target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Whether the key press is on a control that answers Space or Enter itself (a button, a box). */
export function isOnControl(target: EventTarget | null): boolean {
  return (
    target instanceof Element && target.closest('button, input, select, textarea, summary') !== null
  );
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

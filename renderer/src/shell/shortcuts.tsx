// The console's keyboard layer (console.md D.2): `?` opens the list of every shortcut there
// is, and `g` then a letter goes to a page, with a "g —" hint while the letter is awaited.
// Keys never act while a field is typed into, and none halts, approves or changes anything:
// those stay behind a button and its confirmation.
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { isShortcutKey } from '../shared/keys.js';
import { navigate } from '../shared/router.js';
import './palette.css';

/** `g` then this key goes to the page. */
export const GO_TO: Readonly<Record<string, { path: string; title: string }>> = {
  l: { path: '/live', title: 'Live' },
  e: { path: '/episodes', title: 'Episodes' },
  i: { path: '/incidents', title: 'Incidents' },
  a: { path: '/approvals', title: 'Approvals' },
  s: { path: '/estate', title: 'Estate' },
  u: { path: '/audit', title: 'Audit' },
  d: { path: '/status', title: 'Status and doctor' },
  ',': { path: '/settings', title: 'Settings' },
};

/** How long `g` waits for its letter. */
export const CHORD_MS = 1500;

interface Shortcut {
  readonly keys: readonly string[];
  readonly does: string;
  readonly where: string;
}

/** Every shortcut the console answers, as the sheet lists it: each is tested where it acts. */
export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['Ctrl K', '⌘ K'], does: 'command palette: pages, episodes, halt', where: 'everywhere' },
  { keys: ['?'], does: 'this list of shortcuts', where: 'everywhere' },
  ...Object.entries(GO_TO).map(([key, page]) => ({
    keys: [`g ${key}`],
    does: `go to ${page.title}`,
    where: 'everywhere',
  })),
  { keys: ['Esc'], does: 'close a dialog, the palette or the suggestions', where: 'everywhere' },
  { keys: ['p'], does: 'pause or resume the live list', where: 'Live' },
  {
    keys: ['Shift W'],
    does: 'open this view (its filter and search) on the wall display',
    where: 'Live',
  },
  { keys: ['/'], does: 'put the cursor in the query bar', where: 'Episodes' },
  { keys: ['j', 'k', 'Enter'], does: 'move down and up the rows, open one', where: 'Episodes' },
  {
    keys: ['x', 'Shift x'],
    does: 'tick or untick the row (for export, a verdict), or every row from the last one ticked',
    where: 'Episodes',
  },
  {
    keys: ['Space', 'Esc'],
    does: 'peek at the row beside the list (j and k move it), put it away',
    where: 'Episodes',
  },
  {
    keys: ['↑', '↓', 'Enter', 'Tab'],
    does: 'move through the suggestions, take one',
    where: 'query bar, palette',
  },
  {
    keys: ['←', '→', 'Home', 'End', 'Enter'],
    does: 'move along the days, choose a range',
    where: 'Episodes histogram',
  },
  { keys: ['1', '…', '8'], does: 'show one kind of timeline row', where: 'an episode' },
  { keys: ['j', 'k'], does: 'move down and up the timeline rows', where: 'an episode' },
  {
    keys: ['f'],
    does: 'go to the newest timeline row and follow the rows that arrive',
    where: 'a running episode',
  },
  {
    keys: ['[', ']'],
    does: 'the previous or next episode of the list it was opened from',
    where: 'an episode',
  },
  {
    keys: ['c'],
    does: 'copy the link to the focused row (else the highlighted one, else the episode)',
    where: 'an episode',
  },
  { keys: ['←', '↑', '→', '↓', 'Enter'], does: 'move between services, open one', where: 'Estate' },
];

const openers = new Set<() => void>();

/** Open the shortcut sheet (the palette's "Keyboard shortcuts"). */
export function showShortcuts(): void {
  for (const open of openers) open();
}

function Sheet({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  return (
    <div
      className="palette-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div role="dialog" aria-modal="true" aria-labelledby={titleId} className="palette">
        <h2 id={titleId} className="palette-title">
          Keyboard shortcuts
        </h2>
        <p className="muted">
          Keys do nothing while you type in a field, and none halts, approves or changes anything by
          itself.
        </p>
        {/* Focusable, so the arrow keys scroll the list on a small screen. */}
        <div className="table-scroll" tabIndex={0} aria-label="the shortcuts">
          <table className="shortcuts">
            <thead>
              <tr>
                <th scope="col">Keys</th>
                <th scope="col">Does</th>
                <th scope="col">Where</th>
              </tr>
            </thead>
            <tbody>
              {SHORTCUTS.map((s) => (
                <tr key={s.keys.join(' ') + s.where}>
                  <td>
                    {s.keys.map((k, i) => (
                      <span key={k + String(i)}>
                        {i > 0 && ' '}
                        {k === '…' ? k : <kbd>{k}</kbd>}
                      </span>
                    ))}
                  </td>
                  <td>{s.does}</td>
                  <td>{s.where}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="actions">
          {/* Focus starts here, so Enter or Esc closes at once. */}
          <button type="button" autoFocus onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}

/** Keys pressed alone that only change what the next key means. */
const MODIFIERS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'CapsLock', 'AltGraph']);

/** Keep Tab inside the open sheet: from its last control to its first, and back. */
function trapTab(e: KeyboardEvent): void {
  const dialog = document.querySelector('.palette[aria-modal="true"]');
  if (dialog === null) return;
  const stops = [...dialog.querySelectorAll<HTMLElement>('button, [tabindex="0"]')];
  const first = stops[0];
  const last = stops[stops.length - 1];
  if (first === undefined || last === undefined) return;
  const at = document.activeElement;
  if (e.shiftKey ? at === first || !dialog.contains(at) : at === last || !dialog.contains(at)) {
    e.preventDefault();
    (e.shiftKey ? last : first).focus();
  }
}

/** Mounted once in the frame: answers `?` and `g` chords, and shows the sheet. */
export function Shortcuts() {
  const [open, setOpen] = useState(false);
  const [chord, setChord] = useState(false);
  const state = useRef({ open, chord });
  state.current = { open, chord };
  const before = useRef<Element | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Closing gives the focus back to where it was when the sheet opened.
  const close = useCallback((): void => {
    setOpen(false);
    if (before.current instanceof HTMLElement) before.current.focus();
  }, []);

  useEffect(() => {
    const show = (): void => {
      before.current = document.activeElement;
      setOpen(true);
    };
    const endChord = (): void => {
      clearTimeout(timer.current);
      setChord(false);
    };
    // Capture on the window: this runs before any page's own keys, so the key after `g` (say
    // `p` on Live, `c` on an episode) goes to the chord, and nothing behind the open sheet
    // reacts.
    const onKey = (e: KeyboardEvent): void => {
      if (state.current.open) {
        if (e.key === 'Escape') {
          e.preventDefault();
          close();
        } else if (e.key === 'Tab') trapTab(e);
        // Enter and Space still press the focused Close button.
        if (e.key !== 'Enter' && e.key !== ' ') e.stopPropagation();
        return;
      }
      if (state.current.chord) {
        if (MODIFIERS.has(e.key)) return;
        // Whatever ends the chord is the chord's: a page letter goes there, `?` lists them,
        // any other key is dropped, never passed on to the page (unless typed into a field).
        endChord();
        if (!isShortcutKey(e)) return;
        e.preventDefault();
        e.stopPropagation();
        const to = GO_TO[e.key];
        if (to !== undefined) navigate(to.path);
        else if (e.key === '?') show();
        return;
      }
      if (!isShortcutKey(e)) return;
      if (e.key === 'g') {
        e.preventDefault();
        e.stopPropagation();
        setChord(true);
        timer.current = setTimeout(endChord, CHORD_MS);
      } else if (e.key === '?') {
        e.preventDefault();
        e.stopPropagation();
        show();
      }
    };
    openers.add(show);
    window.addEventListener('keydown', onKey, true);
    return () => {
      openers.delete(show);
      window.removeEventListener('keydown', onKey, true);
      clearTimeout(timer.current);
    };
  }, [close]);

  return (
    <>
      {/* Always in the page, so a screen reader hears the hint when it is written. */}
      <p className={chord ? 'chord-hint' : 'visually-hidden'} role="status">
        {chord ? `g — then a letter: ${Object.keys(GO_TO).join(' ')} (? lists them)` : ''}
      </p>
      {open && <Sheet onClose={close} />}
    </>
  );
}

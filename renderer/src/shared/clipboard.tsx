// Copying to the clipboard where the console runs: over plain http from another machine (the
// usual way to reach port 8700) a browser offers no Clipboard API, so the old way (a selected
// hidden textarea) is tried, and a person is told when neither worked.
import { useState } from 'react';

/** Put `text` on the clipboard; outside a secure context, through a selected hidden textarea. */
export async function copyText(text: string): Promise<boolean> {
  if (typeof navigator.clipboard !== 'undefined') {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // denied (a headless browser, a policy): the old way below
    }
  }
  // Fixed at the top, focused without scrolling, and the focus given back after: copying
  // must not move the page or lose the row a person was on.
  const before = document.activeElement;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  area.style.position = 'fixed';
  area.style.top = '0';
  document.body.appendChild(area);
  area.focus({ preventScroll: true });
  area.select();
  try {
    return document.execCommand('copy');
  } finally {
    area.remove();
    if (before instanceof HTMLElement) before.focus({ preventScroll: true });
  }
}

/** A Copy button that says what happened: copied, or select the text yourself. */
export function CopyButton({
  text,
  what,
  label = 'Copy',
}: {
  text: string;
  what: string;
  label?: string;
}) {
  const [said, setSaid] = useState<string | null>(null);
  return (
    <span className="copy">
      <button
        type="button"
        className="quiet"
        aria-label={`Copy ${what}`}
        onClick={() => {
          void copyText(text).then((ok) => {
            setSaid(ok ? 'Copied.' : 'Could not copy: select the text and press Ctrl+C (⌘C).');
          });
        }}
      >
        {label}
      </button>
      {/* Always there, so a screen reader hears what is written into it. */}
      <span className={said === 'Copied.' ? 'ok' : 'hint'} role="status">
        {said === null ? '' : ` ${said}`}
      </span>
    </span>
  );
}

// An anchored element (a permalink's row) stays in view while the page settles: parts that
// arrive after it (a lazily loaded section above it, a banner) would otherwise push it out of
// sight, and the browser's scroll anchoring does not always hold it (not at the top of the
// page, nor when the node it anchored to is a placeholder that goes away).

/** The person took over: any of these stops the re-centring. */
const TAKE_OVER = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;

/**
 * Centre `el` now, and again whenever the page's size changes, for `ms` or until the person
 * scrolls, types or clicks. Returns the stop.
 */
export function keepInView(el: Element, ms = 5000): () => void {
  const centre = (): void => {
    if (el.isConnected) el.scrollIntoView({ block: 'center' });
  };
  centre();
  if (typeof ResizeObserver === 'undefined') return () => undefined;
  const observer = new ResizeObserver(centre);
  observer.observe(document.body);
  const stop = (): void => {
    observer.disconnect();
    clearTimeout(timer);
    for (const name of TAKE_OVER) window.removeEventListener(name, stop, true);
  };
  const timer = setTimeout(stop, ms);
  for (const name of TAKE_OVER)
    window.addEventListener(name, stop, { capture: true, passive: true });
  return stop;
}

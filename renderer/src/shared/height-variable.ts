// An element's height as a CSS variable on the root, kept current as it wraps or grows, for
// what sticks under it and for scroll-padding.
import { useCallback, useEffect, useRef } from 'react';

/** The ref to give the element (it may mount later than its component). */
export function useHeightVariable(name: `--${string}`): (node: HTMLElement | null) => void {
  const stop = useRef<() => void>(() => undefined);
  useEffect(() => () => stop.current(), []);
  return useCallback(
    (node: HTMLElement | null) => {
      stop.current();
      stop.current = () => undefined;
      if (node === null || typeof ResizeObserver === 'undefined') return;
      const root = document.documentElement;
      const set = (): void => {
        root.style.setProperty(name, `${String(node.offsetHeight)}px`);
      };
      set();
      const observer = new ResizeObserver(set);
      observer.observe(node);
      stop.current = () => {
        observer.disconnect();
        root.style.removeProperty(name);
      };
    },
    [name],
  );
}

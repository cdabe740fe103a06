// URL = state: the page is the path, its filters the query string. A few lines over the
// History API rather than a router library (docs/decisions.md).
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => {
  for (const l of listeners) l();
});

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = (): string => window.location.pathname + window.location.search;

/** The current path and query; re-renders on navigation. */
export function useLocation(): { path: string; params: URLSearchParams } {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  return { path: url.pathname, params: url.searchParams };
}

/** Go to a path (push), or replace the current entry (filters typed into a page). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (options.replace === true) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const l of listeners) l();
}

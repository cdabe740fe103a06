// What the list pages (Episodes, Incidents) share: a filter change as a new address (the URL
// holds the view; a new filter starts again at the first page), and the Newer/Older pager.
import { navigate } from './router.js';

/** `base` with `params`, `key` set to `value` (removed when null or empty). */
export function paramHref(
  base: string,
  params: URLSearchParams,
  key: string,
  value: string | null,
): string {
  const next = new URLSearchParams(params);
  if (value === null || value === '') next.delete(key);
  else next.set(key, value);
  if (key !== 'offset') next.delete('offset');
  const text = next.toString();
  return `${base}${text === '' ? '' : `?${text}`}`;
}

/** A facet's comma list with `value` ticked or unticked (the rail's checkboxes). */
export function toggled(chosen: ReadonlySet<string>, value: string): string {
  const next = new Set(chosen);
  if (next.has(value)) next.delete(value);
  else next.add(value);
  return [...next].join(',');
}

/** Newer/Older over `total` rows, `limit` a page; `at(offset)` is the address of a page. */
export function Pager({
  offset,
  limit,
  total,
  at,
}: {
  offset: number;
  limit: number;
  total: number;
  at: (offset: number) => string;
}) {
  if (total <= limit) return null;
  return (
    <nav className="pager" aria-label="pages">
      <button
        type="button"
        disabled={offset === 0}
        onClick={() => {
          navigate(at(Math.max(0, offset - limit)));
        }}
      >
        ← Newer
      </button>
      <span>
        {String(offset + 1)}–{String(Math.min(offset + limit, total))} of{' '}
        {total.toLocaleString('en')}
      </span>
      <button
        type="button"
        disabled={offset + limit >= total}
        onClick={() => {
          navigate(at(offset + limit));
        }}
      >
        Older →
      </button>
    </nav>
  );
}

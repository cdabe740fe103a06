// Going through a list one episode at a time (console.md D.2 `[` / `]`): the Episodes page
// remembers the order it showed, in this tab only (sessionStorage), and an episode opened
// from it offers the previous and the next in that order, with where it stands.

const KEY = 'svc.episodes.browse';

export interface Browse {
  /** the list's address, to go back to it */
  readonly from: string;
  readonly ids: readonly string[];
}

/** Remember the order of the list at `from` (what the Episodes page shows). */
export function rememberList(from: string, ids: readonly string[]): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ from, ids }));
  } catch {
    // storage full or refused: browsing by keys is a convenience
  }
}

/** The list remembered in this tab, or null. */
export function rememberedList(): Browse | null {
  try {
    const held = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as unknown;
    if (typeof held !== 'object' || held === null) return null;
    const { from, ids } = held as { from?: unknown; ids?: unknown };
    if (typeof from !== 'string' || !Array.isArray(ids)) return null;
    return { from, ids: ids.filter((i): i is string => typeof i === 'string') };
  } catch {
    return null;
  }
}

export interface Neighbours {
  readonly previous: string | null;
  readonly next: string | null;
  /** 1-based place in the list */
  readonly at: number;
  readonly of: number;
  readonly from: string;
}

/** Where `id` stands in the remembered list; null when it is not in it. */
export function neighbours(list: Browse | null, id: string): Neighbours | null {
  const i = list?.ids.indexOf(id) ?? -1;
  if (list === null || i < 0) return null;
  return {
    previous: list.ids[i - 1] ?? null,
    next: list.ids[i + 1] ?? null,
    at: i + 1,
    of: list.ids.length,
    from: list.from,
  };
}

// Never move the reader (console.md C.2, complaint B2): while Live is paused the list stays as
// it was; while the reader has scrolled down or has focus in the list, rows that arrive wait
// behind "N new · show" instead of pushing the rows being read down. Rows that come in are
// highlighted for a moment, and every arrival is said to screen readers as it happens.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { type RunningEpisode } from './api.js';
import { announcement } from './live-rows.js';

/**
 * How long a new row stays marked: its fade (live.css) lasts about a second; without motion
 * the mark is a bar that simply stands, a little longer so that it is seen.
 */
const freshMs = (): number =>
  window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 3000 : 1200;

/** Scrolled further than this from the top, new rows wait. */
const SCROLLED_PX = 8;

export interface Held {
  /** The rows to show, in order, before any filter. */
  readonly rows: readonly RunningEpisode[];
  /** Rows that arrived and are not shown yet. */
  readonly pending: readonly RunningEpisode[];
  /** The seq the list froze at, or null when following. */
  readonly pausedAt: number | null;
  /** Rows just shown, to highlight. */
  readonly fresh: ReadonlySet<string>;
  /** The latest arrivals, as a sentence for an aria-live region. */
  readonly said: string;
  readonly pause: () => void;
  readonly resume: () => void;
  /** Show what waits (and stay paused, when paused). */
  readonly show: () => void;
}

const idsOf = (rows: readonly RunningEpisode[]): Set<string> =>
  new Set(rows.map((r) => r.episode_id));
const EMPTY: readonly RunningEpisode[] = [];

/** Whether the reader is in the list: scrolled down, or focus inside `area`. */
function useReading(area: RefObject<HTMLElement | null>): boolean {
  const [reading, setReading] = useState(false);
  useEffect(() => {
    const inArea = (node: EventTarget | null): boolean =>
      node instanceof Node && area.current !== null && area.current.contains(node);
    // On focusout the next focus is the event's relatedTarget: moving between two rows never
    // reads as leaving the list.
    const update = (focused: EventTarget | null): void => {
      setReading(window.scrollY > SCROLLED_PX || inArea(focused));
    };
    const onScroll = (): void => {
      update(document.activeElement);
    };
    const onFocusIn = (e: FocusEvent): void => {
      update(e.target);
    };
    const onFocusOut = (e: FocusEvent): void => {
      update(e.relatedTarget);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    document.addEventListener('focusin', onFocusIn);
    document.addEventListener('focusout', onFocusOut);
    return () => {
      window.removeEventListener('scroll', onScroll);
      document.removeEventListener('focusin', onFocusIn);
      document.removeEventListener('focusout', onFocusOut);
    };
  }, [area]);
  return reading;
}

export function useHeld(
  current: readonly RunningEpisode[] | undefined,
  seq: number | undefined,
  area: RefObject<HTMLElement | null>,
): Held {
  const reading = useReading(area);
  const [paused, setPaused] = useState<{ seq: number; rows: readonly RunningEpisode[] } | null>(
    null,
  );
  // The rows admitted to the list while the reader reads; null until the first answer.
  const [shown, setShown] = useState<ReadonlySet<string> | null>(null);
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  const [said, setSaid] = useState('');
  const known = useRef<Set<string> | null>(null);
  const rows = current ?? EMPTY;

  // Say every arrival once, shown or not (the first answer is the page, not news).
  useEffect(() => {
    if (current === undefined) return;
    const before = known.current;
    known.current = idsOf(current);
    if (before === null) return;
    const arrived = current.filter((r) => !before.has(r.episode_id));
    if (arrived.length > 0) setSaid(announcement(arrived));
  }, [current]);

  const flash = useCallback((ids: readonly string[]) => {
    if (ids.length > 0) setFresh(new Set(ids));
  }, []);
  useEffect(() => {
    if (fresh.size === 0) return;
    const t = setTimeout(() => {
      setFresh(new Set());
    }, freshMs());
    return () => {
      clearTimeout(t);
    };
  }, [fresh]);

  // Following (not paused, not reading): everything is shown, and what is new lights up.
  useEffect(() => {
    if (current === undefined || paused !== null || reading) return;
    const ids = idsOf(current);
    if (shown === null) {
      setShown(ids);
      return;
    }
    const added = [...ids].filter((id) => !shown.has(id));
    if (added.length > 0 || ids.size !== shown.size) setShown(ids);
    flash(added);
  }, [current, paused, reading, shown, flash]);

  let visible: readonly RunningEpisode[] = rows;
  let pending: readonly RunningEpisode[] = EMPTY;
  if (paused !== null) {
    visible = paused.rows;
    const frozen = idsOf(paused.rows);
    pending = rows.filter((r) => !frozen.has(r.episode_id));
  } else if (reading && shown !== null) {
    visible = rows.filter((r) => shown.has(r.episode_id));
    pending = rows.filter((r) => !shown.has(r.episode_id));
  }

  return {
    rows: visible,
    pending,
    pausedAt: paused?.seq ?? null,
    fresh,
    said,
    pause: () => {
      setPaused({ seq: seq ?? 0, rows });
    },
    resume: () => {
      setPaused(null);
    },
    show: () => {
      flash(pending.map((r) => r.episode_id));
      if (paused !== null) setPaused({ seq: seq ?? paused.seq, rows });
      else {
        setShown(idsOf(rows));
        window.scrollTo({ top: 0 });
      }
    },
  };
}

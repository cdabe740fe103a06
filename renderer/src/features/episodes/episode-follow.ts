// Follow mode on a running episode's timeline (console brief C.4, D.2 `f`), as `tail -f` does
// it: rows that arrive are brought into view only while the reader is at the newest end;
// otherwise nothing moves and they are counted ("3 new below"). `f`, or the count, jumps to
// the newest row and follows from there.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';

/** How far past the viewport the newest row may end and still count as "at the newest end". */
const SLACK_PX = 48;

/** The newest row: the last in oldest-first order, the first in newest-first. */
function newestRow(list: HTMLElement | null, newestFirst: boolean): Element | null {
  if (list === null) return null;
  return newestFirst ? list.firstElementChild : list.lastElementChild;
}

/** Whether `row` is on screen (with some slack); no row counts as on screen. */
function onScreen(row: Element | null | undefined): boolean {
  if (row === null || row === undefined) return true;
  const box = row.getBoundingClientRect();
  return box.top < window.innerHeight + SLACK_PX && box.bottom > -SLACK_PX;
}

/** Whether the newest row is on screen, so the reader is where new rows appear. */
export function newestInView(list: HTMLElement | null, newestFirst: boolean): boolean {
  return onScreen(newestRow(list, newestFirst));
}

/** How many of `seqs` (the rows shown) are newer than `seen`. */
export function countNewer(seqs: readonly number[], seen: number): number {
  return seqs.reduce((n, s) => (s > seen ? n + 1 : n), 0);
}

export interface Follow {
  /** Whether new rows are brought into view as they arrive. */
  readonly following: boolean;
  /** Rows that arrived while the reader was elsewhere. */
  readonly unseen: number;
  /** Scroll to the newest row and follow from there (`f`). */
  readonly jump: () => void;
}

/**
 * Follow the timeline `list` whose shown rows have `seqs`. While `live` is false (a closed
 * episode) nothing arrives: `jump` still goes to the newest row.
 */
export function useFollow(
  list: RefObject<HTMLElement | null>,
  seqs: readonly number[],
  live: boolean,
  newestFirst: boolean,
): Follow {
  const newest = seqs.length === 0 ? 0 : Math.max(...seqs);
  const [following, setFollowing] = useState(false);
  // The newest seq the reader has had in view (or chose to skip by jumping).
  const [seen, setSeen] = useState(newest);
  const state = useRef({ following, newest, newestFirst });
  state.current = { following, newest, newestFirst };
  // The newest seq at the last arrival: the row the reader was at, if following.
  const before = useRef(newest);

  const bringNewestIntoView = useCallback((): void => {
    newestRow(list.current, state.current.newestFirst)?.scrollIntoView({
      block: state.current.newestFirst ? 'start' : 'end',
    });
  }, [list]);

  const jump = useCallback((): void => {
    bringNewestIntoView();
    setFollowing(true);
    setSeen((s) => Math.max(s, state.current.newest));
  }, [bringNewestIntoView]);

  // Reading where rows arrive is following; scrolling away stops it.
  useEffect(() => {
    let frame = 0;
    const look = (): void => {
      frame = 0;
      const atNewest = newestInView(list.current, state.current.newestFirst);
      setFollowing(atNewest);
      if (atNewest) setSeen((s) => Math.max(s, state.current.newest));
    };
    const onScroll = (): void => {
      if (frame === 0) frame = requestAnimationFrame(look);
    };
    look();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      window.removeEventListener('scroll', onScroll);
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [list]);

  // New rows: brought into view before they paint when following, else only counted. The
  // page may have moved under the reader with no scroll (the diagnosis loading above): the
  // row that was newest must still be on screen, or the reader is elsewhere now.
  useLayoutEffect(() => {
    const was = before.current;
    before.current = newest;
    if (!live || !state.current.following || newest <= was) return;
    const wasRow = list.current?.querySelector(`[data-seq="${String(was)}"]`);
    if (!onScreen(wasRow)) {
      setFollowing(false);
      return;
    }
    bringNewestIntoView();
    setSeen((s) => Math.max(s, newest));
  }, [newest, live, list, bringNewestIntoView]);

  return { following: live && following, unseen: live ? countNewer(seqs, seen) : 0, jump };
}

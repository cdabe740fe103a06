// The episode's timeline, merged by seq (console brief C.4): every row shows its seq and is a
// permalink (`?seq=N`: scrolled to and highlighted on load), links the objects it names and
// its audit entry; chips filter by kind and a toggle flips the order, both in the URL
// (`kind`, `order`); keys 1–8 pick a chip, j and k move between rows, c copies a row's link,
// f follows a running episode's newest rows (D.2). Colour only on rows where state changed.
import { useEffect, useMemo, useRef, useState } from 'react';
import { type Episode } from './api.js';
import { Link, Time } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import { isShortcutKey } from '../../shared/keys.js';
import { keepInView } from '../../shared/keep-in-view.js';
import { copyText } from '../../shared/clipboard.js';
import { useFollow } from './episode-follow.js';
import {
  CHANGE_MARK,
  TIMELINE_KINDS,
  timelineRows,
  type Row,
  type TimelineKind,
} from './episode-timeline-rows.js';

const isKind = (k: string | null): k is TimelineKind =>
  TIMELINE_KINDS.some(([id]) => id === k && id !== 'all');

function TimelineRow({
  row,
  episodeId,
  anchored,
}: {
  row: Row;
  episodeId: string;
  anchored: boolean;
}) {
  const t = row.event;
  const seq = String(t.seq);
  return (
    <li
      data-seq={seq}
      data-kind={row.kind}
      data-changed={row.change ?? undefined}
      aria-current={anchored ? 'true' : undefined}
      className="tl-row"
    >
      <Link to={`/episodes/${encodeURIComponent(episodeId)}?seq=${seq}`} className="seqno tl-seq">
        #{seq}
      </Link>
      <span className="tl-time">
        <Time iso={t.ts} />
      </span>
      <span className="tl-body">
        <code className="tl-type">{t.type}</code>
        {row.change !== null && <span className="tl-change">{CHANGE_MARK[row.change]}</span>}{' '}
        <span className="tl-summary">{row.summary}</span>{' '}
        <span className="muted tl-actor">by {t.actor}</span>
        {row.links.map((l) => (
          <span key={l.to}>
            {' · '}
            <Link to={l.to}>{l.label}</Link>
          </span>
        ))}
        {' · '}
        {/* "ledger", not "audit": the navigation's Audit link keeps a name of its own. */}
        <Link to={`/audit?seq=${seq}`} className="tl-audit">
          ledger
        </Link>
      </span>
    </li>
  );
}

export function Timeline({ episode }: { episode: Episode }) {
  const { params } = useLocation();
  const kindParam = params.get('kind');
  const kind: TimelineKind | 'all' = isKind(kindParam) ? kindParam : 'all';
  const newest = params.get('order') === 'newest';
  const anchor = Number(params.get('seq') ?? Number.NaN);
  const rows = useMemo(
    () => timelineRows(episode.timeline, episode.episode_id),
    [episode.timeline, episode.episode_id],
  );
  const counts = useMemo(() => {
    const c = new Map<string, number>();
    for (const r of rows) c.set(r.kind, (c.get(r.kind) ?? 0) + 1);
    return c;
  }, [rows]);
  // The anchored row stays in view whatever the filter, so a shared link always shows it.
  const shown = rows.filter((r) => kind === 'all' || r.kind === kind || r.event.seq === anchor);
  if (newest) shown.reverse();
  const listRef = useRef<HTMLOListElement>(null);
  const follow = useFollow(
    listRef,
    shown.map((r) => r.event.seq),
    episode.live,
    newest,
  );
  const jumpRef = useRef(follow.jump);
  jumpRef.current = follow.jump;

  /** Change one view parameter, keeping the rest (the view is a link). */
  const set = (key: string, value: string | null): void => {
    const next = new URLSearchParams(params);
    if (value === null) next.delete(key);
    else next.set(key, value);
    const q = next.toString();
    navigate(`/episodes/${encodeURIComponent(episode.episode_id)}${q === '' ? '' : `?${q}`}`, {
      replace: true,
    });
  };
  const setRef = useRef(set);
  setRef.current = set;

  // Scroll to the anchored row once per anchor, when it has rendered, and keep it there while
  // the page settles (the diagnosis above loads on demand); refetches leave it be.
  const scrolled = useRef<number | null>(null);
  const stopKeeping = useRef<() => void>(() => undefined);
  useEffect(() => {
    if (Number.isNaN(anchor) || scrolled.current === anchor) return;
    const el = listRef.current?.querySelector(`[data-seq="${String(anchor)}"]`);
    if (!el) return;
    scrolled.current = anchor;
    stopKeeping.current();
    stopKeeping.current = keepInView(el);
  });
  useEffect(() => () => stopKeeping.current(), []);

  // `c` copies the link to the focused row (else the highlighted one, else the episode);
  // `j` and `k` move the focus down and up the rows' permalinks; `f` goes to the newest row.
  const [copied, setCopied] = useState<string | null>(null);
  // The key handler is registered once; it reads the episode and anchor of the last render.
  const current = useRef({ id: episode.episode_id, anchor });
  current.current = { id: episode.episode_id, anchor };

  useEffect(() => {
    const focusedSeq = (): string | null =>
      document.activeElement?.closest('[data-seq]')?.getAttribute('data-seq') ?? null;
    const onKey = (e: KeyboardEvent): void => {
      if (!isShortcutKey(e)) return;
      if (e.key === 'f') {
        e.preventDefault();
        jumpRef.current();
        return;
      }
      if (e.key === 'c') {
        e.preventDefault();
        const { id, anchor: at } = current.current;
        const seq = focusedSeq() ?? (Number.isNaN(at) ? null : String(at));
        const link =
          `${window.location.origin}/episodes/${encodeURIComponent(id)}` +
          (seq === null ? '' : `?seq=${seq}`);
        void copyText(link).then((ok) => {
          const what = seq === null ? 'this episode' : `#${seq}`;
          setCopied(ok ? `Copied the link to ${what}: ${link}` : `Copy the link by hand: ${link}`);
        });
        return;
      }
      if (e.key === 'j' || e.key === 'k') {
        const links = [...(listRef.current?.querySelectorAll<HTMLElement>('.tl-seq') ?? [])];
        if (links.length === 0) return;
        e.preventDefault();
        const at = links.findIndex(
          (l) => l.closest('[data-seq]')?.getAttribute('data-seq') === focusedSeq(),
        );
        const next =
          at < 0 ? 0 : Math.min(links.length - 1, Math.max(0, at + (e.key === 'j' ? 1 : -1)));
        links[next]?.focus();
        return;
      }
      const i = Number(e.key);
      const chosen = Number.isInteger(i) && i >= 1 ? TIMELINE_KINDS[i - 1] : undefined;
      if (chosen === undefined) return;
      setRef.current('kind', chosen[0] === 'all' ? null : chosen[0]);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <section aria-labelledby="timeline-heading" className="episode-timeline">
      <h2 id="timeline-heading">Timeline</h2>
      <div className="tl-controls">
        <div role="group" aria-label="timeline filters" className="tl-chips">
          {TIMELINE_KINDS.map(([id, label], i) => (
            <button
              key={id}
              type="button"
              aria-pressed={kind === id}
              title={`Show ${label.toLowerCase()} (key ${String(i + 1)})`}
              onClick={() => set('kind', id === 'all' ? null : id)}
            >
              {label}{' '}
              <span className="num">{id === 'all' ? rows.length : (counts.get(id) ?? 0)}</span>
            </button>
          ))}
        </div>
        <div role="group" aria-label="timeline order" className="segmented">
          <button type="button" aria-pressed={!newest} onClick={() => set('order', null)}>
            Oldest first
          </button>
          <button type="button" aria-pressed={newest} onClick={() => set('order', 'newest')}>
            Newest first
          </button>
        </div>
        {episode.live && (
          <button
            type="button"
            className="tl-follow"
            aria-pressed={follow.following}
            title="Go to the newest row and keep it in view as rows arrive (key f)"
            onClick={follow.jump}
          >
            {follow.following ? '● Following the newest' : 'Follow the newest'} <kbd>f</kbd>
          </button>
        )}
      </div>
      {/* Always there, so a screen reader hears what is written into it. */}
      <p className="ok tl-copied" role="status">
        {copied ?? ''}
      </p>
      {/* Heard as rows arrive out of sight; the pill says the same to the eye. */}
      <p className="visually-hidden" aria-live="polite">
        {follow.unseen > 0 ? `${String(follow.unseen)} new ${newest ? 'above' : 'below'}` : ''}
      </p>
      {follow.unseen > 0 && (
        <button type="button" className="new-pill" onClick={follow.jump}>
          {follow.unseen} new {newest ? 'above' : 'below'} · show
        </button>
      )}
      {shown.length === 0 && <p className="muted">No {kind} events in this episode.</p>}
      <ol className="timeline" aria-label="timeline" ref={listRef}>
        {shown.map((r) => (
          <TimelineRow
            key={r.event.seq}
            row={r}
            episodeId={episode.episode_id}
            anchored={r.event.seq === anchor}
          />
        ))}
      </ol>
      {episode.more && (
        <p className="muted">
          Showing the first {episode.timeline.length} events; the rest are in the{' '}
          <Link to={`/audit?query=${encodeURIComponent(`trace:${episode.episode_id}`)}`}>
            ledger
          </Link>
          .
        </p>
      )}
    </section>
  );
}

// The Episodes table (console brief C.3, D.2): rows to tick for bulk export or a verdict
// (`x` ticks the focused row, Shift+x the range from the last ticked one), `j`/`k` to move
// along the rows and Enter to open one, and `Space` to peek at a row in a side panel without
// leaving the list. What is ticked is kept by episode, so a refetch or another page keeps it.
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { EpisodeRow } from './api.js';
import { Link, Time, duration } from '../../shared/parts.js';
import { SeverityMark } from '../../shared/severity.js';
import { isOnControl, isShortcutKey } from '../../shared/keys.js';
import { saveBlob } from '../../shared/download.js';
import { toCsv } from './episodes-export.js';
import { EpisodePeek } from './episodes-peek.js';
import { BulkVerdict } from './episodes-bulk-verdict.js';

/** The row holding the focus, by its episode id; null when the focus is outside the rows. */
const focusedRow = (): string | null =>
  document.activeElement?.closest('tr[data-episode]')?.getAttribute('data-episode') ?? null;

/**
 * The ticked rows, and ticking one, or a range from the last one ticked. While `locked` (a
 * verdict being recorded for them) nothing is ticked or unticked.
 */
function useTicked(rows: readonly EpisodeRow[], locked: boolean) {
  const [ticked, setTicked] = useState<ReadonlyMap<string, EpisodeRow>>(new Map());
  const last = useRef<string | null>(null);
  // A refetch (a verdict recorded, say) brings new values: ticked rows take them.
  useEffect(() => {
    setTicked((held) => {
      if (!rows.some((r) => held.has(r.episode_id) && held.get(r.episode_id) !== r)) return held;
      const next = new Map(held);
      for (const r of rows) if (next.has(r.episode_id)) next.set(r.episode_id, r);
      return next;
    });
  }, [rows]);
  /** Tick (or untick) every row of `span`; `on` decides from what is ticked now. */
  const setRows = (
    span: readonly EpisodeRow[],
    on: (held: ReadonlyMap<string, EpisodeRow>) => boolean,
  ): void => {
    if (locked) return;
    setTicked((held) => {
      const next = new Map(held);
      const tick = on(held);
      for (const r of span) {
        if (tick) next.set(r.episode_id, r);
        else next.delete(r.episode_id);
      }
      return next;
    });
  };
  const toggle = (id: string, range: boolean): void => {
    const at = rows.findIndex((r) => r.episode_id === id);
    if (at < 0 || locked) return;
    const from =
      range && last.current !== null ? rows.findIndex((r) => r.episode_id === last.current) : -1;
    setRows(
      from < 0 ? rows.slice(at, at + 1) : rows.slice(Math.min(from, at), Math.max(from, at) + 1),
      (held) => !held.has(id),
    );
    last.current = id;
  };
  const setPage = (on: boolean): void => {
    setRows(rows, () => on);
  };
  const clear = (): void => {
    if (!locked) setTicked(new Map());
  };
  return { ticked, toggle, setPage, clear };
}

/** "3 ticked · Export CSV · Export JSON · Clear · a verdict for them", over the table while any
 * row is ticked. */
function BulkBar({
  rows,
  onClear,
  onBusy,
  busy,
}: {
  rows: readonly EpisodeRow[];
  onClear: () => void;
  onBusy: (busy: boolean) => void;
  busy: boolean;
}) {
  const stamp = (): string => new Date().toISOString().replace(/[:.]/g, '');
  return (
    <div className="bulk-bar" role="group" aria-label="ticked episodes">
      <strong>{rows.length} ticked</strong>
      <button
        type="button"
        onClick={() => {
          saveBlob(`episodes-${stamp()}.csv`, new Blob([toCsv(rows)], { type: 'text/csv' }));
        }}
      >
        Export CSV
      </button>
      <button
        type="button"
        onClick={() => {
          const json = `${JSON.stringify(rows, null, 2)}\n`;
          saveBlob(`episodes-${stamp()}.json`, new Blob([json], { type: 'application/json' }));
        }}
      >
        Export JSON
      </button>
      <button
        type="button"
        className="linkish"
        onClick={onClear}
        disabled={busy}
        title={busy ? 'Kept until the verdicts are recorded' : undefined}
      >
        Clear
      </button>
      <BulkVerdict rows={rows} onBusy={onBusy} />
    </div>
  );
}

export function EpisodesTable({
  rows,
  grouped,
  sortHeader,
}: {
  rows: readonly EpisodeRow[];
  /** one row per incident: a Related column */
  grouped: boolean;
  sortHeader: (field: string, label: string, numeric?: boolean) => ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const { ticked, toggle, setPage, clear } = useTicked(rows, busy);
  const [peek, setPeek] = useState<EpisodeRow | null>(null);
  const table = useRef<HTMLTableElement>(null);
  /** Put the peek away, the focus back on the row it showed (the keyboard goes on there). */
  const closePeek = (): void => {
    if (peek !== null)
      table.current
        ?.querySelector<HTMLElement>(`tr[data-episode="${peek.episode_id}"] a.episode-link`)
        ?.focus();
    setPeek(null);
  };
  // The handler is registered once; it reads the rows of the last render.
  const current = useRef({ rows, toggle, peek, closePeek });
  current.current = { rows, toggle, peek, closePeek };

  useEffect(() => {
    const links = (): HTMLElement[] => [
      ...(table.current?.querySelectorAll<HTMLElement>('tbody a.episode-link') ?? []),
    ];
    const onKey = (e: KeyboardEvent): void => {
      if (!isShortcutKey(e) || e.defaultPrevented) return;
      if (e.key === 'Escape' && current.current.peek !== null) {
        current.current.closePeek();
        return;
      }
      const id = focusedRow();
      if (e.key === 'j' || e.key === 'k') {
        const all = links();
        if (all.length === 0) return;
        e.preventDefault();
        const at = all.findIndex((l) => l.closest('tr')?.getAttribute('data-episode') === id);
        const next =
          at < 0 ? 0 : Math.min(all.length - 1, Math.max(0, at + (e.key === 'j' ? 1 : -1)));
        all[next]?.focus();
        if (current.current.peek !== null) {
          const row = current.current.rows[next];
          if (row !== undefined) setPeek(row);
        }
        return;
      }
      if (id === null) return;
      if (e.key === 'x' || e.key === 'X') {
        e.preventDefault();
        current.current.toggle(id, e.shiftKey);
        return;
      }
      // Space on a tick box ticks it, on a button presses it: only elsewhere in a row it peeks.
      if (e.key === ' ' && !isOnControl(e.target)) {
        e.preventDefault();
        const row = current.current.rows.find((r) => r.episode_id === id) ?? null;
        setPeek((open) => (open?.episode_id === id ? null : row));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const allTicked = rows.length > 0 && rows.every((r) => ticked.has(r.episode_id));
  const someTicked = rows.some((r) => ticked.has(r.episode_id));
  return (
    <>
      {ticked.size > 0 && (
        <BulkBar rows={[...ticked.values()]} onClear={clear} onBusy={setBusy} busy={busy} />
      )}
      {/* Mounted with no rows too (a filter that matches nothing), so the ticks stay. */}
      {rows.length > 0 && (
        <div className="table-scroll">
          <table className="table" aria-label="closed episodes" ref={table}>
            <thead>
              <tr>
                <th className="tick">
                  <input
                    type="checkbox"
                    aria-label="Tick every row on this page"
                    checked={allTicked}
                    ref={(el) => {
                      if (el !== null) el.indeterminate = someTicked && !allTicked;
                    }}
                    onChange={() => {
                      setPage(!allTicked);
                    }}
                  />
                </th>
                {sortHeader('t_open', 'Started')}
                <th>Severity</th>
                {sortHeader('service', 'Service')}
                <th>Alerts</th>
                {grouped && <th>Related</th>}
                {sortHeader('result', 'Result')}
                {sortHeader('decision', 'Decision')}
                {sortHeader('confidence', 'Confidence')}
                {sortHeader('duration', 'Duration', true)}
                <th>Verdict</th>
                <th>Episode</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr
                  key={e.episode_id}
                  data-episode={e.episode_id}
                  className={
                    [
                      ticked.has(e.episode_id) ? 'ticked' : '',
                      peek?.episode_id === e.episode_id ? 'peeked' : '',
                    ]
                      .join(' ')
                      .trim() || undefined
                  }
                >
                  <td className="tick">
                    <input
                      type="checkbox"
                      aria-label={`Tick ${e.episode_id}`}
                      checked={ticked.has(e.episode_id)}
                      onChange={(ev) => {
                        toggle(e.episode_id, (ev.nativeEvent as MouseEvent).shiftKey);
                      }}
                    />
                  </td>
                  <td>
                    <Time iso={e.t_open} />
                  </td>
                  <td>
                    <SeverityMark severity={e.severity} />
                  </td>
                  <td>{e.service}</td>
                  <td>{e.alerts.join(', ')}</td>
                  {grouped && (
                    <td>
                      {e.related === 0 || e.related === undefined
                        ? '—'
                        : `+${String(e.related)} (${(e.services ?? []).join(', ')})`}
                    </td>
                  )}
                  <td>{e.result}</td>
                  <td>{e.decision}</td>
                  <td>{e.confidence}</td>
                  <td className="num">{duration(e.duration_s)}</td>
                  <td>{e.verdict ?? '—'}</td>
                  <td>
                    <Link to={`/episodes/${e.episode_id}`} className="episode-link">
                      {e.episode_id}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {peek !== null && <EpisodePeek row={peek} onClose={closePeek} />}
    </>
  );
}

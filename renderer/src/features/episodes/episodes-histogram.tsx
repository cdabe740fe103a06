// The per-day histogram of the Episodes page (console.md C.3): bars stacked by result in the
// Okabe–Ito palette with "taken back" hatched, axes, a legend in words, one tooltip per day by
// pointer or keyboard, and a selection (click, drag, Shift+←/→) that writes since/until into
// the URL, so the table and scorecard follow. "Show as table" gives the same numbers; the
// median restore and handover times per day sit underneath on the same x scale.
import { AxisBottom, AxisLeft } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleBand, scaleLinear } from '@visx/scale';
import { useLayoutEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { type HistogramDay } from './api.js';
import { duration } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import {
  SERIES,
  dayRows,
  describeDay,
  segments,
  selectionUrl,
  shortDate,
  slot0,
  tickDays,
  timesInWords,
  type DayRow,
} from './episodes-histogram-model.js';
import { TimesChart } from './episodes-times-chart.js';
import './episodes-histogram.css';

const HEIGHT = 190;
const MARGIN = { top: 10, right: 8, bottom: 26, left: 52 };
const TIP_WIDTH = 230;

/** The width of the element, followed as the window changes. */
function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el === null) return;
    setWidth(el.clientWidth);
    const watch = new ResizeObserver(() => {
      setWidth(el.clientWidth);
    });
    watch.observe(el);
    return () => {
      watch.disconnect();
    };
  }, []);
  return [ref, width] as const;
}

type Range = [number, number];
const ordered = ([a, b]: Range): Range => (a <= b ? [a, b] : [b, a]);

export function EpisodesHistogram({ days }: { days: readonly HistogramDay[] }) {
  const { path, params } = useLocation();
  const since = params.get('since');
  const until = params.get('until');
  const { rows, cut } = dayRows(days, since, until);
  const [asTable, setAsTable] = useState(false);
  const [wrap, width] = useWidth<HTMLDivElement>();

  const select = (range: Range | null) => {
    const r = range === null ? null : ordered(range);
    navigate(
      selectionUrl(
        path,
        params,
        r === null ? null : { from: rows[r[0]]!.day, to: rows[r[1]]!.day },
      ),
      { replace: true },
    );
  };
  const selected = since !== null || until !== null;
  const lastSelected = until === null ? null : new Date(Date.parse(until) - 1);
  return (
    <figure className="histogram" aria-label="episodes per day">
      <figcaption className="histogram-head">
        <strong>Episodes per day</strong>
        {selected && (
          <span className="histogram-selection">
            Selected {since === null ? 'up to' : since.slice(0, 10)}
            {lastSelected !== null &&
              (since === null || lastSelected.toISOString().slice(0, 10) !== since.slice(0, 10)) &&
              `${since === null ? ' ' : ' to '}${lastSelected.toISOString().slice(0, 10)}`}{' '}
            <button type="button" onClick={() => select(null)}>
              Clear selection
            </button>
          </span>
        )}
        <button
          type="button"
          className="histogram-toggle"
          onClick={() => {
            setAsTable(!asTable);
          }}
        >
          {asTable ? 'Show as chart' : 'Show as table'}
        </button>
      </figcaption>
      {cut && (
        <p className="hint">The newest {String(rows.length)} days; pick a range for older.</p>
      )}
      {rows.length === 0 && <p className="muted">No closed episode in this window.</p>}
      {rows.length > 0 && <Legend rows={rows} />}
      <div ref={wrap} className="histogram-body">
        {rows.length > 0 && asTable && <DayTable rows={rows} />}
        {rows.length > 0 && !asTable && width > 0 && (
          <Charts rows={rows} width={width} onSelect={select} />
        )}
      </div>
    </figure>
  );
}

function Legend({ rows }: { rows: readonly DayRow[] }) {
  const sums = Object.fromEntries(
    SERIES.map((s) => [s.key, rows.reduce((n, r) => n + r.counts[s.key], 0)]),
  );
  return (
    <ul className="histogram-legend" aria-label="legend">
      {SERIES.map((s) => (
        <li key={s.key}>
          <span className={`swatch series-${s.key}`} aria-hidden="true" />
          {s.label} <span className="num">{String(sums[s.key] ?? 0)}</span>
        </li>
      ))}
    </ul>
  );
}

function Charts({
  rows,
  width,
  onSelect,
}: {
  rows: readonly DayRow[];
  width: number;
  onSelect: (range: Range) => void;
}) {
  const [hover, setHover] = useState<number | null>(null);
  const [focus, setFocus] = useState<number | null>(null);
  const [roving, setRoving] = useState(rows.length - 1);
  const [pending, setPending] = useState<Range | null>(null);
  const drag = useRef<number | null>(null);
  const bars = useRef<(SVGGElement | null)[]>([]);

  const innerW = Math.max(width - MARGIN.left - MARGIN.right, 40);
  const innerH = HEIGHT - MARGIN.top - MARGIN.bottom;
  // A few days (a selection) keep bars of a readable width, centred, not one wall of colour.
  const used = Math.min(innerW, rows.length * 96);
  const x = scaleBand<string>({
    domain: rows.map((r) => r.day),
    range: [(innerW - used) / 2, (innerW + used) / 2],
    padding: rows.length > 60 ? 0.1 : 0.25,
  });
  const most = Math.max(1, ...rows.map((r) => r.total));
  const y = scaleLinear<number>({ domain: [0, most], range: [innerH, 0], nice: true });
  const yTicks = y.ticks(4).filter((t) => Number.isInteger(t));
  const current = Math.min(roving, rows.length - 1);
  const active = hover ?? focus;
  const shown = pending === null ? null : ordered(pending);

  const indexAt = (e: PointerEvent<SVGSVGElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const i = Math.floor((e.clientX - box.left - MARGIN.left - slot0(x, rows)) / x.step());
    return Math.max(0, Math.min(rows.length - 1, i));
  };
  const moveTo = (i: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, i));
    setRoving(next);
    bars.current[next]?.focus();
    return next;
  };
  const onKey = (e: KeyboardEvent<SVGGElement>, i: number) => {
    const step =
      e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : e.key === 'Home' ? -i : 0;
    const toEnd = e.key === 'End' ? rows.length - 1 - i : 0;
    if (step !== 0 || toEnd !== 0) {
      e.preventDefault();
      const next = moveTo(i + step + toEnd);
      // Shift extends a selection from where it began; a plain move drops it.
      setPending(e.shiftKey ? [pending?.[0] ?? i, next] : null);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onSelect(pending ?? [i, i]);
      setPending(null);
    } else if (e.key === 'Escape' && pending !== null) {
      e.preventDefault();
      setPending(null);
    }
  };

  const ticks = tickDays(rows, innerW);
  const tip = active === null ? null : rows[active];
  // Beside the day's bar, never over it: right of it, or left where the right has no room.
  const barLeft = tip === undefined || tip === null ? 0 : MARGIN.left + (x(tip.day) ?? 0);
  const tipLeft =
    barLeft + x.bandwidth() + 8 + TIP_WIDTH <= width
      ? barLeft + x.bandwidth() + 8
      : Math.max(barLeft - 8 - TIP_WIDTH, 0);
  return (
    <div className="histogram-charts">
      <svg
        className="histogram-chart"
        width={width}
        height={HEIGHT}
        style={{ width, height: HEIGHT }}
        role="group"
        aria-label={`episodes per day, ${rows[0]!.day} to ${rows[rows.length - 1]!.day}; arrows move between days, Enter filters the list to the day, Shift with an arrow selects several`}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          const i = indexAt(e);
          drag.current = i;
          setPending([i, i]);
          e.currentTarget.setPointerCapture(e.pointerId);
        }}
        onPointerMove={(e) => {
          const i = indexAt(e);
          setHover(i);
          if (drag.current !== null) setPending([drag.current, i]);
        }}
        onPointerUp={(e) => {
          if (drag.current === null) return;
          const range: Range = [drag.current, indexAt(e)];
          drag.current = null;
          setPending(null);
          onSelect(range);
        }}
        onPointerLeave={() => {
          if (drag.current === null) setHover(null);
        }}
      >
        <defs>
          {/* "Taken back" must stand out without its colour: stripes over the hue. */}
          <pattern
            id="histogram-hatch"
            width="6"
            height="6"
            patternUnits="userSpaceOnUse"
            patternTransform="rotate(45)"
          >
            <rect width="6" height="6" className="series-taken_back" />
            <line x1="0" y1="0" x2="0" y2="6" className="hatch-line" />
          </pattern>
        </defs>
        <Group left={MARGIN.left} top={MARGIN.top}>
          {yTicks.map((t) => (
            <line key={t} x1={0} x2={innerW} y1={y(t)} y2={y(t)} className="grid-line" />
          ))}
          {shown !== null && (
            <rect
              x={(x(rows[shown[0]]!.day) ?? 0) - (x.step() - x.bandwidth()) / 2}
              width={x.step() * (shown[1] - shown[0] + 1)}
              y={0}
              height={innerH}
              className="selection-band"
            />
          )}
          {rows.map((r, i) => (
            <g
              key={r.day}
              ref={(el) => {
                bars.current[i] = el;
              }}
              data-day={r.day}
              role="button"
              tabIndex={i === current ? 0 : -1}
              aria-label={describeDay(r)}
              className={i === focus ? 'day focused' : 'day'}
              onFocus={() => {
                setFocus(i);
                setRoving(i);
              }}
              onBlur={() => {
                setFocus(null);
              }}
              onKeyDown={(e) => {
                onKey(e, i);
              }}
            >
              {/* The whole column answers the pointer, not only the bar's pixels. */}
              <rect
                x={(x(r.day) ?? 0) - (x.step() - x.bandwidth()) / 2}
                width={x.step()}
                y={0}
                height={innerH}
                className="hit"
              />
              {segments(r).map((s) => {
                const top = y(s.below + s.n);
                return (
                  <rect
                    key={s.key}
                    data-series={s.key}
                    x={x(r.day) ?? 0}
                    width={x.bandwidth()}
                    y={top}
                    // A 1 px gap on top of each segment: every mark borders the background.
                    height={Math.max(y(s.below) - top - 1, 1)}
                    className={`series-${s.key}`}
                    fill={s.key === 'taken_back' ? 'url(#histogram-hatch)' : undefined}
                  />
                );
              })}
            </g>
          ))}
          <AxisLeft
            scale={y}
            tickValues={yTicks}
            tickFormat={(v) => String(v)}
            axisClassName="histogram-axis histogram-y-axis"
          />
          <AxisBottom
            scale={x}
            top={innerH}
            tickValues={ticks}
            tickFormat={(d) => shortDate(d)}
            axisClassName="histogram-axis histogram-x-axis"
          />
        </Group>
      </svg>
      {tip !== undefined && tip !== null && (
        <div
          className="histogram-tooltip"
          role="tooltip"
          style={{ left: tipLeft, width: TIP_WIDTH }}
        >
          <strong>{tip.day}</strong> ·{' '}
          {tip.total === 0
            ? 'no episodes'
            : `${String(tip.total)} episode${tip.total === 1 ? '' : 's'}`}
          <ul>
            {segments(tip)
              .reverse()
              .map((s) => (
                <li key={s.key}>
                  <span className={`swatch series-${s.key}`} aria-hidden="true" />
                  {s.label} {String(s.n)}
                </li>
              ))}
          </ul>
          {timesInWords(tip).map((t) => (
            <div key={t}>{t}</div>
          ))}
          <div className="muted">
            {pending === null ? 'Click: this day · drag: several' : 'Enter: filter to these days'}
          </div>
        </div>
      )}
      <TimesChart
        rows={rows}
        x={x}
        width={width}
        left={MARGIN.left}
        active={active}
        onHover={setHover}
      />
    </div>
  );
}

function DayTable({ rows }: { rows: readonly DayRow[] }) {
  return (
    <div className="histogram-table">
      <table className="table" aria-label="episodes per day">
        <thead>
          <tr>
            <th scope="col">day</th>
            <th scope="col" className="num">
              total
            </th>
            {SERIES.map((s) => (
              <th key={s.key} scope="col" className="num">
                {s.label}
              </th>
            ))}
            <th scope="col" className="num">
              median restore
            </th>
            <th scope="col" className="num">
              median handover
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.day}>
              <th scope="row">{r.day}</th>
              <td className="num">{String(r.total)}</td>
              {SERIES.map((s) => (
                <td key={s.key} className="num">
                  {String(r.counts[s.key])}
                </td>
              ))}
              <td className="num">{duration(r.restore.median)}</td>
              <td className="num">{duration(r.handover.median)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

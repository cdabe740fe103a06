// Median time to restore and to handover per day, under the histogram on the same x scale, so
// a day reads down both charts. The medians come from the server (histogram=day), over every
// episode in scope, never from one page of rows.
import { AxisLeft } from '@visx/axis';
import { curveMonotoneX } from '@visx/curve';
import { Group } from '@visx/group';
import { scaleLinear, type scaleBand } from '@visx/scale';
import { LinePath } from '@visx/shape';
import { duration } from '../../shared/parts.js';
import { slot0, type DayRow } from './episodes-histogram-model.js';

const HEIGHT = 130;
const MARGIN = { top: 10, bottom: 8 };

/** The axis counts in the unit that suits the longest time, so its ticks are round numbers. */
function unitFor(seconds: number): { size: number; name: string } {
  if (seconds >= 7200) return { size: 3600, name: 'h' };
  if (seconds >= 120) return { size: 60, name: 'min' };
  return { size: 1, name: 's' };
}

const LINES = [
  { key: 'restore', label: 'median restore' },
  { key: 'handover', label: 'median handover' },
] as const;

export function TimesChart({
  rows,
  x,
  width,
  left,
  active,
  onHover,
}: {
  rows: readonly DayRow[];
  x: ReturnType<typeof scaleBand<string>>;
  width: number;
  left: number;
  active: number | null;
  onHover: (index: number | null) => void;
}) {
  const innerH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const most = Math.max(1, ...rows.flatMap((r) => [r.restore.median ?? 0, r.handover.median ?? 0]));
  const unit = unitFor(most);
  // Scaled in the unit, fed in seconds.
  const inUnit = scaleLinear<number>({
    domain: [0, most / unit.size],
    range: [innerH, 0],
    nice: true,
  });
  const y = (seconds: number) => inUnit(seconds / unit.size);
  const ticks = inUnit.ticks(3).map((t) => t * unit.size);
  const mid = (r: DayRow) => (x(r.day) ?? 0) + x.bandwidth() / 2;
  const said = rows
    .filter((r) => r.restore.median !== null || r.handover.median !== null)
    .map(
      (r) =>
        `${r.day} restore ${duration(r.restore.median)}, handover ${duration(r.handover.median)}`,
    )
    .join('; ');
  const step = x.step();
  return (
    <div className="times-chart">
      <ul className="histogram-legend" aria-label="times legend">
        {LINES.map((l) => (
          <li key={l.key}>
            <svg width="22" height="10" style={{ width: 22, height: 10 }} aria-hidden="true">
              <line x1="1" x2="21" y1="5" y2="5" className={`time-line time-${l.key}`} />
            </svg>
            {l.label}
          </li>
        ))}
      </ul>
      <svg
        width={width}
        height={HEIGHT}
        style={{ width, height: HEIGHT }}
        role="img"
        aria-label={`median time to restore and to handover per day: ${said === '' ? 'no times in this window' : said}`}
        onPointerMove={(e) => {
          const box = e.currentTarget.getBoundingClientRect();
          const i = Math.floor((e.clientX - box.left - left - slot0(x, rows)) / step);
          onHover(i >= 0 && i < rows.length ? i : null);
        }}
        onPointerLeave={() => {
          onHover(null);
        }}
      >
        <Group left={left} top={MARGIN.top}>
          {ticks.map((t) => (
            <line key={t} x1={0} x2={width - left} y1={y(t)} y2={y(t)} className="grid-line" />
          ))}
          {active !== null && rows[active] !== undefined && (
            <line
              x1={mid(rows[active])}
              x2={mid(rows[active])}
              y1={0}
              y2={innerH}
              className="guide-line"
            />
          )}
          {LINES.map((l) => {
            const at = rows.filter((r) => r[l.key].median !== null);
            return (
              <g key={l.key} data-line={l.key}>
                <LinePath<DayRow>
                  data={[...rows]}
                  x={mid}
                  y={(r) => y(r[l.key].median ?? 0)}
                  defined={(r) => r[l.key].median !== null}
                  curve={curveMonotoneX}
                  className={`time-line time-${l.key}`}
                />
                {at.map((r) =>
                  l.key === 'restore' ? (
                    <circle
                      key={r.day}
                      cx={mid(r)}
                      cy={y(r.restore.median ?? 0)}
                      r={3.5}
                      className="time-point time-restore"
                    />
                  ) : (
                    <rect
                      key={r.day}
                      x={mid(r) - 3.5}
                      y={y(r.handover.median ?? 0) - 3.5}
                      width={7}
                      height={7}
                      className="time-point time-handover"
                    />
                  ),
                )}
              </g>
            );
          })}
          <AxisLeft
            scale={inUnit}
            tickValues={inUnit.ticks(3)}
            tickFormat={(v) => (Number(v) === 0 ? '0' : `${String(v)} ${unit.name}`)}
            axisClassName="histogram-axis"
          />
        </Group>
      </svg>
    </div>
  );
}

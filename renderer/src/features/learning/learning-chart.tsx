// The calibration chart: for each confidence level, the share of its labelled diagnoses that
// were right. visx primitives (docs/decisions.md); the table beside it says the same in words.
import { AxisBottom, AxisLeft } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleBand, scaleLinear } from '@visx/scale';
import { Bar } from '@visx/shape';
import type { Calibration } from './api.js';
import { percent } from './learning-words.js';

const WIDTH = 420;
const HEIGHT = 220;
const MARGIN = { top: 16, right: 8, bottom: 32, left: 44 };

export function CalibrationChart({ levels }: { levels: readonly Calibration[] }) {
  const innerW = WIDTH - MARGIN.left - MARGIN.right;
  const innerH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = scaleBand<string>({
    domain: levels.map((l) => l.confidence),
    range: [0, innerW],
    padding: 0.25,
  });
  const y = scaleLinear<number>({ domain: [0, 1], range: [innerH, 0] });
  const said = levels
    .map((l) =>
      l.share === null
        ? `${l.confidence}: no labels`
        : `${l.confidence}: ${String(l.correct)} of ${String(l.labels)} right`,
    )
    .join('; ');
  return (
    <svg
      className="chart"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${String(WIDTH)} ${String(HEIGHT)}`}
      role="img"
      aria-label={`Calibration: ${said}`}
    >
      <Group left={MARGIN.left} top={MARGIN.top}>
        {levels.map((l) => {
          const left = x(l.confidence) ?? 0;
          if (l.share === null)
            return (
              <text
                key={l.confidence}
                x={left + x.bandwidth() / 2}
                y={innerH - 6}
                textAnchor="middle"
                className="chart-note"
              >
                none
              </text>
            );
          const top = y(l.share);
          return (
            <g key={l.confidence}>
              <Bar
                x={left}
                y={top}
                width={x.bandwidth()}
                height={Math.max(innerH - top, 1)}
                className="chart-bar"
              />
              <text
                x={left + x.bandwidth() / 2}
                y={Math.max(top - 4, 10)}
                textAnchor="middle"
                className="chart-value"
              >
                {percent(l.share)}
              </text>
            </g>
          );
        })}
        <AxisLeft
          scale={y}
          numTicks={5}
          tickFormat={(v) => percent(Number(v))}
          axisClassName="chart-axis"
        />
        <AxisBottom scale={x} top={innerH} axisClassName="chart-axis" />
      </Group>
    </svg>
  );
}

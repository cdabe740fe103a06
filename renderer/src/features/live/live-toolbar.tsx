// Live's controls: search, severity filter (each with its count), grouping and pause. Every
// change but pause is written into the URL (replace, not push: typing is not navigation).
import { type RunningEpisode } from './api.js';
import { SEVERITIES, severityGlyph, severityOf } from '../../shared/severity.js';
import type { Grouping, LiveView } from './live-rows.js';

export function LiveToolbar({
  view,
  onView,
  rows,
  paused,
  onPause,
}: {
  view: LiveView;
  onView: (next: LiveView) => void;
  /** Every row before filtering, for the counts on the severity buttons. */
  rows: readonly RunningEpisode[];
  paused: boolean;
  onPause: () => void;
}) {
  return (
    <div className="live-toolbar" role="group" aria-label="live view">
      <input
        type="search"
        aria-label="Search"
        placeholder="Search service, alert, episode"
        value={view.q}
        onChange={(e) => {
          onView({ ...view, q: e.target.value });
        }}
      />
      <div className="live-sevs" role="group" aria-label="Severity">
        {SEVERITIES.map((s) => {
          const on = view.sev.includes(s);
          const n = rows.filter((r) => severityOf(r.severity) === s).length;
          return (
            <button
              key={s}
              type="button"
              aria-pressed={on}
              className={`sev-filter sev-${s}`}
              onClick={() => {
                onView({
                  ...view,
                  sev: SEVERITIES.filter((x) => (x === s ? !on : view.sev.includes(x))),
                });
              }}
            >
              <span aria-hidden="true">{severityGlyph(s)}</span> {s}{' '}
              <span className="count-in">{n}</span>
            </button>
          );
        })}
      </div>
      <label className="live-group">
        Group by{' '}
        <select
          value={view.group}
          onChange={(e) => {
            onView({ ...view, group: e.target.value as Grouping });
          }}
        >
          <option value="none">none</option>
          <option value="incident">incident</option>
          <option value="service">service</option>
        </select>
      </label>
      <button type="button" className="live-pause" aria-pressed={paused} onClick={onPause}>
        {paused ? '▶ Resume' : '❚❚ Pause'} <kbd>p</kbd>
      </button>
    </div>
  );
}

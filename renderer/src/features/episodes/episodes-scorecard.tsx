// The scorecard strip (console.md C.3): each tile a number, a label, its window ("last 30 days,
// filtered"), a denominator, and a click-through that filters the table. Minutes saved has an
// ⓘ (an i in a circle: the glyph is missing from common fonts) with the server's formula and
// a link to the impact figures; never a bare 0 when unset.
import { useState, type ReactNode } from 'react';
import { type Scorecard } from './api.js';
import { Link, duration } from '../../shared/parts.js';
import './episodes-scorecard.css';

/** The page that sets the impact figures (Settings, its Impact section). */
export const IMPACT_PAGE = '/settings#impact';

/** What the server sends beside the fields api.ts names (docs/incidents.md). */
type Card = Scorecard & {
  restore_s: { median: number | null; count?: number };
  handover_s: { median: number | null; within_90: number | null; count?: number };
  minutes_saved_how?: { ended_by_service?: number; actions_verified?: number };
};

const RANGE_WORDS: Record<string, string> = {
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
  '30d': 'last 30 days',
  '90d': 'last 90 days',
  '1y': 'last year',
  all: 'all time',
};
/** Parameters that shape the page, not the rows: they do not make a view "filtered". */
const NOT_FILTERS = new Set(['range', 'since', 'until', 'sort', 'offset', 'limit', 'sel']);

/** The window the numbers cover, in words, from the range (or since/until) parameter. */
export function windowOf(params: URLSearchParams): string {
  const since = params.get('since');
  const until = params.get('until');
  const range = params.get('range') ?? 'all';
  const span =
    since !== null || until !== null
      ? [since !== null && `from ${since}`, until !== null && `until ${until}`]
          .filter(Boolean)
          .join(' ')
      : (RANGE_WORDS[range] ?? range);
  const filtered = [...params.keys()].some((k) => !NOT_FILTERS.has(k));
  return filtered ? `${span}, filtered` : span;
}

/** The current query with one more term (AND), the existing one grouped if it has an OR. */
function withTerm(params: URLSearchParams, term: string): string {
  const next = new URLSearchParams(params);
  const current = (params.get('query') ?? '').trim();
  const base = /\bOR\b/.test(current) ? `(${current})` : current;
  next.set('query', base === '' ? term : `${base} ${term}`);
  next.delete('offset');
  return `/episodes?${next.toString()}`;
}

function withFacet(params: URLSearchParams, facet: string, value: string): string {
  const next = new URLSearchParams(params);
  next.set(facet, value);
  next.delete('offset');
  return `/episodes?${next.toString()}`;
}

const pct = (x: number | null) => (x === null ? '—' : `${String(Math.round(x * 100))} %`);
const n = (x: number) => x.toLocaleString('en');
const plural = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? '' : 's'}`;

/** Episodes nobody took over that ended resolved, restored or cleared. */
const ENDED_BY_SERVICE = '(result:resolved OR result:restored OR result:cleared) -handover>=0s';
/** What minutes saved counts (server/episodes/scorecard.ts). */
const SAVED_BY_ACTION =
  '(decision:act OR decision:restore OR decision:mitigated_first) action:verified (result:resolved OR result:restored) -handover>=0s';
const RESULTS = ['restored', 'resolved', 'handed_over', 'linked', 'cleared', 'shadow', 'other'];

function Tile({
  label,
  value,
  of,
  span,
  children,
}: {
  label: string;
  value: ReactNode;
  of: ReactNode;
  span: string;
  children?: ReactNode;
}) {
  return (
    <div className="tile" role="group" aria-label={label}>
      <span className="value">{value}</span>
      <span className="label">{label}</span>
      <span className="of">{of}</span>
      {children}
      <span className="window">{span}</span>
    </div>
  );
}

function Results({ card, params }: { card: Card; params: URLSearchParams }) {
  const entries = RESULTS.flatMap((r) => {
    const count = card.results[r] ?? 0;
    return count > 0 ? [[r, count] as const] : [];
  });
  return (
    <>
      <span className="results-bar" aria-hidden="true">
        {entries.map(([r, count]) => (
          <span key={r} className={`result-${r}`} style={{ flexGrow: count }} />
        ))}
      </span>
      <span className="results-list">
        {entries.map(([r, count]) => (
          <Link key={r} to={withFacet(params, 'result', r)}>
            <span className={`swatch result-${r}`} aria-hidden="true" />
            {r.replace('_', ' ')} {n(count)}
          </Link>
        ))}
      </span>
    </>
  );
}

function MinutesSaved({
  card,
  span,
  open,
  onToggle,
}: {
  card: Card;
  span: string;
  open: boolean;
  onToggle: () => void;
}) {
  const how = card.minutes_saved_how;
  const counted = how?.actions_verified;
  const shadow = how?.shadow_would_save ?? null;
  return (
    <Tile
      label="minutes saved"
      span={span}
      value={
        card.minutes_saved === null ? (
          <span className="unset">
            — <Link to={IMPACT_PAGE}>set impact figures</Link>
          </span>
        ) : (
          n(card.minutes_saved)
        )
      }
      of={
        counted === undefined ? null : (
          <>from {plural(counted, 'episode')} its own action restored</>
        )
      }
    >
      <button
        type="button"
        className="info"
        aria-expanded={open}
        aria-controls="minutes-saved-formula"
        aria-label="how minutes saved are counted"
        title="how minutes saved are counted"
        onClick={onToggle}
      >
        i
      </button>
      {shadow !== null && shadow > 0 && (
        <span className="of">shadow mode would have saved {n(shadow)} (not counted)</span>
      )}
    </Tile>
  );
}

export function ScorecardStrip({ card: c, params }: { card: Scorecard; params: URLSearchParams }) {
  const card = c as Card;
  const [formula, setFormula] = useState(false);
  const span = windowOf(params);
  const how = card.minutes_saved_how;
  const restores = card.restore_s.count;
  const handovers = card.handover_s.count;
  const a = card.actions;
  return (
    <section className="scorecard" aria-label="scorecard">
      <Tile
        label="results"
        value={n(card.episodes)}
        of={<>episodes in {plural(card.incidents, 'incident')}</>}
        span={span}
      >
        <Results card={card} params={params} />
      </Tile>
      <Tile
        label="ended by the service"
        value={pct(card.share_ended_by_3am)}
        of={
          <Link to={withTerm(params, ENDED_BY_SERVICE)}>
            of {plural(card.incidents, 'incident')}, no person needed
          </Link>
        }
        span={span}
      />
      <Tile
        label="median restore"
        value={restores !== undefined && restores < 5 ? '—' : duration(card.restore_s.median)}
        of={
          <Link to={withTerm(params, 'restore>=0s')}>
            {restores !== undefined && restores < 5
              ? `only ${plural(restores, 'restore')}: fewer than 5 to say`
              : `n = ${n(restores ?? 0)} restored`}
          </Link>
        }
        span={span}
      />
      <Tile
        label="handed over within 90 s"
        value={pct(card.handover_s.within_90)}
        of={
          <Link to={withTerm(params, 'handover>=0s')}>
            of {plural(handovers ?? 0, 'handover')}, median {duration(card.handover_s.median)}
          </Link>
        }
        span={span}
      />
      <Tile
        label="actions"
        value={
          <span className="pair">
            <Link to={withTerm(params, 'action:verified')}>{n(a.verified)} verified</Link>
            {' · '}
            <Link to={withTerm(params, 'action:taken_back')}>{n(a.taken_back)} taken back</Link>
          </span>
        }
        of={<>of {plural(a.ran, 'action')} run</>}
        span={span}
      />
      <MinutesSaved
        card={card}
        span={span}
        open={formula}
        onToggle={() => {
          setFormula(!formula);
        }}
      />
      {formula && how !== undefined && (
        <p
          id="minutes-saved-formula"
          className="formula"
          role="note"
          aria-label="minutes saved formula"
        >
          <strong>Minutes saved:</strong> {how.text}{' '}
          {counted(card) > 0 && (
            <>
              <Link to={withTerm(params, SAVED_BY_ACTION)}>
                Show the {plural(counted(card), 'episode')} it counts
              </Link>
              {' · '}
            </>
          )}
          <Link to={IMPACT_PAGE}>Change the impact figures</Link>
        </p>
      )}
    </section>
  );
}

const counted = (card: Card): number => card.minutes_saved_how?.actions_verified ?? 0;

// Episodes: the table (episodes-table.tsx) with every filter of GET /v1/episodes, a query
// bar, facets with counts, the scorecard strip and the per-day histogram. The page's URL holds every filter, so a
// view is a link; the API gets the same parameters.
import { episodeKeys } from './queries.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { type EpisodeList, episodesApi } from './api.js';
import { ApiError } from '../../shared/api.js';
import { Empty, ErrorNote, Link } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import { Pager, paramHref, toggled } from '../../shared/list-nav.js';
import { QueryBar } from './episodes-query.js';
import { ScorecardStrip } from './episodes-scorecard.js';
import { EpisodesTable } from './episodes-table.js';
import './episodes.css';
import '../../shared/table-scroll.css';
import { compareWithRest, liftBadge } from './episodes-facets.js';
import { rememberList } from './episode-browse.js';

// The chart (visx and d3) loads after the list, outside the first page's script (first load
// ≤ 150 KB gzip); until then its place is kept empty so nothing below it moves twice.
const EpisodesHistogram = lazy(() =>
  import('./episodes-histogram.js').then((m) => ({ default: m.EpisodesHistogram })),
);

const FACETS = ['service', 'result', 'decision', 'outcome', 'confidence', 'kind'] as const;
const RANGES = ['24h', '7d', '30d', '90d', '1y', 'all'] as const;
const LIMIT = 50;

const withParam = (params: URLSearchParams, key: string, value: string | null): string =>
  paramHref('/episodes', params, key, value);

/** The whole scope a histogram selection was cut from: its facets and how many episodes. */
interface Whole {
  facets: Record<string, Record<string, number>>;
  total: number;
}

function Facets({
  params,
  facets,
  total,
  whole,
}: {
  params: URLSearchParams;
  facets: Record<string, Record<string, number>>;
  /** episodes the facets count */
  total: number;
  /** while days are selected: the scope without the selection, to compare with */
  whole: Whole | undefined;
}) {
  return (
    <aside className="facets" aria-label="facets">
      {whole !== undefined && (
        <p className="muted facets-compare">
          Selected days vs the rest: most over-represented first.
        </p>
      )}
      {FACETS.map((f) => {
        const chosen = new Set((params.get(f) ?? '').split(',').filter((v) => v !== ''));
        const values =
          whole === undefined
            ? Object.entries(facets[f] ?? {}).map(([value, count]) => ({
                value,
                count,
                lift: Number.NaN,
              }))
            : compareWithRest(facets[f] ?? {}, total, whole.facets[f] ?? {}, whole.total);
        return (
          <fieldset key={f}>
            <legend>{f}</legend>
            {values.length === 0 && <span className="muted">none</span>}
            {values.slice(0, 12).map(({ value, count, lift }) => {
              const badge = liftBadge(lift);
              return (
                <label key={value} className="facet">
                  <input
                    type="checkbox"
                    checked={chosen.has(value)}
                    onChange={() => {
                      navigate(withParam(params, f, toggled(chosen, value)), { replace: true });
                    }}
                  />
                  <span className="value">{value}</span>
                  <span>
                    {badge !== null && <span className="badge lift">{badge}</span>}
                    <span className="num">{count.toLocaleString('en')}</span>
                  </span>
                </label>
              );
            })}
          </fieldset>
        );
      })}
    </aside>
  );
}

/**
 * While days are selected on the histogram (`since`/`until`), the same filters without them:
 * the rest the selection is compared with. One small request (one row), cached per filter.
 */
function useWhole(params: URLSearchParams): Whole | undefined {
  const selected = params.has('since') || params.has('until');
  const scope = new URLSearchParams(params);
  for (const key of ['since', 'until', 'offset', 'sort']) scope.delete(key);
  scope.set('limit', '1');
  const query = scope.toString();
  const whole = useQuery({
    queryKey: episodeKeys.list(query),
    queryFn: () => episodesApi.episodes(query),
    enabled: selected,
  });
  return selected && whole.data !== undefined
    ? { facets: whole.data.facets, total: whole.data.total }
    : undefined;
}

export function EpisodesPage() {
  const { params } = useLocation();
  const apiParams = new URLSearchParams(params);
  apiParams.set('scorecard', '1');
  apiParams.set('histogram', 'day');
  if (!apiParams.has('limit')) apiParams.set('limit', String(LIMIT));
  const query = apiParams.toString();
  const list = useQuery({
    queryKey: episodeKeys.list(query),
    queryFn: () => episodesApi.episodes(query),
    placeholderData: keepPreviousData,
  });
  // The last valid answer stays on screen, greyed, while a query is bad (or a fetch fails):
  // an error must not blank the scorecard, facets and table.
  const [lastGood, setLastGood] = useState<EpisodeList | undefined>(undefined);
  useEffect(() => {
    if (list.data !== undefined && !list.isPlaceholderData) setLastGood(list.data);
  }, [list.data, list.isPlaceholderData]);
  const data = list.data ?? lastGood;
  const whole = useWhole(params);
  // The order shown, for `[` and `]` on an episode opened from here (not the previous list's
  // rows kept on screen while this one loads).
  const shown = list.isPlaceholderData ? undefined : list.data?.episodes;
  useEffect(() => {
    if (shown === undefined) return;
    rememberList(
      window.location.pathname + window.location.search,
      shown.map((e) => e.episode_id),
    );
  }, [shown]);
  const stale = list.isError && data !== undefined;
  const sort = params.get('sort') ?? '-t_open';
  const offset = Number(params.get('offset') ?? '0');
  const sortBy = (field: string) =>
    navigate(withParam(params, 'sort', sort === `-${field}` ? field : `-${field}`), {
      replace: true,
    });
  const header = (field: string, label: string, numeric = false) => (
    <th
      className={numeric ? 'num' : undefined}
      aria-sort={sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : 'none'}
    >
      <button type="button" className="sort" onClick={() => sortBy(field)}>
        {label} {sort === field ? '▲' : sort === `-${field}` ? '▼' : ''}
      </button>
    </th>
  );
  return (
    <main className="page episodes">
      <h1>
        Episodes{' '}
        <span className="count">
          {data
            ? `${data.total.toLocaleString('en')} ${params.get('group') === 'incident' ? 'incidents' : 'closed'}${data.complete === false ? ` (the newest ${String(data.latest)} only)` : ''} · ${String(data.running.length)} running`
            : ''}
        </span>
      </h1>
      <div className="filters">
        <QueryBar
          params={params}
          error={list.error}
          facets={data?.facets ?? {}}
          withParam={withParam}
        />
        <label>
          Text
          <input
            name="q"
            defaultValue={params.get('q') ?? ''}
            placeholder="id, service, alert, cause"
            onKeyDown={(e) => {
              if (e.key === 'Enter') navigate(withParam(params, 'q', e.currentTarget.value.trim()));
            }}
          />
        </label>
        <label>
          Range
          <select
            name="range"
            value={params.get('range') ?? 'all'}
            onChange={(e) => {
              navigate(
                withParam(params, 'range', e.target.value === 'all' ? null : e.target.value),
                { replace: true },
              );
            }}
          >
            {RANGES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Cause
          <select
            name="confirmed"
            value={params.get('confirmed') ?? ''}
            onChange={(e) => {
              navigate(withParam(params, 'confirmed', e.target.value), { replace: true });
            }}
          >
            <option value="">any</option>
            <option value="yes">confirmed</option>
            <option value="no">not confirmed</option>
          </select>
        </label>
        <label>
          Since
          <input
            type="date"
            name="since"
            value={params.get('since') ?? ''}
            onChange={(e) => {
              navigate(withParam(params, 'since', e.target.value), { replace: true });
            }}
          />
        </label>
        <label>
          Until
          <input
            type="date"
            name="until"
            value={params.get('until') ?? ''}
            onChange={(e) => {
              navigate(withParam(params, 'until', e.target.value), { replace: true });
            }}
          />
        </label>
        <label>
          Newest
          <select
            name="latest"
            value={params.get('latest') ?? ''}
            onChange={(e) => {
              navigate(withParam(params, 'latest', e.target.value), { replace: true });
            }}
          >
            <option value="">all</option>
            <option value="100">100</option>
            <option value="1000">1,000</option>
            <option value="5000">5,000</option>
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            name="group"
            checked={params.get('group') === 'incident'}
            onChange={(e) => {
              navigate(withParam(params, 'group', e.target.checked ? 'incident' : null), {
                replace: true,
              });
            }}
          />
          one row per incident
        </label>
        {[...params.keys()].length > 0 && (
          <Link to="/episodes" className="clear">
            Clear filters
          </Link>
        )}
      </div>
      {!(list.error instanceof ApiError && list.error.code === 'bad_query') && (
        <ErrorNote error={list.error} />
      )}
      <div
        data-stale={stale}
        aria-disabled={stale || undefined}
        className={stale ? 'stale' : undefined}
        title={stale ? 'The last valid result, until the query is valid again' : undefined}
      >
        {data?.scorecard && <ScorecardStrip card={data.scorecard} params={params} />}
        {data?.histogram && (
          <Suspense fallback={<div className="histogram-pending" aria-busy="true" />}>
            <EpisodesHistogram days={data.histogram} />
          </Suspense>
        )}
        <div className="with-rail">
          {data && <Facets params={params} facets={data.facets} total={data.total} whole={whole} />}
          <section className="results">
            {data && data.episodes.length === 0 && (
              <Empty>No closed episode matches. Running ones are on Live.</Empty>
            )}
            {data && (
              <EpisodesTable
                rows={data.episodes}
                grouped={params.get('group') === 'incident'}
                sortHeader={header}
              />
            )}
            {data && (
              <Pager
                offset={offset}
                limit={LIMIT}
                total={data.total}
                at={(o) => withParam(params, 'offset', String(o))}
              />
            )}
          </section>
        </div>
      </div>
    </main>
  );
}

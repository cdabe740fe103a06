// Estate: a focused neighbourhood of services and links (depth 1, expandable to 2), with a
// list view, a side panel per service, what each connector found, suggested links, the
// overrides and discovery. Loaded on demand (app.tsx): the graph libraries stay out of the
// first bundle. The URL holds the view: focus, depth, view=list, sel, hide (origins).
import { estateKeys } from './queries.js';
import { useMe } from '../people/index.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { type EstateService, estateApi } from './api.js';
import { EstateGraph, Legend } from './graph.js';
import {
  ORIGIN_KINDS,
  defaultFocus,
  neighbourhood,
  originKindOf,
  type OriginKind,
} from './model.js';
import { Discover } from './discover.js';
import { FoundStatus } from './found-status.js';
import { ListView } from './list-view.js';
import { OverridesEditor } from './overrides-editor.js';
import { ServicePanel } from './service-panel.js';
import { Suggestions } from './suggestions.js';
import { Empty, ErrorNote } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import './estate.css';

const ADMIN_REASON = 'Only an admin can do this; you are signed in as';

const plural = (n: number, word: string): string =>
  `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;

function withParams(params: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(params);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') next.delete(k);
    else next.set(k, v);
  }
  const text = next.toString();
  return `/estate${text === '' ? '' : `?${text}`}`;
}

export function EstatePage() {
  const { params } = useLocation();
  const me = useMe();
  const estate = useQuery({
    queryKey: estateKeys.view,
    queryFn: estateApi.view,
    placeholderData: keepPreviousData,
  });
  const role = me.data?.role;
  const isAdmin = role === 'admin' || role === 'owner';
  const reason = `${ADMIN_REASON} ${role ?? '…'}`;

  const data = estate.data;
  const services = useMemo(
    () => new Map<string, EstateService>((data?.services ?? []).map((s) => [s.name, s])),
    [data],
  );
  const view = params.get('view') === 'list' ? 'list' : 'graph';
  const depth = params.get('depth') === '2' ? 2 : 1;
  const hideText = params.get('hide') ?? '';
  const hidden = useMemo(() => new Set(hideText.split(',').filter((v) => v !== '')), [hideText]);
  const shown = useMemo(
    () => new Set<OriginKind>(ORIGIN_KINDS.map((o) => o.kind).filter((k) => !hidden.has(k))),
    [hidden],
  );
  const counts = useMemo(() => {
    const c = new Map<OriginKind, number>();
    for (const l of data?.links ?? []) {
      const k = originKindOf(l.origin);
      c.set(k, (c.get(k) ?? 0) + 1);
    }
    return c;
  }, [data]);
  const asked = params.get('focus');
  const known = (name: string | null): name is string =>
    name !== null &&
    (services.has(name) || (data?.links ?? []).some((l) => l.from === name || l.to === name));
  const focus = known(asked) ? asked : data ? defaultFocus(data.services, data.links) : null;
  const hood = useMemo(
    () =>
      focus === null || data === undefined ? null : neighbourhood(focus, depth, data.links, shown),
    [focus, depth, data, shown],
  );
  const sel = params.get('sel');

  const go = useCallback(
    (changes: Record<string, string | null>) =>
      navigate(withParams(new URLSearchParams(window.location.search), changes), { replace: true }),
    [],
  );
  const open = useCallback((name: string) => go({ sel: name }), [go]);

  const names = [...services.keys()].sort((a, b) => a.localeCompare(b));

  return (
    <main className="page estate-page">
      <h1>
        Estate{' '}
        <span className="count">
          {data
            ? `${plural(data.services.length, 'service')} · ${plural(data.links.length, 'link')}`
            : ''}
        </span>
      </h1>
      <div className="estate-toolbar">
        <label>
          Focus{' '}
          <select
            name="focus"
            value={focus ?? ''}
            disabled={names.length === 0}
            onChange={(e) => go({ focus: e.target.value, sel: null })}
          >
            {focus !== null && !services.has(focus) && <option value={focus}>{focus}</option>}
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="segmented">
          <legend className="visually-hidden">Depth</legend>
          {[1, 2].map((d) => (
            <button
              key={d}
              type="button"
              aria-pressed={depth === d}
              onClick={() => go({ depth: d === 1 ? null : '2' })}
            >
              Depth {d}
            </button>
          ))}
        </fieldset>
        <fieldset className="segmented">
          <legend className="visually-hidden">View</legend>
          <button type="button" aria-pressed={view === 'graph'} onClick={() => go({ view: null })}>
            Graph
          </button>
          <button type="button" aria-pressed={view === 'list'} onClick={() => go({ view: 'list' })}>
            List
          </button>
        </fieldset>
        <Discover isAdmin={isAdmin} reason={reason} />
      </div>
      <ErrorNote error={estate.error} />
      {estate.isPending && <p className="muted">Loading the estate…</p>}
      {data !== undefined && data.services.length === 0 && data.links.length === 0 && (
        <Empty>
          The estate is empty: press Discover to read the Prometheus connectors&apos; scrape
          targets, or place services and links in the overrides below.
        </Empty>
      )}
      {data !== undefined && (data.services.length > 0 || data.links.length > 0) && (
        // Beside the graph the panel's column is always there, so opening one never resizes
        // the graph under the pointer.
        <div className={`estate-main${sel !== null || view === 'graph' ? ' with-panel' : ''}`}>
          <div className="estate-view">
            {view === 'graph' && focus !== null && hood !== null ? (
              <>
                <Legend
                  shown={shown}
                  counts={counts}
                  onToggle={(k) => {
                    const next = new Set(hidden);
                    if (next.has(k)) next.delete(k);
                    else next.add(k);
                    go({ hide: [...next].join(',') });
                  }}
                />
                <EstateGraph
                  focus={focus}
                  viewKey={`${focus}:${String(depth)}:${hideText}`}
                  nodes={hood.nodes}
                  links={hood.links}
                  services={services}
                  selected={sel}
                  onOpen={open}
                />
                <p className="hint">
                  {hood.nodes.size} services within {depth} link{depth === 1 ? '' : 's'} of{' '}
                  <strong>{focus}</strong>
                  {hood.beyond > 0 && depth === 1 && (
                    <>
                      {' '}
                      · {hood.beyond} more one step further:{' '}
                      <button type="button" className="linkish" onClick={() => go({ depth: '2' })}>
                        show depth 2
                      </button>
                    </>
                  )}
                  {hood.beyond > 0 && depth === 2 && (
                    <> · {hood.beyond} more further out: focus on another service to see them</>
                  )}
                </p>
              </>
            ) : (
              <ListView estate={data} onOpen={open} />
            )}
          </div>
          {sel === null && view === 'graph' && (
            <aside className="estate-panel empty" aria-label="service details">
              <p className="muted">
                Click a service, or move to it with Tab and the arrow keys and press Enter, to see
                its kind, hosts, how it was found, its links and its recent episodes.
              </p>
            </aside>
          )}
          {sel !== null && (
            <ServicePanel
              key={sel}
              name={sel}
              service={services.get(sel)}
              links={data.links}
              focus={focus ?? ''}
              onFocus={(n) => go({ focus: n })}
              onClose={() => go({ sel: null })}
            />
          )}
        </div>
      )}
      {data !== undefined && <FoundStatus estate={data} onOpen={open} />}
      <Suggestions isAdmin={isAdmin} reason={reason} />
      <OverridesEditor isAdmin={isAdmin} reason={reason} />
    </main>
  );
}

// Approvals (console design C.5): requests waiting for you first, then those waiting on
// others, then decided ones. Facets status, risk and kind with counts, a text query, all in
// the URL (`sel` pins one request on top). Each request shows its title, service, risk,
// requester, quorum state ("1 of 2 approvals" and who), expiry, channels it was sent to and
// every decision; Approve (with a confirmation naming it), Deny and Withdraw (each with a
// reason) act on it. A request you asked for says why you cannot approve it.
import { useMe } from '../people/index.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type Me } from '../people/index.js';
import { Empty, Link } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import { approvalApi, type ApprovalList, type ApprovalRequest } from './api.js';
import { approvalKeys } from './queries.js';
import { KINDS, RISKS, STATUSES, waitsFor } from './approval-words.js';
import { RequestCard } from './approval-card.js';
import { explain, Refusal } from '../../shared/http.js';
import { toggled } from '../../shared/list-nav.js';

const FACETS = [
  ['status', STATUSES],
  ['risk', RISKS],
  ['kind', KINDS],
] as const;
const LIMIT = 100;

function withParam(params: URLSearchParams, key: string, value: string | null): string {
  const next = new URLSearchParams(params);
  if (value === null || value === '') next.delete(key);
  else next.set(key, value);
  const text = next.toString();
  return `/approvals${text === '' ? '' : `?${text}`}`;
}

/** The API's query string from the page's: the filters only. */
function apiQuery(params: URLSearchParams): string {
  const q = new URLSearchParams();
  for (const k of ['status', 'risk', 'kind', 'q', 'query', 'since', 'until', 'sort'])
    if ((params.get(k) ?? '') !== '') q.set(k, params.get(k) ?? '');
  q.set('limit', String(LIMIT));
  return q.toString();
}

function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => {
      setNow(Date.now());
    }, everyMs);
    return () => {
      clearInterval(t);
    };
  }, [everyMs]);
  return now;
}

type Group = 'mine' | 'others' | 'decided';

/** Waiting for me: pending, not mine, I may approve it and have not yet (`waitsFor`). */
function groupOf(r: ApprovalRequest, me: Me | undefined): Group {
  if (r.status !== 'pending') return 'decided';
  return waitsFor(r, me) ? 'mine' : 'others';
}

const GROUP_TITLE: Record<Group, string> = {
  mine: 'Waiting for you',
  others: 'Waiting on others',
  decided: 'Decided',
};

function SearchBar({ params }: { params: URLSearchParams }) {
  const fromUrl = params.get('q') ?? '';
  const [text, setText] = useState(fromUrl);
  useEffect(() => {
    setText(fromUrl);
  }, [fromUrl]);
  return (
    <form
      className="query-bar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(withParam(params, 'q', text.trim()), { replace: true });
      }}
    >
      <label className="grow">
        <span className="visually-hidden">Search approvals</span>
        <input
          name="q"
          placeholder="search title, service, requester, id"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
          }}
        />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

function Facets({
  params,
  facets,
}: {
  params: URLSearchParams;
  facets: Partial<ApprovalList['facets']>;
}) {
  return (
    <aside className="facets" aria-label="facets">
      {FACETS.map(([name, values]) => {
        const chosen = new Set((params.get(name) ?? '').split(',').filter((v) => v !== ''));
        const counts = facets[name];
        return (
          <fieldset key={name}>
            <legend>{name}</legend>
            {values.map((value) => (
              <label key={value} className="facet">
                <input
                  type="checkbox"
                  checked={chosen.has(value)}
                  onChange={() => {
                    navigate(withParam(params, name, toggled(chosen, value)), { replace: true });
                  }}
                />
                <span className="value">{value.replace('_', ' ')}</span>
                <span className="num">
                  {counts === undefined ? '' : (counts[value] ?? 0).toLocaleString('en')}
                </span>
              </label>
            ))}
          </fieldset>
        );
      })}
    </aside>
  );
}

export function ApprovalsPage() {
  const { params } = useLocation();
  const me = useMe();
  const now = useNow(30_000);
  const query = apiQuery(params);
  const list = useQuery({
    queryKey: approvalKeys.list(query),
    queryFn: () => approvalApi.list(query),
    placeholderData: keepPreviousData,
  });
  const sel = params.get('sel');
  const selected = useQuery({
    queryKey: approvalKeys.detail(sel ?? ''),
    queryFn: () => approvalApi.get(sel ?? ''),
    enabled: sel !== null && sel !== '',
  });
  const requests = (list.data?.requests ?? []).filter((r) => r.request_id !== sel);
  const groups: Record<Group, ApprovalRequest[]> = { mine: [], others: [], decided: [] };
  for (const r of requests) groups[groupOf(r, me.data)].push(r);
  groups.decided.sort((a, b) =>
    (b.closed_at ?? b.requested_at).localeCompare(a.closed_at ?? a.requested_at),
  );
  const filtered = ['status', 'risk', 'kind', 'q'].some((k) => (params.get(k) ?? '') !== '');
  return (
    <main className="page">
      <h1>
        Approvals{' '}
        {list.data && (
          <span className="count">
            {list.data.total.toLocaleString('en')} request{list.data.total === 1 ? '' : 's'}
            {groups.mine.length > 0 && ` · ${String(groups.mine.length)} waiting for you`}
          </span>
        )}
      </h1>
      <div className="filters">
        <SearchBar params={params} />
        {filtered && (
          <button
            type="button"
            className="quiet"
            onClick={() => {
              navigate('/approvals', { replace: true });
            }}
          >
            Clear filters
          </button>
        )}
      </div>
      <div className="with-rail">
        <Facets params={params} facets={list.data?.facets ?? {}} />
        <section aria-label="requests">
          {list.isError && (
            <p className="error" role="alert">
              ⚠ Could not read the approvals: {explain(list.error)}
              {list.data && ' — showing the last good list.'}{' '}
              <button type="button" onClick={() => void list.refetch()}>
                Retry
              </button>
            </p>
          )}
          {sel !== null && sel !== '' && (
            <>
              <h2>
                Selected{' '}
                <Link className="count" to={withParam(params, 'sel', null)}>
                  (unpin)
                </Link>
              </h2>
              <Refusal error={selected.error} />
              {selected.data && <RequestCard r={selected.data} me={me.data} now={now} selected />}
            </>
          )}
          {list.isPending && <p className="muted">Loading…</p>}
          {list.data && requests.length === 0 && (sel === null || sel === '') && (
            <Empty>
              {filtered
                ? 'No request matches these filters.'
                : 'No approval requests yet: they appear when an action, a raise of autonomy or fix mode draft needs people.'}
            </Empty>
          )}
          {/* One list of siblings keyed by request: a request that moves from one group to
              another (approved by someone else, expired) keeps its typed reason. */}
          <div>
            {(['mine', 'others', 'decided'] as const).flatMap((g) =>
              groups[g].length === 0
                ? []
                : [
                    <h2 key={`group-${g}`}>
                      {GROUP_TITLE[g]} <span className="count">{groups[g].length}</span>
                    </h2>,
                    ...groups[g].map((r) => (
                      <RequestCard
                        key={r.request_id}
                        r={r}
                        me={me.data}
                        now={now}
                        selected={false}
                      />
                    )),
                  ],
            )}
          </div>
          {list.data !== undefined && list.data.total > list.data.requests.length && (
            <p className="muted">
              Showing {list.data.requests.length} of {list.data.total.toLocaleString('en')}: narrow
              the filters to see the rest.
            </p>
          )}
        </section>
      </div>
    </main>
  );
}

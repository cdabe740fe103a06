// The estate page's panels: the side panel of one service, the list view, discovery status
// per connector, suggested links, the overrides editor and the Discover button with its job.
import { episodeKeys } from '../episodes/index.js';
import { estateKeys } from './queries.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { episodesApi } from '../episodes/index.js';
import {
  type Estate,
  type EstateLink,
  type EstateOverrides,
  type EstateService,
  type EstateSuggestion,
  estateApi,
} from './api.js';
import { ApiError } from '../../shared/api.js';
import { Empty, ErrorNote, Link, Time } from '../../shared/parts.js';
import {
  describeOrigin,
  glyphOf,
  nodeKindOf,
  originKindOf,
  originLabel,
  type OriginKind,
} from './model.js';

const ORIGIN_GLYPH: Record<OriginKind, string> = {
  discovered: '⟶',
  observed: '⇢',
  override: '✎',
  suggestion: '✓',
};

export function OriginTag({ kind }: { kind: OriginKind }) {
  return (
    <span className={`origin-tag origin-${kind}`}>
      <span aria-hidden="true">{ORIGIN_GLYPH[kind]}</span> {originLabel(kind)}
    </span>
  );
}

function episodesOf(name: string): string {
  return `/episodes?${new URLSearchParams({ service: name }).toString()}`;
}

/** One service: kind, hosts, how it was made, its links, and its recent episodes. */
export function ServicePanel({
  name,
  service,
  links,
  focus,
  onFocus,
  onClose,
}: {
  name: string;
  service: EstateService | undefined;
  links: readonly EstateLink[];
  focus: string;
  onFocus: (name: string) => void;
  onClose: () => void;
}) {
  const query = new URLSearchParams({ service: name, limit: '5', sort: '-t_open' }).toString();
  const episodes = useQuery({
    queryKey: episodeKeys.list(query),
    queryFn: () => episodesApi.episodes(query),
    retry: false,
  });
  const out = links.filter((l) => l.from === name);
  const into = links.filter((l) => l.to === name);
  const kind = nodeKindOf(service);
  return (
    <aside
      className="estate-panel"
      aria-label={`service ${name}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <header>
        <h2>
          <span aria-hidden="true">{glyphOf(kind)}</span> {name}
        </h2>
        <button type="button" className="quiet" onClick={onClose} aria-label="Close panel">
          ✕
        </button>
      </header>
      {service === undefined && (
        <p className="error">
          No connector found {name} and no override makes it: a link names it. Add it to the
          overrides, or check the link.
        </p>
      )}
      <dl className="facts">
        <dt>Kind</dt>
        <dd>{service?.kind ?? <span className="muted">not set (an override sets it)</span>}</dd>
        <dt>Hosts</dt>
        <dd>
          {service === undefined || service.hosts.length === 0 ? (
            <span className="muted">none known</span>
          ) : (
            service.hosts.join(', ')
          )}
        </dd>
        <dt>Made by</dt>
        <dd>
          <ul className="plain">
            {(service?.origins ?? []).map((o, i) => (
              <li key={i}>{describeOrigin(o)}</li>
            ))}
          </ul>
        </dd>
        <dt>Depends on</dt>
        <dd>
          <LinkList links={out} side="to" />
        </dd>
        <dt>Used by</dt>
        <dd>
          <LinkList links={into} side="from" />
        </dd>
      </dl>
      <h3>Recent episodes</h3>
      {episodes.data !== undefined &&
        (episodes.data.episodes.length === 0 ? (
          <p className="muted">None closed yet.</p>
        ) : (
          <ul className="plain">
            {episodes.data.episodes.map((e) => (
              <li key={e.episode_id}>
                <Link to={`/episodes/${encodeURIComponent(e.episode_id)}`}>{e.episode_id}</Link>{' '}
                <span className="muted">
                  {e.result} · <Time iso={e.t_open} />
                </span>
              </li>
            ))}
          </ul>
        ))}
      <p>
        <Link to={episodesOf(name)}>All episodes of {name}</Link>
      </p>
      {name !== focus && (
        <button type="button" onClick={() => onFocus(name)}>
          Focus on {name}
        </button>
      )}
    </aside>
  );
}

function LinkList({ links, side }: { links: readonly EstateLink[]; side: 'from' | 'to' }) {
  if (links.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="plain">
      {links.map((l, i) => (
        <li key={i}>
          {l[side]} <OriginTag kind={originKindOf(l.origin)} />{' '}
          <span className="muted">({describeOrigin(l.origin)})</span>
        </li>
      ))}
    </ul>
  );
}

type Sort<K extends string> = { key: K; desc: boolean };

function SortHeader<K extends string>({
  label,
  k,
  sort,
  onSort,
}: {
  label: string;
  k: K;
  sort: Sort<K>;
  onSort: (s: Sort<K>) => void;
}) {
  const active = sort.key === k;
  return (
    <th aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
      <button
        type="button"
        className="sort"
        onClick={() => onSort({ key: k, desc: active ? !sort.desc : false })}
      >
        {label} {active ? (sort.desc ? '▼' : '▲') : ''}
      </button>
    </th>
  );
}

function compare(a: string | number, b: string | number): number {
  return typeof a === 'number' && typeof b === 'number'
    ? a - b
    : String(a).localeCompare(String(b));
}

/** The accessible alternative to the graph: every service and every link, sortable. */
export function ListView({ estate, onOpen }: { estate: Estate; onOpen: (name: string) => void }) {
  const [serviceSort, setServiceSort] = useState<Sort<'name' | 'kind' | 'hosts' | 'links'>>({
    key: 'name',
    desc: false,
  });
  const [linkSort, setLinkSort] = useState<Sort<'from' | 'to' | 'origin'>>({
    key: 'from',
    desc: false,
  });
  const degree = new Map<string, number>();
  for (const l of estate.links) {
    degree.set(l.from, (degree.get(l.from) ?? 0) + 1);
    degree.set(l.to, (degree.get(l.to) ?? 0) + 1);
  }
  const serviceValue = (s: EstateService): string | number =>
    serviceSort.key === 'name'
      ? s.name
      : serviceSort.key === 'kind'
        ? (s.kind ?? '')
        : serviceSort.key === 'hosts'
          ? s.hosts.length
          : (degree.get(s.name) ?? 0);
  const services = [...estate.services].sort(
    (a, b) => compare(serviceValue(a), serviceValue(b)) * (serviceSort.desc ? -1 : 1),
  );
  const linkValue = (l: EstateLink): string =>
    linkSort.key === 'origin' ? originKindOf(l.origin) : l[linkSort.key];
  const links = [...estate.links].sort(
    (a, b) => compare(linkValue(a), linkValue(b)) * (linkSort.desc ? -1 : 1),
  );
  return (
    <div className="estate-list">
      <table className="table" aria-label="services">
        <caption>Services ({estate.services.length})</caption>
        <thead>
          <tr>
            <SortHeader label="Service" k="name" sort={serviceSort} onSort={setServiceSort} />
            <SortHeader label="Kind" k="kind" sort={serviceSort} onSort={setServiceSort} />
            <SortHeader label="Hosts" k="hosts" sort={serviceSort} onSort={setServiceSort} />
            <th>Made by</th>
            <SortHeader label="Links" k="links" sort={serviceSort} onSort={setServiceSort} />
          </tr>
        </thead>
        <tbody>
          {services.map((s) => (
            <tr key={s.name}>
              <td>
                <button type="button" className="linkish" onClick={() => onOpen(s.name)}>
                  <span aria-hidden="true">{glyphOf(nodeKindOf(s))}</span> {s.name}
                </button>
              </td>
              <td>{s.kind ?? <span className="muted">—</span>}</td>
              <td>{s.hosts.join(', ')}</td>
              <td>{s.origins.map(describeOrigin).join('; ')}</td>
              <td className="num">{degree.get(s.name) ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="table" aria-label="links">
        <caption>Links ({estate.links.length}): the first depends on the second</caption>
        <thead>
          <tr>
            <SortHeader label="From" k="from" sort={linkSort} onSort={setLinkSort} />
            <SortHeader label="To" k="to" sort={linkSort} onSort={setLinkSort} />
            <SortHeader label="Origin" k="origin" sort={linkSort} onSort={setLinkSort} />
            <th>How</th>
          </tr>
        </thead>
        <tbody>
          {links.map((l, i) => (
            <tr key={`${l.from}→${l.to}:${describeOrigin(l.origin)}:${String(i)}`}>
              <td>{l.from}</td>
              <td>{l.to}</td>
              <td>
                <OriginTag kind={originKindOf(l.origin)} />
              </td>
              <td>{describeOrigin(l.origin)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {links.length === 0 && <Empty>No links yet.</Empty>}
    </div>
  );
}

const STATUS_GLYPH = { ok: '✓', stale: '◷', failed: '✕' } as const;

/** What each connector found, the problems, the unlinked services and any candidates. */
export function FoundStatus({
  estate,
  onOpen,
}: {
  estate: Estate;
  onOpen: (name: string) => void;
}) {
  const connectors = Object.entries(estate.connectors).sort(([a], [b]) => a.localeCompare(b));
  const answered = connectors.filter(([, c]) => c.status === 'ok').length;
  return (
    <section className="estate-found" aria-labelledby="estate-found-h">
      <h2 id="estate-found-h">
        Discovery{' '}
        <span className="count">
          {connectors.length === 0
            ? ''
            : `${String(answered)} of ${String(connectors.length)} connectors answered`}
        </span>
      </h2>
      {connectors.length === 0 ? (
        <Empty>
          No discovery has run yet. Connect a Prometheus (<Link to="/connections">Connections</Link>
          ) and press Discover, or place services and links in the overrides below.
        </Empty>
      ) : (
        <table className="table" aria-label="connectors found">
          <thead>
            <tr>
              <th>Connector</th>
              <th>Status</th>
              <th>Last attempt</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {connectors.map(([name, c]) => (
              <tr key={name}>
                <td>{name}</td>
                <td>
                  <span className={`found found-${c.status}`}>
                    <span aria-hidden="true">{STATUS_GLYPH[c.status]}</span> {c.status}
                  </span>
                </td>
                <td>
                  <Time iso={c.at} />
                </td>
                <td>{c.detail ?? <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {estate.problems.length > 0 && (
        <>
          <h3>Problems ({estate.problems.length})</h3>
          <ul className="plain problems">
            {estate.problems.map((p, i) => (
              <li key={i}>
                <span aria-hidden="true">⚠</span> <code>{p.what}</code> {p.detail}
              </li>
            ))}
          </ul>
        </>
      )}
      {estate.unlinked.length > 0 && (
        <>
          <h3>Unlinked ({estate.unlinked.length})</h3>
          <p className="hint">
            Services with no link either way: place one in the overrides if they depend on
            something.
          </p>
          <ul className="chips">
            {estate.unlinked.map((n) => (
              <li key={n}>
                <button type="button" className="linkish" onClick={() => onOpen(n)}>
                  {n}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {estate.candidates !== undefined && estate.candidates.length > 0 && (
        <>
          <h3>Candidates ({estate.candidates.length})</h3>
          <p className="hint">
            Seen running but listening on no port: name one in the overrides to make it a service.
          </p>
          <ul className="plain">
            {estate.candidates.map((c) => (
              <li key={`${c.connector}:${c.host}:${c.name}`}>
                <strong>{c.name}</strong> on {c.host}{' '}
                <span className="muted">
                  ({c.connector}: {c.how})
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function evidenceText(evidence: unknown): string {
  return typeof evidence === 'string' ? evidence : JSON.stringify(evidence);
}

/** Suggested links with their evidence; confirm or dismiss (admin). */
export function Suggestions({ isAdmin, reason }: { isAdmin: boolean; reason: string }) {
  const qc = useQueryClient();
  const list = useQuery({
    queryKey: estateKeys.suggestions,
    // An older service has no suggestions: say so rather than fail.
    queryFn: () =>
      estateApi.suggestions().catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }),
    retry: false,
  });
  const [done, setDone] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: ({ s, verb }: { s: EstateSuggestion; verb: 'confirm' | 'dismiss' }) =>
      verb === 'confirm' ? estateApi.confirm(s.id) : estateApi.dismiss(s.id),
    onSuccess: (_, { s, verb }) => {
      setDone(`${verb === 'confirm' ? 'Confirmed' : 'Dismissed'} ${s.from} → ${s.to}`);
      void qc.invalidateQueries({ queryKey: estateKeys.suggestions });
      void qc.invalidateQueries({ queryKey: estateKeys.all });
    },
  });
  const suggestions = list.data?.suggestions ?? [];
  return (
    <section className="estate-suggestions" aria-labelledby="estate-suggestions-h">
      <h2 id="estate-suggestions-h">
        Suggested links{' '}
        {suggestions.length > 0 && <span className="count">{suggestions.length}</span>}
      </h2>
      {list.data === null && <p className="muted">This service does not suggest links yet.</p>}
      <ErrorNote error={list.error ?? act.error} />
      {done !== null && (
        <p className="ok" role="status">
          ✓ {done}
        </p>
      )}
      {list.data !== null && list.data !== undefined && suggestions.length === 0 && (
        <Empty>No suggestions waiting.</Empty>
      )}
      {suggestions.length > 0 && (
        <table className="table" aria-label="suggested links">
          <thead>
            <tr>
              <th>Link</th>
              <th className="num">Score</th>
              <th>Evidence</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {suggestions.map((s) => (
              <tr key={s.id}>
                <td>
                  {s.from} → {s.to}
                </td>
                <td className="num">{s.score.toFixed(2)}</td>
                <td className="evidence">{evidenceText(s.evidence)}</td>
                <td className="actions">
                  <button
                    type="button"
                    disabled={!isAdmin || act.isPending}
                    title={isAdmin ? 'Add this link to the estate' : reason}
                    aria-label={`Confirm ${s.from} → ${s.to}`}
                    onClick={() => act.mutate({ s, verb: 'confirm' })}
                  >
                    ✓ Confirm
                  </button>{' '}
                  <button
                    type="button"
                    disabled={!isAdmin || act.isPending}
                    title={isAdmin ? 'Do not suggest this link again' : reason}
                    aria-label={`Dismiss ${s.from} → ${s.to}`}
                    onClick={() => act.mutate({ s, verb: 'dismiss' })}
                  >
                    ✕ Dismiss
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const format = (o: unknown): string => JSON.stringify(o, null, 2);

/** The overrides as JSON: what is being typed is never replaced by a refetch. */
export function OverridesEditor({ isAdmin, reason }: { isAdmin: boolean; reason: string }) {
  const qc = useQueryClient();
  const id = useId();
  const view = useQuery({ queryKey: estateKeys.overrides, queryFn: estateApi.overrides });
  const [text, setText] = useState<string | null>(null);
  const [problem, setProblem] = useState<{ message: string; field?: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const server = view.data === undefined ? '' : format(view.data.overrides);
  // Untouched, the editor follows the server; once typed in, it is the person's until saved.
  const shown = text ?? server;
  const dirty = text !== null && text !== server;
  const save = useMutation({
    mutationFn: (body: EstateOverrides) => estateApi.putOverrides(body),
    onSuccess: (answer) => {
      qc.setQueryData(estateKeys.overrides, answer);
      setText(null);
      setProblem(null);
      setSaved(true);
      void qc.invalidateQueries({ queryKey: estateKeys.all });
    },
    onError: (err) => {
      setSaved(false);
      setProblem(
        err instanceof ApiError
          ? { message: err.message, ...(err.field !== undefined && { field: err.field }) }
          : { message: err instanceof Error ? err.message : String(err) },
      );
    },
  });
  useEffect(() => {
    if (dirty) setSaved(false);
  }, [dirty]);
  const submit = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(shown);
    } catch (err) {
      setProblem({ message: `not valid JSON: ${(err as Error).message}` });
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setProblem({ message: 'the overrides are one JSON object: {services, links, ignore}' });
      return;
    }
    setProblem(null);
    save.mutate(parsed);
  };
  let note: ReactNode = null;
  if (view.data?.set_by != null)
    note = (
      <span className="muted">
        Set by {view.data.set_by} at <Time iso={view.data.set_at} />
      </span>
    );
  return (
    <section className="estate-overrides" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Overrides</h2>
      <p className="hint">
        Hand-made services (with <code>kind</code> and <code>aliases</code>), placed links and
        ignored names; they apply at once, without a new discovery. {note}
      </p>
      <ErrorNote error={view.error} />
      <form
        aria-label="overrides"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label htmlFor={`${id}-text`} className="visually-hidden">
          Overrides JSON
        </label>
        <textarea
          id={`${id}-text`}
          className="overrides-text"
          spellCheck={false}
          rows={Math.min(24, Math.max(8, shown.split('\n').length + 1))}
          value={shown}
          readOnly={!isAdmin}
          aria-invalid={problem !== null}
          aria-describedby={problem !== null ? `${id}-error` : `${id}-help`}
          onChange={(e) => setText(e.target.value)}
        />
        <p id={`${id}-help`} className="hint">
          Example:{' '}
          <code>
            {
              '{"services": {"db": {"aliases": ["pg-main"], "kind": "postgresql"}}, "links": [{"from": "web", "to": "db"}], "ignore": ["legacy"]}'
            }
          </code>
        </p>
        {problem !== null && (
          <p id={`${id}-error`} className="error" role="alert">
            ⚠ {problem.message}
            {problem.field !== undefined && (
              <>
                {' '}
                (field <code>{problem.field}</code>)
              </>
            )}
          </p>
        )}
        {saved && !dirty && (
          <p className="ok" role="status">
            ✓ Saved the overrides
          </p>
        )}
        <div className="buttons">
          <button
            type="submit"
            disabled={!isAdmin || save.isPending || !dirty}
            title={!isAdmin ? reason : dirty ? 'Replace the overrides' : 'Nothing changed yet'}
          >
            Save overrides
          </button>{' '}
          <button
            type="button"
            disabled={!dirty}
            onClick={() => {
              setText(null);
              setProblem(null);
            }}
          >
            Discard changes
          </button>
          {!isAdmin && <span className="muted"> {reason}</span>}
        </div>
      </form>
    </section>
  );
}

/** Discover: POST /v1/discover, then the job's progress until it ends. */
export function Discover({ isAdmin, reason }: { isAdmin: boolean; reason: string }) {
  const qc = useQueryClient();
  const [jobId, setJobId] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: estateApi.discover,
    onSuccess: ({ job_id }) => setJobId(job_id),
  });
  const job = useQuery({
    queryKey: estateKeys.job(jobId ?? ''),
    queryFn: () => estateApi.job(jobId ?? ''),
    enabled: jobId !== null,
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 500 : false),
  });
  const status = job.data?.status;
  useEffect(() => {
    if (status === 'done' || status === 'failed') {
      void qc.invalidateQueries({ queryKey: estateKeys.all });
      void qc.invalidateQueries({ queryKey: estateKeys.suggestions });
    }
  }, [status, qc]);
  const running = start.isPending || status === 'running';
  const j = job.data;
  return (
    <div className="discover">
      <button
        type="button"
        className="primary"
        disabled={!isAdmin || running}
        title={isAdmin ? 'Ask every Prometheus connector for its scrape targets' : reason}
        onClick={() => start.mutate()}
      >
        {running ? 'Discovering…' : 'Discover'}
      </button>
      <ErrorNote error={start.error ?? job.error} />
      {j !== undefined && (
        <div className="discover-job" role="status" aria-live="polite">
          <progress
            value={j.progress.done}
            max={Math.max(1, j.progress.total)}
            aria-label="discovery progress"
          />{' '}
          <span className="num">
            {j.progress.done}/{j.progress.total}
          </span>{' '}
          connectors ·{' '}
          {j.status === 'running'
            ? `discovering…${j.progress.step !== undefined ? ` (${j.progress.step})` : ''}`
            : j.status === 'done'
              ? `done: ${String(j.result?.services ?? 0)} services, ${String(j.result?.links ?? 0)} links`
              : 'failed'}
          {j.result !== null && (
            <ul className="plain per-connector">
              {Object.entries(j.result.per_connector).map(([name, c]) => (
                <li key={name}>
                  <span className={`found found-${c.status}`}>
                    <span aria-hidden="true">{STATUS_GLYPH[c.status]}</span> {name}: {c.status}
                  </span>
                  {c.detail !== null && <span className="muted"> — {c.detail}</span>}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

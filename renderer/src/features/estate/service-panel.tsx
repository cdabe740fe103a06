// One service's side panel (kind, hosts, how it was made, its links, recent episodes) and the
// tag that says how a link was made.
import { episodeKeys, episodesApi } from '../episodes/index.js';
import { useQuery } from '@tanstack/react-query';
import { type EstateLink, type EstateService } from './api.js';
import { Link, Time } from '../../shared/parts.js';
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

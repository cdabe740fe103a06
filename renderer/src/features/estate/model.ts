// The estate page's pure parts: what kind of thing a service is, what kind of origin a link
// has, the focused neighbourhood, and the dagre layout with its position cache.
import { Graph, layout } from '@dagrejs/dagre';
import { type EstateLink, type EstateOrigin, type EstateService } from './api.js';

/** Node shapes: a service's `kind` (free text from an override) falls into one of these. */
export type NodeKind = 'service' | 'datastore' | 'queue' | 'external' | 'unknown';

export const NODE_KINDS: readonly { kind: NodeKind; glyph: string; label: string }[] = [
  { kind: 'service', glyph: '▣', label: 'service' },
  { kind: 'datastore', glyph: '⛁', label: 'datastore' },
  { kind: 'queue', glyph: '☰', label: 'queue' },
  { kind: 'external', glyph: '☁', label: 'external' },
  { kind: 'unknown', glyph: '?', label: 'named by a link, not found' },
];

const DATASTORE =
  /postgres|mysql|maria|sql|redis|mongo|cassandra|elastic|opensearch|etcd|memcache|database|^db$|datastore|store|cache|s3|bucket/i;
const QUEUE = /kafka|rabbit|queue|sqs|nats|pulsar|mq|pubsub|stream/i;
const EXTERNAL = /external|saas|third|vendor|api-gateway|cdn|dns/i;

export function nodeKindOf(service: EstateService | undefined): NodeKind {
  if (service === undefined) return 'unknown';
  const kind = service.kind ?? '';
  if (kind === '') return 'service';
  if (DATASTORE.test(kind)) return 'datastore';
  if (QUEUE.test(kind)) return 'queue';
  if (EXTERNAL.test(kind)) return 'external';
  return 'service';
}

export function glyphOf(kind: NodeKind): string {
  return NODE_KINDS.find((k) => k.kind === kind)?.glyph ?? '▣';
}

/** Edge relation types: how the link was made. */
export type OriginKind = 'discovered' | 'observed' | 'override' | 'suggestion';

export const ORIGIN_KINDS: readonly { kind: OriginKind; label: string; title: string }[] = [
  {
    kind: 'discovered',
    label: 'discovered label',
    title: 'a label a connector reported, e.g. depends_on on a Prometheus target',
  },
  {
    kind: 'observed',
    label: 'observed connection',
    title: 'a connection a connector saw between the two',
  },
  { kind: 'override', label: 'override', title: 'placed by hand in the overrides' },
  {
    kind: 'suggestion',
    label: 'confirmed suggestion',
    title: 'suggested from evidence and confirmed by a person',
  },
];

export function originKindOf(origin: EstateOrigin): OriginKind {
  const how = origin.how.toLowerCase();
  if (how.includes('suggest')) return 'suggestion';
  if (origin.connector === null && how.includes('override')) return 'override';
  if (how.includes('observ') || how.includes('connection') || how.includes('traffic'))
    return 'observed';
  return 'discovered';
}

export function originLabel(kind: OriginKind): string {
  return ORIGIN_KINDS.find((o) => o.kind === kind)?.label ?? kind;
}

/** "prom: label depends_on", or "override". */
export function describeOrigin(origin: EstateOrigin): string {
  return origin.connector === null ? origin.how : `${origin.connector}: ${origin.how}`;
}

/** The service with the most links (then by name): the default focus. */
export function defaultFocus(services: readonly EstateService[], links: readonly EstateLink[]) {
  const degree = new Map<string, number>();
  for (const l of links) {
    degree.set(l.from, (degree.get(l.from) ?? 0) + 1);
    degree.set(l.to, (degree.get(l.to) ?? 0) + 1);
  }
  let best: string | null = null;
  let bestDegree = -1;
  for (const s of [...services].sort((a, b) => a.name.localeCompare(b.name))) {
    const d = degree.get(s.name) ?? 0;
    if (d > bestDegree) {
      best = s.name;
      bestDegree = d;
    }
  }
  return best;
}

export interface Neighbourhood {
  /** Node names with their distance from the focus. */
  nodes: Map<string, number>;
  /** Every link between shown nodes whose origin is shown, even ones already reached. */
  links: EstateLink[];
  /** Names one step further out: what depth + 1 would add. */
  beyond: number;
}

/** The focus and everything within `depth` links of it, either direction. */
export function neighbourhood(
  focus: string,
  depth: number,
  links: readonly EstateLink[],
  shown: ReadonlySet<OriginKind>,
): Neighbourhood {
  const usable = links.filter((l) => shown.has(originKindOf(l.origin)));
  const adjacent = new Map<string, Set<string>>();
  const touch = (a: string, b: string) => {
    const set = adjacent.get(a) ?? new Set<string>();
    set.add(b);
    adjacent.set(a, set);
  };
  for (const l of usable) {
    touch(l.from, l.to);
    touch(l.to, l.from);
  }
  const nodes = new Map<string, number>([[focus, 0]]);
  let frontier = [focus];
  for (let d = 1; d <= depth + 1; d++) {
    const next: string[] = [];
    for (const name of frontier)
      for (const other of adjacent.get(name) ?? [])
        if (!nodes.has(other)) {
          nodes.set(other, d);
          next.push(other);
        }
    frontier = next;
  }
  let beyond = 0;
  for (const [name, d] of nodes)
    if (d > depth) {
      nodes.delete(name);
      beyond++;
    }
  const seen = new Set<string>();
  const kept: EstateLink[] = [];
  for (const l of usable) {
    if (!nodes.has(l.from) || !nodes.has(l.to)) continue;
    const id = edgeId(l);
    if (seen.has(id)) continue;
    seen.add(id);
    kept.push(l);
  }
  return { nodes, links: kept, beyond };
}

export function edgeId(l: EstateLink): string {
  return `${l.from}→${l.to}:${originKindOf(l.origin)}:${l.origin.connector ?? ''}`;
}

export const NODE_W = 190;
export const NODE_H = 58;

export type Positions = ReadonlyMap<string, { x: number; y: number }>;

/** Layouts already made, by the graph's shape: a refetch of the same graph never re-lays it out. */
const cache = new Map<string, Positions>();
const CACHE_MAX = 50;

/** A key for the graph's shape: its node names and the pairs they link. */
export function graphKey(nodes: Iterable<string>, links: readonly EstateLink[]): string {
  const names = [...nodes].sort();
  const pairs = [...new Set(links.map((l) => `${l.from}\u0000${l.to}`))].sort();
  return `${names.join('\u0001')}\u0002${pairs.join('\u0001')}`;
}

/** Top-left positions from dagre (left to right: a service on the left depends on the right). */
export function layoutGraph(nodes: Iterable<string>, links: readonly EstateLink[]): Positions {
  const names = [...nodes];
  const key = graphKey(names, links);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const g = new Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 36, ranksep: 110, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of [...names].sort()) g.setNode(n, { width: NODE_W, height: NODE_H });
  for (const l of links) if (l.from !== l.to) g.setEdge(l.from, l.to);
  layout(g);
  const positions = new Map<string, { x: number; y: number }>();
  for (const n of names) {
    const p = g.node(n) as { x: number; y: number } | undefined;
    positions.set(n, { x: (p?.x ?? 0) - NODE_W / 2, y: (p?.y ?? 0) - NODE_H / 2 });
  }
  if (cache.size >= CACHE_MAX) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, positions);
  return positions;
}

/** The nearest node in an arrow key's direction, for keyboard moves between nodes. */
export function nearestInDirection(
  from: string,
  key: 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight',
  positions: Positions,
): string | null {
  const here = positions.get(from);
  if (here === undefined) return null;
  let best: string | null = null;
  let bestScore = Infinity;
  for (const [name, p] of positions) {
    if (name === from) continue;
    const dx = p.x - here.x;
    const dy = p.y - here.y;
    const along =
      key === 'ArrowRight' ? dx : key === 'ArrowLeft' ? -dx : key === 'ArrowDown' ? dy : -dy;
    const across = key === 'ArrowRight' || key === 'ArrowLeft' ? Math.abs(dy) : Math.abs(dx);
    if (along <= 0) continue;
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = name;
    }
  }
  return best;
}

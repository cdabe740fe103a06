// The estate graph: React Flow draws, dagre lays out (cached by the graph's shape, so a
// refetch that changes nothing moves nothing). Nodes are shaped and iconed by kind, edges
// styled and labelled by origin; arrow keys move between nodes and Enter opens one.
import {
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  Controls,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useCallback, useMemo, useRef, type KeyboardEvent } from 'react';
import { type EstateLink, type EstateService } from './api.js';
import {
  NODE_KINDS,
  ORIGIN_KINDS,
  describeOrigin,
  edgeId,
  glyphOf,
  layoutGraph,
  nearestInDirection,
  nodeKindOf,
  originKindOf,
  originLabel,
  type NodeKind,
  type OriginKind,
} from './model.js';

type ServiceNodeData = {
  name: string;
  kind: NodeKind;
  kindText: string;
  distance: number;
  focus: boolean;
  hosts: number;
};
type ServiceNode = Node<ServiceNodeData, 'service'>;

const ServiceNodeView = memo(function ServiceNodeView({ data, selected }: NodeProps<ServiceNode>) {
  return (
    <div
      className={`estate-node kind-${data.kind}${data.focus ? ' focus' : ''}${selected ? ' selected' : ''}`}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="glyph" aria-hidden="true">
        {glyphOf(data.kind)}
      </span>
      <span className="text">
        <span className="name">{data.name}</span>
        <span className="sub">
          {data.kindText}
          {data.hosts > 0 && ` · ${String(data.hosts)} host${data.hosts === 1 ? '' : 's'}`}
          {data.focus && ' · focus'}
        </span>
      </span>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { service: ServiceNodeView };

export function Legend({
  shown,
  counts,
  onToggle,
}: {
  shown: ReadonlySet<OriginKind>;
  counts: ReadonlyMap<OriginKind, number>;
  onToggle: (kind: OriginKind) => void;
}) {
  return (
    <div className="estate-legend">
      <div role="list" aria-label="node kinds">
        {NODE_KINDS.map((k) => (
          <span key={k.kind} role="listitem" className={`legend-node kind-${k.kind}`}>
            <span className="glyph" aria-hidden="true">
              {k.glyph}
            </span>{' '}
            {k.label}
          </span>
        ))}
      </div>
      <fieldset className="edge-filter">
        <legend>Links by origin</legend>
        {ORIGIN_KINDS.map((o) => (
          <label key={o.kind} title={o.title} className={`legend-edge origin-${o.kind}`}>
            <input type="checkbox" checked={shown.has(o.kind)} onChange={() => onToggle(o.kind)} />
            <svg width="34" height="10" aria-hidden="true">
              <line x1="1" y1="5" x2="33" y2="5" />
            </svg>
            {o.label} <span className="num">{counts.get(o.kind) ?? 0}</span>
          </label>
        ))}
      </fieldset>
    </div>
  );
}

export function EstateGraph({
  focus,
  viewKey,
  nodes: names,
  links,
  services,
  selected,
  onOpen,
}: {
  focus: string;
  /** A change (focus, depth) re-fits the view; a refetch keeps the viewport. */
  viewKey: string;
  nodes: ReadonlyMap<string, number>;
  links: readonly EstateLink[];
  services: ReadonlyMap<string, EstateService>;
  selected: string | null;
  onOpen: (name: string) => void;
}) {
  const positions = useMemo(() => layoutGraph(names.keys(), links), [names, links]);
  const nodes = useMemo<ServiceNode[]>(
    () =>
      [...names].map(([name, distance]) => {
        const service = services.get(name);
        const kind = nodeKindOf(service);
        const kindText = service?.kind ?? (kind === 'unknown' ? 'not found' : 'service');
        return {
          id: name,
          type: 'service' as const,
          position: positions.get(name) ?? { x: 0, y: 0 },
          data: {
            name,
            kind,
            kindText,
            distance,
            focus: name === focus,
            hosts: service?.hosts.length ?? 0,
          },
          selected: name === selected,
          ariaLabel: `${name}, ${kindText}${name === focus ? ', focus' : ''}`,
          draggable: false,
          connectable: false,
        };
      }),
    [names, services, positions, focus, selected],
  );
  const edges = useMemo<Edge[]>(
    () =>
      links.map((l) => {
        const kind = originKindOf(l.origin);
        return {
          id: edgeId(l),
          source: l.from,
          target: l.to,
          label: originLabel(kind),
          className: `origin-${kind}`,
          ariaLabel: `${l.from} depends on ${l.to}: ${describeOrigin(l.origin)}`,
          markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
          focusable: false,
        };
      }),
    [links],
  );
  const wrapper = useRef<HTMLDivElement>(null);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      const target = e.target as HTMLElement;
      if (!target.classList.contains('react-flow__node')) return;
      const id = target.dataset['id'];
      if (id === undefined) return;
      if (e.key === 'Enter') {
        e.preventDefault();
        onOpen(id);
        return;
      }
      if (
        e.key === 'ArrowUp' ||
        e.key === 'ArrowDown' ||
        e.key === 'ArrowLeft' ||
        e.key === 'ArrowRight'
      ) {
        e.preventDefault();
        e.stopPropagation();
        const next = nearestInDirection(id, e.key, positions);
        if (next === null) return;
        const el = wrapper.current?.querySelector<HTMLElement>(
          `.react-flow__node[data-id="${CSS.escape(next)}"]`,
        );
        el?.focus();
      }
    },
    [onOpen, positions],
  );
  return (
    <div
      className="estate-graph"
      ref={wrapper}
      onKeyDownCapture={onKeyDown}
      aria-label={`dependency graph around ${focus}: ${String(names.size)} services, ${String(links.length)} links; arrow keys move between services, Enter opens one`}
      role="figure"
    >
      <ReactFlow
        key={viewKey}
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodeClick={(_, node) => onOpen(node.id)}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable
        edgesFocusable={false}
        elementsSelectable={false}
        fitView
        fitViewOptions={{ padding: 0.15, maxZoom: 1.2 }}
        minZoom={0.2}
        maxZoom={2}
        colorMode="system"
        deleteKeyCode={null}
        selectionKeyCode={null}
        multiSelectionKeyCode={null}
      >
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

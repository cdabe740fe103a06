// The estate as two sortable tables, services and links: the graph's text alternative.
import { useState } from 'react';
import { type Estate, type EstateLink, type EstateService } from './api.js';
import { Empty } from '../../shared/parts.js';
import { describeOrigin, glyphOf, nodeKindOf, originKindOf } from './model.js';
import { OriginTag } from './service-panel.js';

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

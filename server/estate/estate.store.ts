import type { Database } from 'better-sqlite3';
import { projectionOf, type LedgerEvent } from '../ledger/index.js';
import type { EstateEvents } from './estate.events.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { anyObservations, observationsOf, type ObservationRow } from './estate.observed.js';
import type { Origin } from './estate.schemas.js';

/** What one connector found: {connector, services, links, job_id?}; replaces its earlier findings. */
export const ESTATE_DISCOVERED = 'estate.discovered';
/** A connector could not be read: {connector, detail, job_id?}; its earlier findings stay. */
export const ESTATE_DISCOVER_FAILED = 'estate.discover_failed';
/** PUT /v1/estate/overrides: {overrides, via?}. */
export const ESTATE_OVERRIDES_SET = 'config.estate_overrides';
/** A suggested link confirmed: {id, from, to, evidence, score, via?}; it becomes a placed link. */
export const ESTATE_SUGGESTION_CONFIRMED = 'estate.suggestion_confirmed';
/** A suggested link dismissed: {id, from, to, evidence, reason, via?}; never suggested again. */
export const ESTATE_SUGGESTION_DISMISSED = 'estate.suggestion_dismissed';

/** A suggestion a person decided on. */
export interface DecidedRow {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly status: 'confirmed' | 'dismissed';
  readonly evidence: string;
  readonly reason: string | null;
  readonly actor: string;
  readonly at: string;
}

export interface FoundService {
  readonly name: string;
  readonly kind: string | null;
  readonly hosts: readonly string[];
  readonly origin: Origin;
}
export interface FoundLink {
  readonly from: string;
  readonly to: string;
  readonly origin: Origin;
}

export interface ServiceRow {
  readonly connector: string;
  readonly name: string;
  readonly kind: string | null;
  readonly hosts: string[];
  readonly origins: Origin[];
  readonly last_seen: string;
}
export interface LinkRow {
  readonly connector: string;
  readonly from: string;
  readonly to: string;
  readonly origin: Origin;
}
export interface ConnectorRow {
  readonly connector: string;
  readonly status: 'ok' | 'failed';
  readonly at: string;
  readonly detail: string | null;
  readonly found_at: string | null;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/**
 * The reader's lists in an estate.discovered event: the service spreads the whole reading,
 * whose services and links the schema leaves to the estate's own schemas.
 */
function foundOf(d: EstateEvents['estate.discovered']): {
  readonly services: unknown[];
  readonly links: unknown[];
} {
  const all = record(d);
  return { services: list(all['services']), links: list(all['links']) };
}
const originOf = (v: unknown, connector: string): Origin => {
  const o = record(v);
  return {
    connector: typeof o['connector'] === 'string' ? o['connector'] : connector,
    how: text(o['how']),
  };
};

export function createEstateStore(db: Database) {
  let changes = 0;
  const services = db.prepare<
    [],
    {
      connector: string;
      name: string;
      kind: string | null;
      hosts: string;
      origins: string;
      last_seen: string;
    }
  >(
    'SELECT connector, name, kind, hosts, origins, last_seen FROM estate_services ORDER BY name, connector',
  );
  const links = db.prepare<
    [],
    { connector: string; from_service: string; to_service: string; origin: string }
  >(
    'SELECT connector, from_service, to_service, origin FROM estate_links ORDER BY from_service, to_service, connector',
  );
  const connectors = db.prepare<[], ConnectorRow>(
    'SELECT connector, status, at, detail, found_at FROM estate_connectors ORDER BY connector',
  );
  const overrides = db.prepare<[], { document: string; set_by: string; set_at: string }>(
    'SELECT document, set_by, set_at FROM estate_overrides WHERE id = 1',
  );
  const dropServices = db.prepare<[string]>('DELETE FROM estate_services WHERE connector = ?');
  const dropLinks = db.prepare<[string]>('DELETE FROM estate_links WHERE connector = ?');
  const putService = db.prepare<[string, string, string | null, string, string, string]>(
    `INSERT INTO estate_services (connector, name, kind, hosts, origins, last_seen)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (connector, name) DO UPDATE SET
       kind = coalesce(excluded.kind, kind), hosts = excluded.hosts, origins = excluded.origins`,
  );
  const findService = db.prepare<[string, string], { hosts: string; origins: string }>(
    'SELECT hosts, origins FROM estate_services WHERE connector = ? AND name = ?',
  );
  const putLink = db.prepare<[string, string, string, string]>(
    'INSERT OR IGNORE INTO estate_links (connector, from_service, to_service, origin) VALUES (?, ?, ?, ?)',
  );
  const putConnector = db.prepare<[string, string, string, string | null, string | null]>(
    `INSERT INTO estate_connectors (connector, status, at, detail, found_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (connector) DO UPDATE SET status = excluded.status, at = excluded.at,
       detail = excluded.detail, found_at = coalesce(excluded.found_at, found_at)`,
  );
  const putOverrides = db.prepare<[string, string, string]>(
    'INSERT OR REPLACE INTO estate_overrides (id, document, set_by, set_at) VALUES (1, ?, ?, ?)',
  );
  const observations = db.prepare<[], { connector: string; document: string }>(
    'SELECT connector, document FROM estate_observations ORDER BY connector',
  );
  const putObservations = db.prepare<[string, string, string]>(
    'INSERT OR REPLACE INTO estate_observations (connector, document, at) VALUES (?, ?, ?)',
  );
  const dropObservations = db.prepare<[string]>(
    'DELETE FROM estate_observations WHERE connector = ?',
  );
  const decided = db.prepare<
    [],
    {
      id: string;
      from_service: string;
      to_service: string;
      status: 'confirmed' | 'dismissed';
      evidence: string;
      reason: string | null;
      actor: string;
      at: string;
    }
  >(
    'SELECT id, from_service, to_service, status, evidence, reason, actor, at FROM estate_suggestions ORDER BY at, id',
  );
  const putDecided = db.prepare<
    [string, string, string, string, string, string | null, string, string]
  >(
    `INSERT OR IGNORE INTO estate_suggestions (id, from_service, to_service, status, evidence, reason, actor, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  /** A suggestion confirmed or dismissed; one missing end leaves it undecided. */
  function decide(
    d: EstateEvents['estate.suggestion_confirmed'] | EstateEvents['estate.suggestion_dismissed'],
    status: 'confirmed' | 'dismissed',
    e: LedgerEvent,
  ): void {
    const id = text(d.id);
    const from = text(d.from);
    const to = text(d.to);
    if (id === '' || from === '' || to === '') return;
    const reason = 'reason' in d ? text(d.reason) : '';
    putDecided.run(
      id,
      from,
      to,
      status,
      text(d.evidence),
      reason === '' ? null : reason,
      e.actor,
      e.ts,
    );
  }

  /** One service of one connector; a name found twice merges its hosts and origins. */
  function addService(connector: string, raw: unknown, at: string): void {
    const s = record(raw);
    const name = text(s['name']);
    if (name === '') return;
    const hosts = list(s['hosts']).filter((h): h is string => typeof h === 'string');
    const origin = originOf(s['origin'], connector);
    const kind = typeof s['kind'] === 'string' ? s['kind'] : null;
    const before = findService.get(connector, name);
    const allHosts = new Set([...(before ? (JSON.parse(before.hosts) as string[]) : []), ...hosts]);
    const origins = before ? (JSON.parse(before.origins) as Origin[]) : [];
    if (!origins.some((o) => o.connector === origin.connector && o.how === origin.how))
      origins.push(origin);
    putService.run(
      connector,
      name,
      kind,
      JSON.stringify([...allHosts].sort()),
      JSON.stringify(origins),
      at,
    );
  }

  return {
    services: (): ServiceRow[] =>
      services.all().map((r) => ({
        ...r,
        hosts: JSON.parse(r.hosts) as string[],
        origins: JSON.parse(r.origins) as Origin[],
      })),
    links: (): LinkRow[] =>
      links.all().map((r) => ({
        connector: r.connector,
        from: r.from_service,
        to: r.to_service,
        origin: JSON.parse(r.origin) as Origin,
      })),
    connectors: (): ConnectorRow[] => connectors.all(),
    /** Each connector's observations (listening ports, connections, probes, candidates). */
    observations: (): ObservationRow[] =>
      observations.all().map((r) => ({
        connector: r.connector,
        observations: observationsOf(JSON.parse(r.document)),
      })),
    /** Suggestions confirmed or dismissed, oldest first. */
    decided: (): DecidedRow[] =>
      decided.all().map((r) => ({
        id: r.id,
        from: r.from_service,
        to: r.to_service,
        status: r.status,
        evidence: r.evidence,
        reason: r.reason,
        actor: r.actor,
        at: r.at,
      })),
    /** Moves whenever an estate event is applied (a rolled-back one too: only a cache reads it). */
    changes: (): number => changes,
    overrides(): { document: Record<string, unknown>; set_by: string; set_at: string } | null {
      const row = overrides.get();
      return row ? { ...row, document: JSON.parse(row.document) as Record<string, unknown> } : null;
    },
    projection: projectionOf<EstateEvents>({
      name: 'estate',
      tables: [
        'estate_services',
        'estate_links',
        'estate_connectors',
        'estate_overrides',
        'estate_observations',
        'estate_suggestions',
      ],
      on: {
        [ESTATE_OVERRIDES_SET]: (d, e) => {
          changes += 1;
          putOverrides.run(canonicalJson(d.overrides ?? {}), e.actor, e.ts);
        },
        [ESTATE_SUGGESTION_CONFIRMED]: (d, e) => {
          changes += 1;
          decide(d, 'confirmed', e);
        },
        [ESTATE_SUGGESTION_DISMISSED]: (d, e) => {
          changes += 1;
          decide(d, 'dismissed', e);
        },
        [ESTATE_DISCOVER_FAILED]: (d, e) => {
          changes += 1;
          const connector = text(d.connector);
          if (connector === '') return;
          putConnector.run(connector, 'failed', e.ts, text(d.detail) || null, null);
        },
        [ESTATE_DISCOVERED]: (d, e) => {
          changes += 1;
          const connector = text(d.connector);
          if (connector === '') return;
          dropServices.run(connector);
          dropLinks.run(connector);
          const found = foundOf(d);
          for (const s of found.services) addService(connector, s, e.ts);
          for (const raw of found.links) {
            const l = record(raw);
            const from = text(l['from']);
            const to = text(l['to']);
            if (from === '' || to === '') continue;
            putLink.run(connector, from, to, canonicalJson(originOf(l['origin'], connector)));
          }
          const seen = observationsOf(d.observations);
          if (anyObservations(seen)) putObservations.run(connector, canonicalJson(seen), e.ts);
          else dropObservations.run(connector);
          putConnector.run(connector, 'ok', e.ts, null, e.ts);
        },
      },
    }),
  };
}
export type EstateStore = ReturnType<typeof createEstateStore>;

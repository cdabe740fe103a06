import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { ConnectorEvents } from './connectors.events.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { ConnectorDocument } from './connectors.schemas.js';

/** PUT /v1/connectors/<name>: data {name, connector (references only), via?}. */
export const CONNECTOR_SET = 'config.connector_set';
/** DELETE /v1/connectors/<name>: data {name, via?}. */
export const CONNECTOR_REMOVED = 'config.connector_removed';

export interface ConnectorRow {
  readonly name: string;
  readonly document: ConnectorDocument;
  readonly set_by: string;
  readonly set_at: string;
  readonly seq: number;
}

interface RawRow {
  readonly name: string;
  readonly document: string;
  readonly set_by: string;
  readonly set_at: string;
  readonly seq: number;
}

const toRow = (r: RawRow): ConnectorRow => ({
  ...r,
  document: JSON.parse(r.document) as ConnectorDocument,
});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function createConnectorsStore(db: Database) {
  const all = db.prepare<[], RawRow>(
    'SELECT name, document, set_by, set_at, seq FROM connectors ORDER BY name',
  );
  const get = db.prepare<[string], RawRow>(
    'SELECT name, document, set_by, set_at, seq FROM connectors WHERE name = ?',
  );
  const put = db.prepare<[string, string, string, string, string, number]>(
    `INSERT OR REPLACE INTO connectors (name, kind, document, set_by, set_at, seq)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const remove = db.prepare<[string]>('DELETE FROM connectors WHERE name = ?');
  return {
    all: (): ConnectorRow[] => all.all().map(toRow),
    get: (name: string): ConnectorRow | null => {
      const r = get.get(name);
      return r === undefined ? null : toRow(r);
    },
    projection: projectionOf<ConnectorEvents>({
      name: 'connectors',
      tables: ['connectors'],
      on: {
        [CONNECTOR_SET]: (d, e) => {
          const doc = (d.connector ?? {}) as Record<string, unknown>;
          put.run(text(d.name), text(doc['kind']), canonicalJson(doc), e.actor, e.ts, e.seq);
        },
        [CONNECTOR_REMOVED]: (d) => {
          remove.run(text(d.name));
        },
      },
    }),
  };
}
export type ConnectorsStore = ReturnType<typeof createConnectorsStore>;

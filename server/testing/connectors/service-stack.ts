// The connectors service as the runtime builds it, on a real SQLite file in `dir`, for
// integration tests: store, ledger, writer and a trace logger whose lines the test can read.
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { loadMigrations, migrate } from '../../db/migrate.js';
import { openDatabase } from '../../db/open.js';
import { createWriter } from '../../db/writer.js';
import { createLedgerService, createLedgerStore, createProjections } from '../../ledger/index.js';
import { createLogger } from '../../logger.js';
import { createFakeClock } from '../../shared/clock.js';
import {
  createConnectorsService,
  createConnectorsStore,
  createRegistry,
} from '../../connectors/index.js';
import type { ConnectorKind } from '../../connectors/kind.js';
import { eventCatalogue } from '../../compose/index.js';

const MIGRATIONS = fileURLToPath(new URL('../../db/migrations/', import.meta.url));

export function connectorsStack(options: {
  dir: string;
  kinds: readonly ConnectorKind[];
  env?: Record<string, string> | undefined;
  file?: string | undefined;
  defaultConcurrency: number;
}) {
  const { dir } = options;
  const lines: string[] = [];
  const log = createLogger(
    'trace',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  const db = openDatabase(join(dir, 'svc.db'));
  migrate(db, loadMigrations(MIGRATIONS));
  const clock = createFakeClock('2026-11-22T00:00:00.000Z');
  const writer = createWriter(db);
  const projections = createProjections();
  const store = createConnectorsStore(db);
  projections.register(store.projection);
  const ledgerStore = createLedgerStore(db);
  const ledger = createLedgerService({
    inTransaction: () => db.inTransaction,
    store: ledgerStore,
    writer,
    clock,
    projections,
    events: eventCatalogue(),
  });
  const connectors = createConnectorsService({
    registry: createRegistry(options.kinds),
    store,
    ledger,
    writer,
    clock,
    log,
    env: options.env ?? {},
    secretsDir: join(dir, 'secrets'),
    // The test's folder stands for the operator's declared secrets folder.
    secretRefs: { dirs: [dir], ownPaths: [] },
    file: options.file ?? join(dir, 'connectors.json'),
    defaultConcurrency: options.defaultConcurrency,
  });
  return { db, writer, projections, ledgerStore, connectors, log, lines };
}

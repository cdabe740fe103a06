// The connectors service as the runtime builds it, on a real SQLite file in `dir`, for
// integration tests: store, ledger, writer and a trace logger whose lines the test can read.
import { join } from 'node:path';
import { createFakeClock } from '../../shared/clock.js';
import {
  createConnectorsService,
  createConnectorsStore,
  createRegistry,
} from '../../connectors/index.js';
import type { ConnectorKind } from '../../connectors/kind.js';
import { openLedgerBench } from '../ledger-bench.js';
import { capturedLogger } from '../logger.js';

export function connectorsStack(options: {
  dir: string;
  kinds: readonly ConnectorKind[];
  env?: Record<string, string> | undefined;
  file?: string | undefined;
  defaultConcurrency: number;
}) {
  const { dir } = options;
  const { log, lines } = capturedLogger();
  const clock = createFakeClock('2026-11-22T00:00:00.000Z');
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  const store = createConnectorsStore(db);
  projections.register(store.projection);
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

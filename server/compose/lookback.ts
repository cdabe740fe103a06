// Lookback's ports: the kinds that keep history (from the catalogue) and the connections,
// read from the connectors service at each call.
import type { ConnectorsService } from '../connectors/index.js';
import { createLookbackService } from '../lookback/index.js';
import type { Runtime } from './runtime.js';

export function buildLookback(rt: Runtime, connectors: ConnectorsService) {
  return createLookbackService({
    store: rt.lookbackStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    kinds: () =>
      connectors
        .catalogue()
        .kinds.filter((k) => k.capabilities.includes('history'))
        .map((k) => k.kind),
    connections: () => connectors.list().connectors,
    call: (name, op, args) => connectors.call(name, op, args),
  });
}

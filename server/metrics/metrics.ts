// Metrics for the people who run the service, in Prometheus text format (prom-client).
// One registry per server instance, so tests and the CLI never share global state.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_' });
  const m = {
    registry,
    httpRequests: new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    ledgerAppends: new Counter({
      name: 'svc_ledger_appends_total',
      help: 'Events appended to the ledger',
      labelNames: ['category'] as const,
      registers: [registry],
    }),
    ledgerSeq: new Gauge({
      name: 'svc_ledger_seq',
      help: 'Last committed ledger seq',
      registers: [registry],
    }),
    ledgerSealedSeq: new Gauge({
      name: 'svc_ledger_sealed_seq',
      help: 'Last sealed ledger seq',
      registers: [registry],
    }),
    writerQueue: new Gauge({
      name: 'svc_writer_queue_depth',
      help: 'Writes waiting for the next group commit',
      registers: [registry],
    }),
    writerBatch: new Histogram({
      name: 'svc_writer_batch_size',
      help: 'Writes per group commit',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [registry],
    }),
    writerCommit: new Histogram({
      name: 'svc_writer_commit_seconds',
      help: 'Group commit duration (fsync included)',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [registry],
    }),
    intakeSignals: new Counter({
      name: 'svc_intake_signals_total',
      help: 'Alert signals received, by source and outcome (fired, resolved, duplicate)',
      labelNames: ['source', 'outcome'] as const,
      registers: [registry],
    }),
    investigationQueue: new Gauge({
      name: 'svc_investigation_queue_depth',
      help: 'Episodes waiting for an investigation slot',
      registers: [registry],
    }),
    investigationsRunning: new Gauge({
      name: 'svc_investigations_running',
      help: 'Investigations running now',
      registers: [registry],
    }),
    investigationDuration: new Histogram({
      name: 'svc_investigation_duration_seconds',
      help: 'Investigation duration from open to decision',
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    }),
    syslogDropped: new Gauge({
      name: 'svc_syslog_dropped',
      help: 'Syslog messages dropped because the destination was unreachable too long',
      registers: [registry],
    }),
  };
  const scrapeHooks: (() => void)[] = [];
  return {
    ...m,
    /** Gauges read from elsewhere (queues, syslog) are refreshed just before a scrape. */
    onScrape(hook: () => void): void {
      scrapeHooks.push(hook);
    },
    async render(): Promise<string> {
      for (const h of scrapeHooks) h();
      return registry.metrics();
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

// Polling alert sources: every SVC_POLL_S seconds each connector that can poll alerts
// (alertmanager, prometheus) is asked for its firing alerts, at most SVC_POLL_WORKERS at
// once. What it answers goes through intake as an Alertmanager webhook body would, so polled
// and pushed alerts deduplicate by fingerprint; an alert seen before and missing now is sent
// as resolved.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { AmAlert } from './kinds/alertmanager.parse.js';
import type { Alert as PromAlert } from './kinds/prometheus.parse.js';
import { createLimiter } from './limiter.js';

interface WebhookAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

export interface PollerDeps {
  /** Connectors that can poll alerts, by name and kind. */
  readonly sources: () => readonly { name: string; kind: string }[];
  readonly call: (
    name: string,
    op: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
  /** Intake of an Alertmanager webhook body (POST /v1/alerts/alertmanager without HTTP). */
  readonly receive: (body: unknown, connector: string) => Promise<unknown>;
  readonly intervalS: number;
  readonly workers: number;
  readonly clock: Clock;
  readonly log: Pick<Logger, 'warn' | 'debug'>;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Prometheus' own alerts carry no fingerprint: one from the sorted labels, like Alertmanager's idea. */
export function labelsFingerprint(labels: Readonly<Record<string, string>>): string {
  const text = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k] ?? ''}`)
    .join('\u0000');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function fromAlertmanager(a: AmAlert): WebhookAlert {
  return {
    status: 'firing',
    labels: { ...a.labels },
    annotations: { ...a.annotations },
    startsAt: a.starts_at ?? ZERO_TIME,
    endsAt: ZERO_TIME,
    generatorURL: a.generator_url ?? '',
    fingerprint: a.fingerprint,
  };
}

function fromPrometheus(a: PromAlert): WebhookAlert {
  const labels = { alertname: a.name, ...a.labels };
  return {
    status: 'firing',
    labels,
    annotations: { ...a.annotations },
    startsAt: a.active_at ?? ZERO_TIME,
    endsAt: ZERO_TIME,
    generatorURL: '',
    fingerprint: labelsFingerprint(labels),
  };
}

export function createPoller(deps: PollerDeps) {
  const limit = createLimiter(deps.workers, 10_000);
  /** Per connector: what fired at the last poll, to send the resolve when it is gone. */
  const seen = new Map<string, Map<string, WebhookAlert>>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function pollOne(name: string, kind: string): Promise<void> {
    const answer = await deps.call(name, 'alerts', {});
    if (!Array.isArray(answer)) return;
    const firing =
      kind === 'alertmanager'
        ? (answer as AmAlert[]).filter((a) => a.status.state === 'active').map(fromAlertmanager)
        : (answer as PromAlert[]).filter((a) => a.state === 'firing').map(fromPrometheus);
    const now = new Map(firing.map((a) => [a.fingerprint, a] as const));
    const before = seen.get(name) ?? new Map<string, WebhookAlert>();
    const ended = [...before.values()]
      .filter((a) => !now.has(a.fingerprint))
      .map((a) => ({ ...a, status: 'resolved' as const, endsAt: deps.clock.nowIso() }));
    const alerts = [...firing, ...ended];
    if (alerts.length > 0) {
      // Repeats are answered as duplicates by intake and write nothing.
      await deps.receive(
        {
          version: '4',
          status: firing.length > 0 ? 'firing' : 'resolved',
          receiver: `poll:${name}`,
          alerts,
        },
        name,
      );
    }
    seen.set(name, now);
  }

  async function tick(): Promise<void> {
    const sources = deps.sources();
    for (const name of seen.keys()) {
      if (!sources.some((s) => s.name === name)) seen.delete(name);
    }
    await Promise.all(
      sources.map((s) =>
        limit
          .run(() => pollOne(s.name, s.kind))
          .catch((err: unknown) => {
            // A source that fails keeps what it had: its alerts are not resolved by an outage.
            deps.log.warn({ connector: s.name, err }, 'polling alerts failed');
          }),
      ),
    );
  }

  return {
    /** One poll of every source now (tests, and the first poll at start). */
    pollNow(): Promise<void> {
      running ??= tick().finally(() => {
        running = null;
      });
      return running;
    },
    start(): void {
      if (timer !== null) return;
      timer = setInterval(() => {
        void this.pollNow();
      }, deps.intervalS * 1000);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer !== null) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
export type Poller = ReturnType<typeof createPoller>;

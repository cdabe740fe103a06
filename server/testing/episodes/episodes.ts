// Closed episodes written through the ledger, as the orchestrator will close them, so that
// list tests see real projection rows: for tests only.
import type { Writer } from '../../db/writer.js';
import type { LedgerService } from '../../ledger/index.js';
import { newIncidentId } from '../../incidents/index.js';
import { newEpisodeId } from '../../episodes/episodes.service.js';

export interface SeedEpisode {
  readonly service: string;
  readonly t_open: string;
  readonly t_close: string;
  readonly alerts?: readonly string[];
  readonly decision?: string;
  readonly outcome?: string;
  readonly result?: string;
  readonly action?: string;
  /** the fix the diagnosis named (episode.closed `fix`) */
  readonly fix?: string;
  readonly handover_s?: number | null;
  readonly confidence?: string;
  readonly kind?: string;
  readonly confirmed?: readonly string[];
  /** join this incident (an id from an earlier seed) instead of opening one */
  readonly incident?: string;
  /** seconds after t_open when its alerts ended (restore_s) */
  readonly restore_s?: number;
  /**
   * the severity of its alerts: each is then fired (signal.fired) at t_open and resolved at
   * restore_s, or just before the close when restore_s is not given
   */
  readonly severity?: string;
  /** the leading hypothesis its investigation named (an investigation is recorded) */
  readonly lead?: {
    readonly cause: string;
    readonly pack: string;
    readonly confidence: string;
    readonly fixes?: readonly string[];
    /** a promoted learned pattern it repeats */
    readonly pattern?: string;
  };
  /** appends the episode's investigation (after it opens, before its alerts end) */
  readonly during?: (episodeId: string) => void;
}

/** The i-th alert of a seeded episode as intake records it, firing or (ended) resolved. */
function signal(s: SeedEpisode, id: string, i: number, name: string, ended: string | null) {
  return {
    source: 'seed',
    fingerprint: `${id}-${String(i)}`,
    name,
    status: ended === null ? ('firing' as const) : ('resolved' as const),
    severity: s.severity ?? 'warning',
    service: s.service,
    resource: null,
    started_at: s.t_open,
    ended_at: ended,
    summary: '',
    labels: {},
    link: null,
  };
}

interface Deps {
  readonly ledger: LedgerService;
  readonly writer: Writer;
  readonly clock: { set(iso: string): void };
}

/** Returns [episode id, incident id] per seed. */
export function seedEpisodes(
  { ledger, writer, clock }: Deps,
  seeds: readonly SeedEpisode[],
): [string, string][] {
  return writer.transactNow(() =>
    seeds.map((s) => {
      const id = newEpisodeId(s.t_open);
      const incident = s.incident ?? newIncidentId(s.t_open);
      const alerts = s.alerts ?? ['SeededAlert'];
      clock.set(s.t_open);
      if (s.severity !== undefined)
        alerts.forEach((name, i) => {
          ledger.append({
            type: 'signal.fired',
            actor: 'source:seed',
            data: signal(s, id, i, name, null),
            trace_id: id,
          });
        });
      ledger.append({
        type: 'episode.opened',
        actor: 'system',
        data: {
          episode_id: id,
          service: s.service,
          source: 'seed',
          fingerprint: `${id}-0`,
          name: alerts[0],
          autonomy: 'shadow',
          incident_id: incident,
          relation: s.incident === undefined ? 'root' : 'related',
        },
        trace_id: id,
      });
      ledger.append({
        type: s.incident === undefined ? 'incident.opened' : 'incident.joined',
        actor: 'system',
        data: { incident_id: incident, episode_id: id, service: s.service },
        trace_id: incident,
      });
      alerts.slice(1).forEach((name, i) => {
        ledger.append({
          type: 'episode.joined',
          actor: 'system',
          data: {
            episode_id: id,
            service: s.service,
            source: 'seed',
            fingerprint: `${id}-${String(i + 1)}`,
            name,
          },
          trace_id: id,
        });
      });
      if (s.lead !== undefined) {
        ledger.append({
          type: 'investigation.started',
          actor: 'system',
          data: { episode_id: id, service: s.service, alerts: [...alerts], queue_s: 0 },
          trace_id: id,
        });
        ledger.append({
          type: 'investigation.hypotheses',
          actor: 'system',
          data: {
            episode_id: id,
            packs: [s.lead.pack],
            // Keys in canonical order, as a rebuild reads them back from the ledger.
            hypotheses: [
              {
                cause: s.lead.cause,
                confidence: s.lead.confidence,
                fixes: s.lead.fixes ?? [],
                pack: s.lead.pack,
                ...(s.lead.pattern !== undefined && { pattern: s.lead.pattern }),
                proving: [],
                refuting: [],
                service: s.service,
                supporting: [],
                title: s.lead.cause.replace(/_/g, ' '),
              },
            ],
          },
          trace_id: id,
        });
      }
      s.during?.(id);
      if (s.restore_s !== undefined || s.severity !== undefined) {
        const ended =
          s.restore_s === undefined
            ? s.t_close
            : new Date(Date.parse(s.t_open) + s.restore_s * 1000).toISOString();
        clock.set(ended);
        alerts.forEach((name, i) => {
          ledger.append({
            type: 'signal.resolved',
            actor: 'source:seed',
            data: signal(s, id, i, name, ended),
            trace_id: id,
          });
        });
      }
      clock.set(s.t_close);
      ledger.append({
        type: 'episode.closed',
        actor: 'system',
        data: {
          episode_id: id,
          decision: s.decision ?? 'settled',
          outcome: s.outcome ?? 'cleared',
          result: s.result ?? 'resolved',
          action: s.action ?? '',
          handover_s: s.handover_s ?? null,
          ...(s.confidence !== undefined && { confidence: s.confidence }),
          ...(s.kind !== undefined && { kind: s.kind }),
          ...(s.confirmed !== undefined && { confirmed: s.confirmed }),
          ...(s.fix !== undefined && { fix: s.fix }),
        },
        trace_id: id,
      });
      return [id, incident];
    }),
  );
}

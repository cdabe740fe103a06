// Episodes: a firing signal opens an episode of its service or joins the open one; when its
// last signal resolves the episode goes quiet, and after a hold with no new firing it closes
// as settled (the alert ended by itself). A signal that fires again within the hold rejoins
// its episode, so a flapping alert does not open a new episode each time.
import { randomBytes } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { LedgerReader, DomainLedger } from '../ledger/index.js';
import type { IncidentsService } from '../incidents/index.js';
import type { Clock } from '../shared/clock.js';
import { InvalidInputError, NotFoundError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { TEAM_VERDICTS } from './enumerations.js';
import { latestAction, leadingConfidence } from './live-facts.js';
import {
  EPISODE_CLOSED,
  EPISODE_JOINED,
  EPISODE_OPENED,
  EPISODE_SUPPRESSED,
  EPISODE_TEAM,
  type EpisodeRow,
  type EpisodesStore,
} from './episodes.store.js';
import type { EpisodeEvents } from './episodes.events.js';
import type { LiveBody } from './episodes.schemas.js';
import type { EpisodeDetail, EpisodeSuppression, Suppression } from './episodes.wire.js';

/** How long a quiet episode waits for its alerts to fire again before it closes. */
export const FLAP_HOLD_MS = 5 * 60 * 1000;
const DEFAULT_AUTONOMY = 'shadow';

/** A signal as episodes see it: enough to place, group and suppress it. */
export interface EpisodeSignal {
  readonly source: string;
  readonly fingerprint: string;
  readonly name: string;
  readonly service: string;
  readonly severity: string;
  readonly resource: string | null;
  readonly labels: Readonly<Record<string, string>>;
}

export type { Suppression };

/** What episodes need of the policy document, read for every signal. */
export interface NoiseControl {
  /** The incident grouping key of a signal (null: no grouping), and the window in seconds. */
  grouping(signal: EpisodeSignal): { key: string | null; windowS: number };
  suppressions(signal: EpisodeSignal): Suppression[];
}

export { TEAM_VERDICTS };
export type TeamVerdict = (typeof TEAM_VERDICTS)[number];

interface Deps {
  readonly store: EpisodesStore;
  readonly incidents: IncidentsService;
  readonly noise: NoiseControl;
  readonly ledger: DomainLedger<EpisodeEvents>;
  readonly reader: LedgerReader;
  readonly writer: Writer;
  readonly clock: Clock;
  /**
   * What an investigation concluded for an episode that closes now (decision, outcome,
   * result, action, handover_s and the diagnosis); null: nothing was concluded, the alert
   * ended by itself (settled).
   */
  readonly closing?: (
    episodeId: string,
  ) => Omit<EpisodeEvents['episode.closed'], 'episode_id'> | null;
  /** The worst severity of these signals (intake's), for the live view; null: none known. */
  readonly worstSeverity?: (keys: { source: string; fingerprint: string }[]) => string | null;
  /** The investigation's findings, hypotheses, decision and actions, for the episode view. */
  readonly investigation?: (episodeId: string) => InvestigationView | null;
  /** Its hypotheses and actions only, for every row of the live view (live-facts.ts). */
  readonly attention?: (
    episodeId: string,
  ) => Pick<InvestigationView, 'hypotheses' | 'actions'> | null;
  /** Inside the writer job of a team verdict: what learns from it (a label). */
  readonly labelled?: (episodeId: string, verdict: TeamVerdict, actor: Actor) => void;
}

export interface InvestigationView {
  readonly status: string;
  readonly step: string;
  readonly packs: unknown[];
  readonly changes: unknown[];
  readonly findings: unknown[];
  readonly hypotheses: unknown[];
  readonly decision_detail: Record<string, unknown> | null;
  readonly actions: unknown[];
  readonly request_id: string | null;
}

export interface Placement {
  readonly episodeId: string;
  readonly opened: boolean;
  /** The episode joined was quiet (its last signal had resolved). */
  readonly quiet: boolean;
}

/** `ep-<UTC timestamp>-<hex>`, e.g. ep-20261122T101500Z-3fa9c1. */
export function newEpisodeId(nowIso: string): string {
  const stamp = nowIso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `ep-${stamp}-${randomBytes(3).toString('hex')}`;
}

export function createEpisodesService(deps: Deps) {
  const { store, incidents, noise, ledger, reader, writer, clock } = deps;
  // Part of every live version: a restored or rebuilt database that reaches an old seq again
  // after a restart never matches a version handed out before it.
  const boot = randomBytes(4).toString('hex');
  const liveVersion = (seq: number): string => `${boot}.${String(seq)}`;
  function view(row: EpisodeRow) {
    const investigation = deps.attention?.(row.episode_id) ?? null;
    return {
      episode_id: row.episode_id,
      service: row.service,
      alerts: JSON.parse(row.alerts) as string[],
      status: row.status,
      step: row.step,
      t_open: row.t_open,
      // Added to the specification's fields (docs/decisions.md): triage sorts and groups by them.
      severity: deps.worstSeverity?.(store.signalKeysOf(row.episode_id)) ?? 'unknown',
      incident_id: row.incident_id,
      // Also added (docs/decisions.md): Live's attention buckets (console brief C.2).
      autonomy: row.autonomy,
      confidence: leadingConfidence(investigation?.hypotheses ?? []),
      action: latestAction(investigation?.actions ?? []),
    };
  }

  function refreshIncidentOf(episodeId: string): void {
    const incidentId = store.get(episodeId)?.incident_id;
    if (incidentId !== undefined && incidentId !== null) incidents.refresh(incidentId);
  }

  return {
    /** Which episode a firing signal belongs to; call inside the writer job, then record it. */
    place(signal: Pick<EpisodeSignal, 'source' | 'fingerprint' | 'service'>): Placement {
      const held = store.placementOf(signal.source, signal.fingerprint, signal.service);
      return held !== null
        ? { episodeId: held.episode_id, opened: false, quiet: held.status === 'quiet' }
        : { episodeId: newEpisodeId(clock.nowIso()), opened: true, quiet: false };
    },
    /**
     * Append the episode's events for a placement (after the signal's own event): opened or
     * joined, the incident it opens or joins, and any suppression of the signal.
     */
    record(placement: Placement, signal: EpisodeSignal): void {
      const id = placement.episodeId;
      const grouping = placement.opened ? noise.grouping(signal) : null;
      // Only a join to a quiet episode can change its incident's status (back to open).
      const wasQuiet = !placement.opened && placement.quiet;
      const incident = grouping === null ? null : incidents.place(grouping.key, grouping.windowS);
      ledger.append({
        type: placement.opened ? EPISODE_OPENED : EPISODE_JOINED,
        actor: 'system',
        data: {
          episode_id: id,
          service: signal.service,
          source: signal.source,
          fingerprint: signal.fingerprint,
          name: signal.name,
          ...(placement.opened && { autonomy: DEFAULT_AUTONOMY }),
          ...(incident !== null && {
            incident_id: incident.incidentId,
            relation: incident.opened ? 'root' : 'related',
          }),
        },
        trace_id: id,
      });
      for (const s of noise.suppressions(signal)) {
        ledger.append({
          type: EPISODE_SUPPRESSED,
          actor: 'system',
          data: {
            episode_id: id,
            ...s,
            source: signal.source,
            fingerprint: signal.fingerprint,
            name: signal.name,
          },
          reason:
            s.kind === 'maintenance'
              ? `the service is in maintenance window ${s.rule} until ${s.until}: recorded, not investigated`
              : `inhibited by ${s.by.name} (rule ${s.rule}) while it fires`,
          trace_id: id,
        });
      }
      if (incident !== null) incidents.attach(incident, { episodeId: id, service: signal.service });
      else if (wasQuiet) refreshIncidentOf(id);
    },
    /** After a signal.resolved of an episode: its incident may now be monitoring. */
    resolved(episodeId: string): void {
      refreshIncidentOf(episodeId);
    },
    /** The open episode holding a signal, for the trace of its resolve. */
    holding: (source: string, fingerprint: string): string | null =>
      store.holding(source, fingerprint),
    /** Close every episode quiet for longer than the hold; returns how many closed. */
    async closeQuiet(): Promise<number> {
      const cutoff = (): string => new Date(clock.now() - FLAP_HOLD_MS).toISOString();
      // A read first: the 15-second timer must not queue an empty write job each time.
      if (store.quietSince(cutoff()).length === 0) return 0;
      return writer.transact(() => {
        const due = store.quietSince(cutoff());
        for (const ep of due) {
          const concluded = deps.closing?.(ep.episode_id) ?? null;
          ledger.append({
            type: EPISODE_CLOSED,
            actor: 'system',
            data: {
              episode_id: ep.episode_id,
              ...(concluded ?? {
                decision: 'settled',
                outcome: 'cleared',
                result: 'resolved',
                action: '',
                handover_s: null,
              }),
            },
            reason:
              concluded === null
                ? 'every alert of the episode ended by itself and stayed ended for the hold'
                : 'every alert of the episode ended and stayed ended for the hold',
            trace_id: ep.episode_id,
          });
          refreshIncidentOf(ep.episode_id);
        }
        return due.length;
      });
    },
    /** GET /v1/live: seq moves on every committed change; running episodes. */
    live(): LiveBody {
      return { seq: ledger.headSeq(), running: store.running().map(view) };
    },
    /**
     * The version of the live view at `seq` (default: now): the view is a projection, so it
     * changes only when seq moves (its ETag; the stream's event id is the seq itself).
     */
    liveVersion(seq: number = ledger.headSeq()): string {
      return liveVersion(seq);
    },
    /** GET /v1/episodes/<id>: the record of a closed episode, the live view of a running one. */
    get(id: string, afterSeq?: number): EpisodeDetail {
      const row = store.get(id);
      if (row === null) throw new NotFoundError('not_found', `no episode ${id}`);
      const page = reader.list({
        trace: id,
        order: 'asc',
        limit: 2000,
        ...(afterSeq !== undefined && { after_seq: afterSeq }),
      });
      const timeline = page.events.map((e) => ({
        seq: e.seq,
        ts: e.ts,
        type: e.type,
        actor: e.actor,
        data: e.data,
        reason: e.reason,
      }));
      const record = {
        episode_id: row.episode_id,
        service: row.service,
        t_open: row.t_open,
        t_close: row.t_close,
        alerts: JSON.parse(row.alerts) as string[],
        confirmed: JSON.parse(row.confirmed) as unknown[],
        decision: row.decision ?? '',
        outcome: row.outcome ?? '',
        result: row.result ?? '',
        action: row.action,
        handover_s: row.handover_s,
        autonomy: row.autonomy,
        kind: row.kind,
        incident_id: row.incident_id,
        relation: row.relation,
        confidence: row.confidence,
        suppressed: JSON.parse(row.suppressed) as EpisodeSuppression[],
        team: row.verdict === null ? null : { verdict: row.verdict, detail: row.verdict_detail },
      };
      const inv = deps.investigation?.(id) ?? null;
      const investigation = {
        findings: inv?.findings ?? [],
        hypotheses: inv?.hypotheses ?? [],
        decision_detail: inv?.decision_detail ?? null,
        actions: inv?.actions ?? [],
        changes: inv?.changes ?? [],
        packs: inv?.packs ?? [],
        investigation:
          inv === null ? null : { status: inv.status, step: inv.step, request_id: inv.request_id },
      };
      if (row.status === 'closed')
        return { ...record, ...investigation, live: false, timeline, more: page.more };
      return {
        ...record,
        ...investigation,
        // The column is written at close; while running, the leading hypothesis says it.
        confidence: leadingConfidence(investigation.hypotheses) || record.confidence,
        live: true,
        status: row.status,
        step: row.step,
        timeline,
        more: page.more,
      };
    },
    /** POST /v1/episodes/<id>/team: what the team did; `other` needs a detail. */
    async team(
      id: string,
      body: { verdict: TeamVerdict; detail?: string | undefined },
      actor: Actor,
    ) {
      const detail = body.detail?.trim() ?? '';
      if (body.verdict === 'other' && detail === '') {
        throw new InvalidInputError(
          'invalid_input',
          'verdict other needs a detail saying what the team did instead',
          { field: 'detail' },
        );
      }
      const event = await writer.transact(() => {
        if (store.get(id) === null) throw new NotFoundError('not_found', `no episode ${id}`);
        const appended = ledger.append({
          type: EPISODE_TEAM,
          actor: actor.name,
          data: {
            episode_id: id,
            verdict: body.verdict,
            ...(detail !== '' && { detail }),
            ...(actor.via !== undefined && { via: actor.via }),
          },
          trace_id: id,
        });
        deps.labelled?.(id, body.verdict, actor);
        return appended;
      });
      return {
        episode_id: id,
        verdict: body.verdict,
        detail: detail === '' ? null : detail,
        by: actor.name,
        at: event.ts,
        seq: event.seq,
      };
    },
  };
}
export type EpisodesService = ReturnType<typeof createEpisodesService>;

// Episodes: a firing signal opens an episode of its service or joins the open one; when its
// last signal resolves the episode goes quiet, and after a hold with no new firing it closes
// as settled (the alert ended by itself). A signal that fires again within the hold rejoins
// its episode, so a flapping alert does not open a new episode each time.
import { randomBytes } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { LedgerReader, LedgerService } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { NotFoundError } from '../shared/errors.js';
import {
  EPISODE_CLOSED,
  EPISODE_JOINED,
  EPISODE_OPENED,
  type EpisodeRow,
  type EpisodesStore,
} from './episodes.store.js';

/** How long a quiet episode waits for its alerts to fire again before it closes. */
export const FLAP_HOLD_MS = 5 * 60 * 1000;
const DEFAULT_AUTONOMY = 'shadow';

interface Deps {
  readonly store: EpisodesStore;
  readonly ledger: LedgerService;
  readonly reader: LedgerReader;
  readonly writer: Writer;
  readonly clock: Clock;
}

export interface FiringSignal {
  readonly source: string;
  readonly fingerprint: string;
  readonly name: string;
  readonly service: string;
}

export interface Placement {
  readonly episodeId: string;
  readonly opened: boolean;
}

/** `ep-<UTC timestamp>-<hex>`, e.g. ep-20261122T101500Z-3fa9c1. */
export function newEpisodeId(nowIso: string): string {
  const stamp = nowIso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `ep-${stamp}-${randomBytes(3).toString('hex')}`;
}

export function createEpisodesService({ store, ledger, reader, writer, clock }: Deps) {
  function view(row: EpisodeRow) {
    return {
      episode_id: row.episode_id,
      service: row.service,
      alerts: JSON.parse(row.alerts) as string[],
      status: row.status,
      step: row.step,
      t_open: row.t_open,
    };
  }

  return {
    /** Which episode a firing signal belongs to; call inside the writer job, then record it. */
    place(signal: FiringSignal): Placement {
      const held =
        store.holding(signal.source, signal.fingerprint) ??
        store.openOf(signal.service)?.episode_id;
      return held !== undefined && held !== null
        ? { episodeId: held, opened: false }
        : { episodeId: newEpisodeId(clock.nowIso()), opened: true };
    },
    /** Append the episode event for a placement (after the signal's own event). */
    record(placement: Placement, signal: FiringSignal): void {
      ledger.append({
        type: placement.opened ? EPISODE_OPENED : EPISODE_JOINED,
        actor: 'system',
        data: {
          episode_id: placement.episodeId,
          service: signal.service,
          source: signal.source,
          fingerprint: signal.fingerprint,
          name: signal.name,
          ...(placement.opened && { autonomy: DEFAULT_AUTONOMY }),
        },
        trace_id: placement.episodeId,
      });
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
          ledger.append({
            type: EPISODE_CLOSED,
            actor: 'system',
            data: {
              episode_id: ep.episode_id,
              decision: 'settled',
              outcome: 'cleared',
              result: 'resolved',
              action: '',
              handover_s: null,
            },
            reason: 'every alert of the episode ended by itself and stayed ended for the hold',
            trace_id: ep.episode_id,
          });
        }
        return due.length;
      });
    },
    /** GET /v1/live: seq moves on every committed change; running episodes. */
    live() {
      return { seq: ledger.headSeq(), running: store.running().map(view) };
    },
    /** GET /v1/episodes/<id>: the record of a closed episode, the live view of a running one. */
    get(id: string, afterSeq?: number) {
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
      };
      if (row.status === 'closed') return { ...record, live: false, timeline, more: page.more };
      return {
        ...record,
        live: true,
        status: row.status,
        step: row.step,
        findings: [],
        hypotheses: [],
        timeline,
        more: page.more,
      };
    },
  };
}
export type EpisodesService = ReturnType<typeof createEpisodesService>;

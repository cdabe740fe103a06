// SQL of episodes: the projection of the episode events, and of the other domains' events
// that move an episode (episodes.inputs.ts).
import type { Database } from 'better-sqlite3';
import { projectionOf, reactionTo, type LedgerEvent } from '../ledger/index.js';
import type { EpisodeEvents } from './episodes.events.js';
import type { EpisodeInputs, EpisodeInputTypes } from './episodes.inputs.js';

export const EPISODE_OPENED = 'episode.opened';
export const EPISODE_JOINED = 'episode.joined';
export const EPISODE_CLOSED = 'episode.closed';
export const EPISODE_SUPPRESSED = 'episode.suppressed';
export const EPISODE_TEAM = 'episode.team';

export interface EpisodeRow {
  readonly episode_id: string;
  readonly service: string;
  readonly status: 'open' | 'quiet' | 'closed';
  readonly step: string;
  readonly kind: string;
  readonly t_open: string;
  readonly t_quiet: string | null;
  readonly t_close: string | null;
  readonly alerts: string;
  readonly firing: number;
  readonly decision: string | null;
  readonly outcome: string | null;
  readonly result: string | null;
  readonly action: string;
  readonly handover_s: number | null;
  readonly autonomy: string;
  readonly confirmed: string;
  readonly incident_id: string | null;
  readonly relation: string;
  readonly confidence: string;
  readonly restore_s: number | null;
  readonly suppressed: string;
  readonly verdict: string | null;
  readonly verdict_detail: string | null;
}

/** An episode as its incident shows it. */
export interface IncidentEpisodeRow {
  readonly episode_id: string;
  readonly service: string;
  readonly status: 'open' | 'quiet' | 'closed';
  readonly relation: string;
  readonly t_open: string;
  readonly t_close: string | null;
  readonly alerts: string;
  readonly confirmed: string;
  readonly decision: string | null;
  readonly outcome: string | null;
  readonly result: string | null;
  readonly action: string;
  readonly fix: string | null;
}

const COLUMNS = `episode_id, service, status, step, kind, t_open, t_quiet, t_close, alerts, firing, decision, outcome, result, action, handover_s, autonomy, confirmed,
  incident_id, relation, confidence, restore_s, suppressed, verdict, verdict_detail`;
// Rebuild replays rows as stored, so fields are read with guards whatever their schema says.
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** A value bound as stored (SQLite keeps its type), or the fallback where an old row has none. */
const stored = (v: unknown, fallback: string | null): unknown => v ?? fallback;

/** `inputs`: the type names of the other domains' events episodes react to (compose fills them). */
export function createEpisodesStore(db: Database, inputs: EpisodeInputTypes) {
  const get = db.prepare<[string], EpisodeRow>(
    `SELECT ${COLUMNS} FROM episodes WHERE episode_id = ?`,
  );
  const openOf = db.prepare<[string], EpisodeRow>(
    `SELECT ${COLUMNS} FROM episodes WHERE service = ? AND status <> 'closed' ORDER BY first_seq LIMIT 1`,
  );
  const running = db.prepare<[], EpisodeRow>(
    `SELECT ${COLUMNS} FROM episodes WHERE status <> 'closed' ORDER BY first_seq`,
  );
  const quietSince = db.prepare<[string], EpisodeRow>(
    `SELECT ${COLUMNS} FROM episodes WHERE status = 'quiet' AND t_quiet <= ? ORDER BY t_quiet`,
  );
  // Placement runs for every firing signal: two indexed lookups of the two columns it needs.
  const holdingOpen = db.prepare<[string, string], { episode_id: string; status: string }>(
    `SELECT e.episode_id, e.status FROM episode_signals s JOIN episodes e USING (episode_id)
     WHERE s.source = ? AND s.fingerprint = ? AND e.status <> 'closed' LIMIT 1`,
  );
  const openOfService = db.prepare<[string], { episode_id: string; status: string }>(
    `SELECT episode_id, status FROM episodes WHERE service = ? AND status <> 'closed' ORDER BY first_seq LIMIT 1`,
  );
  const holding = db.prepare<[string, string], { episode_id: string }>(
    `SELECT s.episode_id FROM episode_signals s JOIN episodes e USING (episode_id)
     WHERE s.source = ? AND s.fingerprint = ? AND e.status <> 'closed' LIMIT 1`,
  );
  const insert = db.prepare<Record<string, unknown>>(
    `INSERT INTO episodes (episode_id, service, status, step, kind, t_open, alerts, firing, autonomy, incident_id, relation, first_seq, last_seq)
     VALUES (@episode_id, @service, 'open', 'intake', 'symptom', @t_open, @alerts, 1, @autonomy, @incident_id, @relation, @seq, @seq)`,
  );
  const addSignal = db.prepare<[string, string, string, string]>(
    `INSERT OR IGNORE INTO episode_signals (episode_id, source, fingerprint, name) VALUES (?, ?, ?, ?)`,
  );
  const joined = db.prepare<{ name: string; seq: number; id: string }>(
    `UPDATE episodes SET firing = firing + 1, status = 'open', t_quiet = NULL,
       alerts = CASE WHEN EXISTS (SELECT 1 FROM json_each(alerts) WHERE value = @name) THEN alerts ELSE json_insert(alerts, '$[#]', @name) END,
       last_seq = @seq
     WHERE episode_id = @id`,
  );
  // Old values on the right: firing <= 1 means this resolve ends the last firing signal.
  const resolved = db.prepare<{ ts: string; seq: number; id: string }>(
    `UPDATE episodes SET firing = max(firing - 1, 0),
       status = CASE WHEN firing <= 1 THEN 'quiet' ELSE status END,
       t_quiet = CASE WHEN firing <= 1 THEN @ts ELSE t_quiet END,
       last_seq = @seq
     WHERE episode_id = @id`,
  );
  const closed = db.prepare<Record<string, unknown>>(
    `UPDATE episodes SET status = 'closed', step = 'closed', t_close = @t_close, decision = @decision, outcome = @outcome,
       result = @result, action = @action, handover_s = @handover_s, last_seq = @seq,
       confidence = coalesce(@confidence, confidence), kind = coalesce(@kind, kind),
       confirmed = coalesce(@confirmed, confirmed), fix = coalesce(@fix, fix),
       diagnosis = coalesce(@diagnosis, diagnosis), note = coalesce(@note, note),
       restore_s = CASE WHEN t_quiet IS NULL THEN NULL
                   ELSE CAST(round((julianday(t_quiet) - julianday(t_open)) * 86400) AS INTEGER) END
     WHERE episode_id = @episode_id`,
  );
  const suppressed = db.prepare<{ entry: string; seq: number; id: string }>(
    `UPDATE episodes SET suppressed = json_insert(suppressed, '$[#]', json(@entry)), last_seq = @seq
     WHERE episode_id = @id`,
  );
  const team = db.prepare<{ verdict: string; detail: string | null; seq: number; id: string }>(
    `UPDATE episodes SET verdict = @verdict, verdict_detail = @detail, last_seq = @seq WHERE episode_id = @id`,
  );
  const moved = db.prepare<{ incident: string; id: string; seq: number }>(
    `UPDATE episodes SET incident_id = @incident, relation = 'related', last_seq = @seq WHERE episode_id = @id`,
  );
  // last_seq stays: the step is the investigation's, not a change of the episode record.
  const stepped = db.prepare<{ id: string; step: string }>(
    `UPDATE episodes SET step = @step WHERE episode_id = @id AND status <> 'closed'`,
  );
  const ofIncident = db.prepare<[string], IncidentEpisodeRow>(
    `SELECT episode_id, service, status, relation, t_open, t_close, alerts, confirmed, decision, outcome, result, action, fix
     FROM episodes WHERE incident_id = ? ORDER BY first_seq`,
  );

  // Reads other domains ask for (ports wired by the composition root): the episodes table is
  // this domain's, so no other domain's SQL names it.
  const signalKeysOf = db.prepare<[string], { source: string; fingerprint: string }>(
    `SELECT source, fingerprint FROM episode_signals WHERE episode_id = ?`,
  );
  const countsOf = db.prepare<[string], { incident_id: string; n: number }>(
    `SELECT incident_id, count(*) AS n FROM episodes
     WHERE incident_id IN (SELECT value FROM json_each(?)) GROUP BY incident_id`,
  );
  const othersIn = db.prepare<[string, string], { one: number }>(
    `SELECT 1 AS one FROM episodes WHERE incident_id = ? AND episode_id <> ? LIMIT 1`,
  );
  const touched = db.prepare<[string, string, string, string], EpisodeRow & { fix: string | null }>(
    `SELECT ${COLUMNS}, fix FROM episodes
     WHERE (t_open >= ? AND t_open < ?) OR (t_close >= ? AND t_close < ?)
     ORDER BY t_close DESC, episode_id`,
  );
  const openings = db.prepare<[string], { service: string; t_open: string }>(
    'SELECT service, t_open FROM episodes WHERE t_open >= ? ORDER BY t_open, episode_id',
  );
  const closedSince = db.prepare<
    [string],
    { episode_id: string; service: string; confirmed: string; t_close: string }
  >(
    `SELECT episode_id, service, confirmed, t_close FROM episodes
     WHERE status = 'closed' AND t_close >= ? AND confirmed <> '[]' ORDER BY t_close DESC LIMIT 500`,
  );

  // The index of `q` (list.query.ts): triggers on episodes keep it in step with every write.
  const searchClear = db.prepare(`INSERT INTO episodes_fts (episodes_fts) VALUES ('delete-all')`);
  const searchCheck = db.prepare(
    `INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 1)`,
  );
  const search = {
    name: 'episodes_fts',
    clear: () => {
      searchClear.run();
    },
    check(): unknown[] {
      try {
        searchCheck.run();
        return [{ consistent: true }];
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code !== 'SQLITE_CORRUPT_VTAB' && code !== 'SQLITE_CORRUPT') throw err;
        return [{ consistent: false, code }];
      }
    },
  };

  /** One of another domain's events, given the data episodes read of it. */
  const on = <K extends keyof EpisodeInputs>(
    slot: K,
    apply: (data: EpisodeInputs[K], event: LedgerEvent) => void,
  ) => reactionTo(inputs[slot], apply);

  const projection = projectionOf<EpisodeEvents>({
    name: 'episodes',
    tables: ['episode_signals', 'episodes'],
    indexes: [search],
    on: {
      [EPISODE_OPENED]: (d, e) => {
        insert.run({
          episode_id: text(d.episode_id),
          service: text(d.service),
          t_open: e.ts,
          alerts: JSON.stringify([text(d.name)]),
          autonomy: text(d.autonomy),
          incident_id: text(d.incident_id) || null,
          relation: text(d.relation) || 'root',
          seq: e.seq,
        });
        addSignal.run(text(d.episode_id), text(d.source), text(d.fingerprint), text(d.name));
      },
      [EPISODE_JOINED]: (d, e) => {
        addSignal.run(text(d.episode_id), text(d.source), text(d.fingerprint), text(d.name));
        joined.run({ name: text(d.name), seq: e.seq, id: text(d.episode_id) });
      },
      [EPISODE_CLOSED]: (d, e) => {
        closed.run({
          episode_id: text(d.episode_id),
          t_close: e.ts,
          decision: stored(d.decision, null),
          outcome: stored(d.outcome, null),
          result: stored(d.result, null),
          action: stored(d.action, ''),
          handover_s: stored(d.handover_s, null),
          // The close states the final diagnosis when there is one.
          confidence: textOrNull(d.confidence),
          kind: textOrNull(d.kind),
          confirmed: Array.isArray(d.confirmed) ? JSON.stringify(d.confirmed) : null,
          fix: textOrNull(d.fix),
          diagnosis: textOrNull(d.diagnosis),
          note: textOrNull(d.note),
          seq: e.seq,
        });
      },
      [EPISODE_SUPPRESSED]: (d, e) => {
        const { episode_id: _id, ...entry } = d;
        suppressed.run({
          entry: JSON.stringify({ ...entry, at: e.ts, seq: e.seq }),
          seq: e.seq,
          id: text(d.episode_id),
        });
      },
      [EPISODE_TEAM]: (d, e) => {
        team.run({
          verdict: text(d.verdict),
          detail: textOrNull(d.detail),
          seq: e.seq,
          id: text(d.episode_id),
        });
      },
    },
    // Other domains' projections keep these types; episodes only apply them to their rows.
    reacts: [
      on('signalResolved', (d, e) => {
        const holder = holding.get(text(d.source), text(d.fingerprint));
        if (holder) resolved.run({ ts: e.ts, seq: e.seq, id: holder.episode_id });
      }),
      on('incidentLinked', (d, e) => {
        moved.run({ incident: text(d.incident_id), id: text(d.episode_id), seq: e.seq });
      }),
      on('investigationStep', (d) => {
        stepped.run({ id: text(d.episode_id), step: text(d.step) });
      }),
      on('decisionMade', (d) => {
        stepped.run({ id: text(d.episode_id), step: 'decide' });
      }),
    ],
  });

  return {
    get: (id: string): EpisodeRow | null => get.get(id) ?? null,
    openOf: (service: string): EpisodeRow | null => openOf.get(service) ?? null,
    /**
     * The open episode a firing signal joins, with its status: the one holding the signal,
     * else the service's oldest open one; null when there is none.
     */
    placementOf: (
      source: string,
      fingerprint: string,
      service: string,
    ): { episode_id: string; status: string } | null =>
      holdingOpen.get(source, fingerprint) ?? openOfService.get(service) ?? null,
    running: (): EpisodeRow[] => running.all(),
    /** The episodes of an incident, root first. */
    ofIncident: (incidentId: string): IncidentEpisodeRow[] => ofIncident.all(incidentId),
    quietSince: (iso: string): EpisodeRow[] => quietSince.all(iso),
    /** The open episode that holds this signal, if any. */
    holding: (source: string, fingerprint: string): string | null =>
      holding.get(source, fingerprint)?.episode_id ?? null,
    /** The signals an episode holds, as (source, fingerprint) keys. */
    signalKeysOf: (episodeId: string): { source: string; fingerprint: string }[] =>
      signalKeysOf.all(episodeId),
    /** How many episodes each incident holds (incidents without any are absent). */
    countsOf: (incidentIds: readonly string[]): ReadonlyMap<string, number> =>
      new Map(countsOf.all(JSON.stringify(incidentIds)).map((r) => [r.incident_id, r.n])),
    /** Whether the incident holds an episode other than this one. */
    othersIn: (incidentId: string, episodeId: string): boolean =>
      othersIn.get(incidentId, episodeId) !== undefined,
    /** Episodes opened or closed in [from, to) (the digest). */
    touched: (fromIso: string, toIso: string): (EpisodeRow & { fix: string | null })[] =>
      touched.all(fromIso, toIso, fromIso, toIso),
    /** When each service's episodes opened since, oldest first (estate suggestions). */
    openingsSince: (sinceIso: string): { service: string; t_open: string }[] =>
      openings.all(sinceIso),
    /** Causes confirmed in episodes closed since, newest first (for recurrences). */
    closedSince: (
      iso: string,
    ): { episode_id: string; service: string; cause: string; closed_at: string }[] =>
      closedSince.all(iso).flatMap((r) =>
        (JSON.parse(r.confirmed) as unknown[]).flatMap((c) => {
          const cause =
            typeof c === 'string'
              ? c
              : typeof (c as { cause?: unknown }).cause === 'string'
                ? (c as { cause: string }).cause
                : null;
          return cause === null
            ? []
            : [{ episode_id: r.episode_id, service: r.service, cause, closed_at: r.t_close }];
        }),
      ),
    projection,
  };
}
export type EpisodesStore = ReturnType<typeof createEpisodesStore>;

// SQL of investigations: the projection of investigation.*, check.ran, decision.made and
// action.* events (and the approval.requested of an episode's action, its handover).
import type { Database } from 'better-sqlite3';
import { ACTION_FIX_STATUS, type ActEvents } from '../act/index.js';
import { APPROVAL_REQUESTED, type ApprovalEvents } from '../approvals/index.js';
import { EPISODE_JOINED, type EpisodeEvents, type EpisodesStore } from '../episodes/index.js';
import type { IntakeStore } from '../intake/index.js';
import {
  projectionOf,
  reactionTo,
  type EventType,
  type LedgerEvent,
  type ProjectionHandlers,
} from '../ledger/index.js';
import type { InvestigateEvents } from './investigate.events.js';

export const INVESTIGATION_STARTED = 'investigation.started';
export const INVESTIGATION_SKIPPED = 'investigation.skipped';
export const INVESTIGATION_STEP = 'investigation.step';
export const INVESTIGATION_HYPOTHESES = 'investigation.hypotheses';
export const INVESTIGATION_WAITING = 'investigation.waiting';
export const INVESTIGATION_FINISHED = 'investigation.finished';
export const INVESTIGATION_RECOVERED = 'investigation.recovered';
export const CHECK_RAN = 'check.ran';
export const DECISION_MADE = 'decision.made';
export interface InvestigationRow {
  readonly episode_id: string;
  readonly service: string;
  readonly status: 'running' | 'waiting' | 'done' | 'skipped' | 'again';
  readonly step: string;
  readonly packs: string;
  readonly changes: string;
  readonly findings: string;
  readonly hypotheses: string;
  readonly decision: string | null;
  readonly actions: string;
  readonly request_id: string | null;
  readonly result: string | null;
  readonly t_start: string;
  readonly t_diagnosed: string | null;
  readonly t_handover: string | null;
  readonly t_end: string | null;
}

/** One fix tried in an episode, as its actions list shows it. */
export interface ActionEntry {
  fix: string;
  status: string;
  request_id: string | null;
  detail: string;
  verification: { ok: boolean; detail: string; findings: unknown } | null;
  seqs: number[];
}

const COLUMNS = `episode_id, service, status, step, packs, changes, findings, hypotheses, decision, actions,
  request_id, result, t_start, t_diagnosed, t_handover, t_end`;

// Rebuild replays rows as stored, so fields are read with guards whatever their schema says.
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
/** A field read as stored, or the fallback where a row has none. */
const orElse = (v: unknown, fallback: unknown): unknown => v ?? fallback;

type ActionType = EventType<ActEvents>;
type ActionData = ActEvents[ActionType];
/** Act's event types, from its catalogue. */
const ACTION_TYPES = Object.keys(ACTION_FIX_STATUS) as ActionType[];

/**
 * What a fix's entry takes from an action event; each type carries some of these fields.
 * Known bug, kept (behaviour unchanged): act writes `fix` as an object (pack, id, …), so it
 * reads here as '' and every action of an episode shares one entry.
 */
function actionFields(d: ActionData) {
  const r: Readonly<Record<string, unknown>> = d;
  return {
    fix: text(r['fix']),
    detail: text(r['detail']),
    why: text(r['why']),
    request_id: text(r['request_id']),
    findings: r['findings'],
    ok: r['ok'],
  };
}

/** The packs of investigation.started or skipped, a field their schemas leave open. */
const packsOf = (d: { readonly episode_id: string }): unknown => {
  const r: Readonly<Record<string, unknown>> = d;
  return orElse(r['packs'], []);
};

/** What the investigations store reads of episodes and signals, through their owners. */
export interface InvestigationsStorePorts {
  readonly episodes: Pick<EpisodesStore, 'running' | 'signalKeysOf'>;
  readonly signals: Pick<IntakeStore, 'byKeys'>;
}

export function createInvestigationsStore(db: Database, ports: InvestigationsStorePorts) {
  const get = db.prepare<[string], InvestigationRow>(
    `SELECT ${COLUMNS} FROM investigations WHERE episode_id = ?`,
  );
  const active = db.prepare<[], InvestigationRow>(
    `SELECT ${COLUMNS} FROM investigations WHERE status IN ('running', 'waiting') ORDER BY first_seq`,
  );
  const byRequest = db.prepare<[string], InvestigationRow>(
    `SELECT ${COLUMNS} FROM investigations WHERE request_id = ?`,
  );
  const statusOf = db.prepare<[string], { episode_id: string; status: string }>(
    `SELECT episode_id, status FROM investigations WHERE episode_id IN (SELECT value FROM json_each(?))`,
  );
  const waitingCount = db.prepare<[], { n: number }>(
    `SELECT count(*) AS n FROM investigations WHERE status = 'waiting'`,
  );
  const insert = db.prepare<Record<string, unknown>>(
    `INSERT INTO investigations (episode_id, service, status, step, packs, t_start, first_seq, last_seq)
     VALUES (@episode_id, @service, @status, @step, @packs, @ts, @seq, @seq)
     ON CONFLICT (episode_id) DO UPDATE SET status = excluded.status, step = excluded.step,
       packs = excluded.packs, last_seq = excluded.last_seq, changes = '[]', findings = '[]',
       hypotheses = '[]', decision = NULL, actions = '[]', request_id = NULL, result = NULL,
       t_diagnosed = NULL, t_end = NULL`,
  );
  const set = (column: string) =>
    db.prepare<{ id: string; value: string | null; seq: number }>(
      `UPDATE investigations SET ${column} = @value, last_seq = @seq WHERE episode_id = @id`,
    );
  const setStep = set('step');
  const setChanges = set('changes');
  const setHypotheses = set('hypotheses');
  const setActions = set('actions');
  const setPacks = set('packs');
  const addFinding = db.prepare<{ id: string; value: string; seq: number }>(
    `UPDATE investigations SET findings = json_insert(findings, '$[#]', json(@value)), last_seq = @seq
     WHERE episode_id = @id`,
  );
  const decided = db.prepare<{
    id: string;
    value: string;
    ts: string;
    handover: number;
    seq: number;
  }>(
    `UPDATE investigations SET decision = @value, step = 'decide', last_seq = @seq,
       t_diagnosed = coalesce(t_diagnosed, @ts),
       t_handover = CASE WHEN @handover = 1 THEN coalesce(t_handover, @ts) ELSE t_handover END
     WHERE episode_id = @id`,
  );
  const waiting = db.prepare<{ id: string; request: string; ts: string; seq: number }>(
    `UPDATE investigations SET status = 'waiting', request_id = @request, step = 'act', last_seq = @seq,
       t_handover = coalesce(t_handover, @ts) WHERE episode_id = @id`,
  );
  const handover = db.prepare<{ id: string; ts: string; seq: number }>(
    `UPDATE investigations SET t_handover = coalesce(t_handover, @ts), last_seq = @seq WHERE episode_id = @id`,
  );
  const finished = db.prepare<{ id: string; value: string; ts: string; seq: number }>(
    `UPDATE investigations SET status = 'done', step = 'close', result = @value, t_end = @ts,
       last_seq = @seq WHERE episode_id = @id`,
  );
  // A signal that joins after a round ended (a new alert, or one firing again) starts another.
  const again = db.prepare<{ id: string; seq: number }>(
    `UPDATE investigations SET status = 'again', last_seq = @seq
     WHERE episode_id = @id AND status IN ('done', 'skipped')`,
  );
  const running = db.prepare<{ id: string; seq: number }>(
    `UPDATE investigations SET status = 'running', last_seq = @seq WHERE episode_id = @id`,
  );

  function updateActions(type: ActionType, d: ActionData, e: LedgerEvent): void {
    const id = text(d.episode_id);
    if (id === '') return;
    const row = get.get(id);
    if (row === undefined) return;
    const list = JSON.parse(row.actions) as ActionEntry[];
    const f = actionFields(d);
    let entry = list.find((a) => a.fix === f.fix && a.status !== 'taken_back');
    if (entry === undefined) {
      entry = {
        fix: f.fix,
        status: '',
        request_id: null,
        detail: '',
        verification: null,
        seqs: [],
      };
      list.push(entry);
    }
    const status = ACTION_FIX_STATUS[type];
    entry.status = status;
    entry.detail = f.detail || f.why || entry.detail;
    entry.seqs.push(e.seq);
    if (f.request_id !== '') entry.request_id = f.request_id;
    if (status === 'verified' || status === 'not_verified') {
      entry.verification = {
        ok: status === 'verified',
        detail: f.detail,
        findings: orElse(f.findings, []),
      };
    }
    if (status === 'dry_run' && f.ok === false) entry.status = 'dry_run_failed';
    setActions.run({ id, value: JSON.stringify(list), seq: e.seq });
  }

  /** A handler given the episode's id; an event without one changes nothing. */
  const byEpisode =
    <D extends { readonly episode_id: unknown }>(
      apply: (id: string, data: D, event: LedgerEvent) => void,
    ) =>
    (data: D, event: LedgerEvent): void => {
      const id = text(data.episode_id);
      if (id !== '') apply(id, data, event);
    };

  // One handler per action type; TypeScript cannot type a map built from a list of keys.
  const onAction = Object.fromEntries(
    ACTION_TYPES.map((type) => [
      type,
      (d: ActionData, e: LedgerEvent) => updateActions(type, d, e),
    ]),
  ) as ProjectionHandlers<ActEvents>;

  const projection = projectionOf<InvestigateEvents & ActEvents>({
    name: 'investigations',
    tables: ['investigations'],
    on: {
      [INVESTIGATION_STARTED]: byEpisode((id, d, e) => {
        insert.run({
          episode_id: id,
          service: text(d.service),
          status: 'running',
          step: 'intake',
          packs: JSON.stringify(packsOf(d)),
          ts: e.ts,
          seq: e.seq,
        });
      }),
      [INVESTIGATION_SKIPPED]: byEpisode((id, d, e) => {
        insert.run({
          episode_id: id,
          service: text(d.service),
          status: 'skipped',
          step: 'skipped',
          packs: JSON.stringify(packsOf(d)),
          ts: e.ts,
          seq: e.seq,
        });
      }),
      [INVESTIGATION_RECOVERED]: byEpisode((id, _d, e) => {
        running.run({ id, seq: e.seq });
      }),
      [INVESTIGATION_STEP]: byEpisode((id, d, e) => {
        // The episodes projection applies the same event to the episode's own step.
        setStep.run({ id, value: text(d.step), seq: e.seq });
        if (Array.isArray(d.changes))
          setChanges.run({ id, value: JSON.stringify(d.changes), seq: e.seq });
      }),
      [CHECK_RAN]: byEpisode((id, d, e) => {
        addFinding.run({ id, value: JSON.stringify(orElse(d.finding, null)), seq: e.seq });
      }),
      [INVESTIGATION_HYPOTHESES]: byEpisode((id, d, e) => {
        setHypotheses.run({ id, value: JSON.stringify(orElse(d.hypotheses, [])), seq: e.seq });
        setPacks.run({ id, value: JSON.stringify(orElse(d.packs, [])), seq: e.seq });
      }),
      [DECISION_MADE]: byEpisode((id, d, e) => {
        const { episode_id: _id, ...decision } = d;
        decided.run({
          id,
          value: JSON.stringify(decision),
          ts: e.ts,
          handover: d.handover === true ? 1 : 0,
          seq: e.seq,
        });
      }),
      [INVESTIGATION_WAITING]: byEpisode((id, d, e) => {
        waiting.run({ id, request: text(d.request_id), ts: e.ts, seq: e.seq });
      }),
      [INVESTIGATION_FINISHED]: byEpisode((id, d, e) => {
        const { episode_id: _id, ...result } = d;
        finished.run({ id, value: JSON.stringify(result), ts: e.ts, seq: e.seq });
      }),
      ...onAction,
    },
    // Their owners' projections keep these types; an investigation only reacts to them.
    reacts: [
      reactionTo<EpisodeEvents[typeof EPISODE_JOINED]>(
        EPISODE_JOINED,
        byEpisode((id, _d, e) => {
          again.run({ id, seq: e.seq });
        }),
      ),
      reactionTo<ApprovalEvents[typeof APPROVAL_REQUESTED]>(
        APPROVAL_REQUESTED,
        byEpisode((id, _d, e) => {
          handover.run({ id, ts: e.ts, seq: e.seq });
        }),
      ),
    ],
  });

  return {
    get: (id: string): InvestigationRow | null => get.get(id) ?? null,
    /** Investigations a crash may have left running or waiting. */
    active: (): InvestigationRow[] => active.all(),
    byRequest: (requestId: string): InvestigationRow | null => byRequest.get(requestId) ?? null,
    /** Open episodes without an investigation (or due another round), oldest first. */
    due(): { episode_id: string; service: string }[] {
      const open = ports.episodes.running();
      const started = new Map(
        statusOf
          .all(JSON.stringify(open.map((e) => e.episode_id)))
          .map((r) => [r.episode_id, r.status]),
      );
      return open
        .filter((e) => {
          const status = started.get(e.episode_id);
          return status === undefined || status === 'again';
        })
        .map((e) => ({ episode_id: e.episode_id, service: e.service }));
    },
    waiting: (): number => waitingCount.get()?.n ?? 0,
    /** The alerts of an episode with their labels and whether each still fires. */
    signalsOf: (episodeId: string) =>
      ports.signals.byKeys(ports.episodes.signalKeysOf(episodeId)).map((r) => ({
        name: r.name,
        firing: r.status === 'firing',
        severity: r.severity,
        labels: r.labels,
      })),
    projection,
  };
}
export type InvestigationsStore = ReturnType<typeof createInvestigationsStore>;

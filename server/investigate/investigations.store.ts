// SQL of investigations: the projection of investigation.*, check.ran, decision.made and
// action.* events (and the approval.requested of an episode's action, its handover).
import type { Database } from 'better-sqlite3';
import { APPROVAL_REQUESTED } from '../approvals/index.js';
import { EPISODE_JOINED, type EpisodesStore } from '../episodes/index.js';
import type { IntakeStore } from '../intake/index.js';
import type { LedgerEvent, Projection } from '../ledger/index.js';

export const INVESTIGATION_STARTED = 'investigation.started';
export const INVESTIGATION_SKIPPED = 'investigation.skipped';
export const INVESTIGATION_STEP = 'investigation.step';
export const INVESTIGATION_HYPOTHESES = 'investigation.hypotheses';
export const INVESTIGATION_WAITING = 'investigation.waiting';
export const INVESTIGATION_FINISHED = 'investigation.finished';
export const INVESTIGATION_RECOVERED = 'investigation.recovered';
export const CHECK_RAN = 'check.ran';
export const DECISION_MADE = 'decision.made';
export const ACTION_EVENTS = [
  'action.dry_run',
  'action.shadow',
  'action.refused',
  'action.started',
  'action.done',
  'action.verified',
  'action.verify_failed',
  'action.taken_back',
] as const;
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

/** What each action event makes of the fix's status. */
const ACTION_STATUS: Record<(typeof ACTION_EVENTS)[number], string> = {
  'action.dry_run': 'dry_run',
  'action.shadow': 'shadow',
  'action.refused': 'refused',
  'action.started': 'running',
  'action.done': 'running',
  'action.verified': 'verified',
  'action.verify_failed': 'not_verified',
  'action.taken_back': 'taken_back',
};

const COLUMNS = `episode_id, service, status, step, packs, changes, findings, hypotheses, decision, actions,
  request_id, result, t_start, t_diagnosed, t_handover, t_end`;

const str = (e: LedgerEvent, k: string): string => {
  const v = e.data[k];
  return typeof v === 'string' ? v : '';
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

  function updateActions(e: LedgerEvent, id: string): void {
    const row = get.get(id);
    if (row === undefined) return;
    const list = JSON.parse(row.actions) as ActionEntry[];
    const fix = str(e, 'fix');
    let entry = list.find((a) => a.fix === fix && a.status !== 'taken_back');
    if (entry === undefined) {
      entry = { fix, status: '', request_id: null, detail: '', verification: null, seqs: [] };
      list.push(entry);
    }
    entry.status = ACTION_STATUS[e.type as (typeof ACTION_EVENTS)[number]];
    entry.detail = str(e, 'detail') || str(e, 'why') || entry.detail;
    entry.seqs.push(e.seq);
    if (str(e, 'request_id') !== '') entry.request_id = str(e, 'request_id');
    if (e.type === 'action.verified' || e.type === 'action.verify_failed') {
      entry.verification = {
        ok: e.type === 'action.verified',
        detail: str(e, 'detail'),
        findings: e.data['findings'] ?? [],
      };
    }
    if (e.type === 'action.dry_run' && e.data['ok'] === false) entry.status = 'dry_run_failed';
    setActions.run({ id, value: JSON.stringify(list), seq: e.seq });
  }

  function apply(e: LedgerEvent): void {
    const id = str(e, 'episode_id');
    if (id === '') return;
    switch (e.type) {
      case INVESTIGATION_STARTED:
      case INVESTIGATION_SKIPPED:
        insert.run({
          episode_id: id,
          service: str(e, 'service'),
          status: e.type === INVESTIGATION_STARTED ? 'running' : 'skipped',
          step: e.type === INVESTIGATION_STARTED ? 'intake' : 'skipped',
          packs: JSON.stringify(e.data['packs'] ?? []),
          ts: e.ts,
          seq: e.seq,
        });
        return;
      case INVESTIGATION_RECOVERED:
        running.run({ id, seq: e.seq });
        return;
      case INVESTIGATION_STEP: {
        // The episodes projection applies the same event to the episode's own step.
        setStep.run({ id, value: str(e, 'step'), seq: e.seq });
        if (Array.isArray(e.data['changes']))
          setChanges.run({ id, value: JSON.stringify(e.data['changes']), seq: e.seq });
        return;
      }
      case CHECK_RAN:
        addFinding.run({ id, value: JSON.stringify(e.data['finding'] ?? null), seq: e.seq });
        return;
      case INVESTIGATION_HYPOTHESES:
        setHypotheses.run({ id, value: JSON.stringify(e.data['hypotheses'] ?? []), seq: e.seq });
        setPacks.run({ id, value: JSON.stringify(e.data['packs'] ?? []), seq: e.seq });
        return;
      case DECISION_MADE: {
        const { episode_id: _id, ...decision } = e.data;
        decided.run({
          id,
          value: JSON.stringify(decision),
          ts: e.ts,
          handover: e.data['handover'] === true ? 1 : 0,
          seq: e.seq,
        });
        return;
      }
      case INVESTIGATION_WAITING:
        waiting.run({ id, request: str(e, 'request_id'), ts: e.ts, seq: e.seq });
        return;
      case EPISODE_JOINED:
        again.run({ id, seq: e.seq });
        return;
      case APPROVAL_REQUESTED:
        handover.run({ id, ts: e.ts, seq: e.seq });
        return;
      case INVESTIGATION_FINISHED: {
        const { episode_id: _id, ...result } = e.data;
        finished.run({ id, value: JSON.stringify(result), ts: e.ts, seq: e.seq });
        return;
      }
      default:
        if ((ACTION_EVENTS as readonly string[]).includes(e.type)) updateActions(e, id);
    }
  }

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
    projection: {
      name: 'investigations',
      tables: ['investigations'],
      types: [
        INVESTIGATION_STARTED,
        INVESTIGATION_SKIPPED,
        INVESTIGATION_STEP,
        INVESTIGATION_HYPOTHESES,
        INVESTIGATION_WAITING,
        INVESTIGATION_FINISHED,
        INVESTIGATION_RECOVERED,
        CHECK_RAN,
        DECISION_MADE,
        ...ACTION_EVENTS,
      ],
      apply,
    } satisfies Projection,
  };
}
export type InvestigationsStore = ReturnType<typeof createInvestigationsStore>;

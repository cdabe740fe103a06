// Studies, their findings per service and the relations between services: projections of
// the study.* events (tables in 1795890000000_study.sql).
import type { Database } from 'better-sqlite3';
import type { Static } from 'typebox';
import { projectionOf } from '../ledger/index.js';
import {
  STUDY_FINISHED,
  STUDY_INTERRUPTED,
  STUDY_RELATIONS,
  STUDY_SERVICE_DONE,
  STUDY_STARTED,
  STUDY_STOPPED,
  type BaselineReading,
  type CauseReading,
  type Obstacle,
  type RelationRecord,
  type StudyEvents,
} from './study.events.js';

export type StudyStatus = 'running' | 'finished' | 'stopped' | 'interrupted';

export interface StudyRow {
  readonly study_id: string;
  readonly minutes: number;
  readonly started_at: string;
  readonly ends_at: string;
  readonly by: string;
  readonly status: StudyStatus;
  readonly ended_at: string | null;
  readonly why: string | null;
  readonly services: readonly string[];
  readonly relations_method: string | null;
  readonly relations_note: string | null;
}

export interface ServiceRow {
  readonly service: string;
  readonly study_id: string;
  readonly at: string;
  readonly window: { readonly from: string; readonly to: string; readonly step_s: number };
  readonly baseline: readonly Static<typeof BaselineReading>[];
  readonly obstacles: readonly Static<typeof Obstacle>[];
  readonly causes: readonly Static<typeof CauseReading>[];
  readonly complete: boolean;
}

export type RelationRow = Static<typeof RelationRecord> & {
  readonly study_id: string;
  readonly step_s: number;
  readonly at: string;
};

type StudyDbRow = Omit<StudyRow, 'services' | 'by'> & {
  services: string;
  by_actor: string;
  seq: number;
};
interface ServiceDbRow {
  service: string;
  study_id: string;
  at: string;
  win: string;
  baseline: string;
  obstacles: string;
  causes: string;
  complete: number;
}
interface RelationDbRow extends Omit<RelationRow, 'from' | 'to'> {
  from_service: string;
  to_service: string;
}

const STUDY_COLUMNS =
  'study_id, seq, minutes, started_at, ends_at, by_actor, status, ended_at, why, services, relations_method, relations_note';

const toStudy = ({ by_actor, services, seq: _seq, ...r }: StudyDbRow): StudyRow => ({
  ...r,
  by: by_actor,
  services: JSON.parse(services) as string[],
});

const toService = (r: ServiceDbRow): ServiceRow => ({
  service: r.service,
  study_id: r.study_id,
  at: r.at,
  window: JSON.parse(r.win) as ServiceRow['window'],
  baseline: JSON.parse(r.baseline) as ServiceRow['baseline'],
  obstacles: JSON.parse(r.obstacles) as ServiceRow['obstacles'],
  causes: JSON.parse(r.causes) as ServiceRow['causes'],
  complete: r.complete === 1,
});

const toRelation = ({ from_service, to_service, ...r }: RelationDbRow): RelationRow => ({
  ...r,
  from: from_service,
  to: to_service,
});

export function createStudyStore(db: Database) {
  const putStudy = db.prepare(
    `INSERT OR REPLACE INTO study_runs (${STUDY_COLUMNS})
     VALUES (@study_id, @seq, @minutes, @started_at, @ends_at, @by_actor, 'running', NULL, NULL, @services, NULL, NULL)`,
  );
  const endStudy = db.prepare<[StudyStatus, string, string | null, string]>(
    `UPDATE study_runs SET status = ?, ended_at = ?, why = ? WHERE study_id = ? AND status = 'running'`,
  );
  const relatedStudy = db.prepare<[string, string | null, string]>(
    'UPDATE study_runs SET relations_method = ?, relations_note = ? WHERE study_id = ?',
  );
  const latest = db.prepare<[], StudyDbRow>(
    `SELECT ${STUDY_COLUMNS} FROM study_runs ORDER BY seq DESC LIMIT 1`,
  );
  const running = db.prepare<[], StudyDbRow>(
    `SELECT ${STUDY_COLUMNS} FROM study_runs WHERE status = 'running' ORDER BY seq`,
  );
  const putService = db.prepare(
    `INSERT OR REPLACE INTO study_services (service, study_id, at, win, baseline, obstacles, causes, complete)
     VALUES (@service, @study_id, @at, @win, @baseline, @obstacles, @causes, @complete)`,
  );
  const services = db.prepare<[], ServiceDbRow>(
    'SELECT service, study_id, at, win, baseline, obstacles, causes, complete FROM study_services ORDER BY service',
  );
  const dropRelations = db.prepare('DELETE FROM study_relations');
  const putRelation = db.prepare(
    `INSERT OR REPLACE INTO study_relations (from_service, to_service, study_id, lag, strength, score, readings, method, step_s, at)
     VALUES (@from, @to, @study_id, @lag, @strength, @score, @readings, @method, @step_s, @at)`,
  );
  const relations = db.prepare<[], RelationDbRow>(
    `SELECT from_service, to_service, study_id, lag, strength, score, readings, method, step_s, at
     FROM study_relations ORDER BY score DESC, from_service, to_service`,
  );

  return {
    /** The newest study, running or ended; null before the first. */
    latest: (): StudyRow | null => {
      const row = latest.get();
      return row === undefined ? null : toStudy(row);
    },
    /** Studies the store still shows running (at a start: ones the last process left). */
    running: (): StudyRow[] => running.all().map(toStudy),
    services: (): ServiceRow[] => services.all().map(toService),
    relations: (): RelationRow[] => relations.all().map(toRelation),
    projection: projectionOf<StudyEvents>({
      name: 'study',
      tables: ['study_runs', 'study_services', 'study_relations'],
      on: {
        [STUDY_STARTED]: (d, e) => {
          putStudy.run({
            study_id: d.study_id,
            seq: e.seq,
            minutes: d.minutes,
            started_at: e.ts,
            ends_at: d.ends_at,
            by_actor: e.actor,
            services: JSON.stringify(d.services),
          });
        },
        [STUDY_SERVICE_DONE]: (d, e) => {
          putService.run({
            service: d.service,
            study_id: d.study_id,
            at: e.ts,
            win: JSON.stringify(d.window),
            baseline: JSON.stringify(d.baseline),
            obstacles: JSON.stringify(d.obstacles),
            causes: JSON.stringify(d.causes),
            complete: d.complete ? 1 : 0,
          });
        },
        [STUDY_RELATIONS]: (d, e) => {
          relatedStudy.run(d.method, d.note, d.study_id);
          dropRelations.run();
          for (const r of d.relations)
            putRelation.run({ ...r, study_id: d.study_id, step_s: d.step_s, at: e.ts });
        },
        [STUDY_FINISHED]: (d, e) => {
          endStudy.run('finished', e.ts, d.why, d.study_id);
        },
        [STUDY_STOPPED]: (d, e) => {
          endStudy.run('stopped', e.ts, null, d.study_id);
        },
        [STUDY_INTERRUPTED]: (d, e) => {
          endStudy.run('interrupted', e.ts, d.why, d.study_id);
        },
      },
    }),
  };
}
export type StudyStore = ReturnType<typeof createStudyStore>;

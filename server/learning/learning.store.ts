// Labels, demotions and learned patterns: projections of the learning.* events.
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import {
  LEARNING_DEMOTED,
  LEARNING_LABEL,
  LEARNING_RESTORED,
  LEARNING_UNLABELLED,
  PATTERN_DECIDED,
  PATTERN_FOUND,
  type LearningEvents,
  type PatternAction,
} from './learning.events.js';
import { DEMOTION_WINDOW, type Label } from './learning.figures.js';

export type PatternState = 'proposed' | 'promoted' | 'rejected' | 'disabled';

export interface PatternRow {
  readonly pattern_id: string;
  readonly service: string;
  readonly cause: string;
  readonly fix: string | null;
  readonly alerts: readonly string[];
  readonly state: PatternState;
  readonly found_at: string;
  readonly changed_by: string | null;
  readonly changed_at: string | null;
}

export interface DemotionRow {
  readonly cause: string;
  readonly precision: number;
  readonly labels: number;
  readonly since: string;
}

/** The state an action leads to from each state it is allowed from. */
export const TRANSITIONS: Readonly<
  Record<Exclude<PatternAction, 'delete'>, Partial<Record<PatternState, PatternState>>>
> = {
  promote: { proposed: 'promoted', rejected: 'promoted' },
  reject: { proposed: 'rejected', promoted: 'rejected', disabled: 'rejected' },
  disable: { promoted: 'disabled' },
  enable: { disabled: 'promoted' },
};

interface LabelDbRow extends Omit<Label, 'correct' | 'alerts' | 'by'> {
  readonly correct: number;
  readonly alerts: string;
  readonly by_actor: string;
}

const LABEL_COLUMNS =
  'episode_id, seq, correct, source, cause, pack, confidence, service, alerts, fix, by_actor, at';

const toLabel = (r: LabelDbRow): Label => ({
  episode_id: r.episode_id,
  seq: r.seq,
  correct: r.correct === 1,
  source: r.source,
  cause: r.cause,
  pack: r.pack,
  confidence: r.confidence,
  service: r.service,
  alerts: JSON.parse(r.alerts) as string[],
  fix: r.fix,
  by: r.by_actor,
  at: r.at,
});

const toPattern = (r: Omit<PatternRow, 'alerts'> & { alerts: string }): PatternRow => ({
  ...r,
  alerts: JSON.parse(r.alerts) as string[],
});

export function createLearningStore(db: Database) {
  const putLabel = db.prepare(
    `INSERT OR REPLACE INTO learning_labels (${LABEL_COLUMNS})
     VALUES (@episode_id, @seq, @correct, @source, @cause, @pack, @confidence, @service, @alerts,
             @fix, @by_actor, @at)`,
  );
  const allLabels = db.prepare<[], LabelDbRow>(
    `SELECT ${LABEL_COLUMNS} FROM learning_labels ORDER BY seq`,
  );
  const labelOf = db.prepare<[string], LabelDbRow>(
    `SELECT ${LABEL_COLUMNS} FROM learning_labels WHERE episode_id = ?`,
  );
  const ofCause = db.prepare<[string, number], LabelDbRow>(
    `SELECT ${LABEL_COLUMNS} FROM learning_labels
     WHERE cause = ? AND confidence IN ('proven', 'linked', 'suspected') ORDER BY seq DESC LIMIT ?`,
  );
  const ofServiceCause = db.prepare<[string, string], LabelDbRow>(
    `SELECT ${LABEL_COLUMNS} FROM learning_labels WHERE cause = ? AND service = ?`,
  );
  const dropLabel = db.prepare<[string]>('DELETE FROM learning_labels WHERE episode_id = ?');
  const demotions = db.prepare<[], DemotionRow>(
    'SELECT cause, precision, labels, since FROM learning_demotions ORDER BY cause',
  );
  const demotion = db.prepare<[string], DemotionRow>(
    'SELECT cause, precision, labels, since FROM learning_demotions WHERE cause = ?',
  );
  const putDemotion = db.prepare(
    `INSERT INTO learning_demotions (cause, precision, labels, since) VALUES (@cause, @precision, @labels, @since)
     ON CONFLICT (cause) DO UPDATE SET precision = excluded.precision, labels = excluded.labels`,
  );
  const dropDemotion = db.prepare<[string]>('DELETE FROM learning_demotions WHERE cause = ?');
  const PATTERN_COLUMNS =
    'pattern_id, service, cause, fix, alerts, state, found_at, changed_by, changed_at';
  type PatternDbRow = Omit<PatternRow, 'alerts'> & { alerts: string };
  const patterns = db.prepare<[], PatternDbRow>(
    `SELECT ${PATTERN_COLUMNS} FROM learned_patterns ORDER BY found_at, pattern_id`,
  );
  const pattern = db.prepare<[string], PatternDbRow>(
    `SELECT ${PATTERN_COLUMNS} FROM learned_patterns WHERE pattern_id = ?`,
  );
  const putPattern = db.prepare(
    `INSERT OR IGNORE INTO learned_patterns (pattern_id, service, cause, fix, alerts, state, found_at)
     VALUES (@pattern_id, @service, @cause, @fix, @alerts, 'proposed', @found_at)`,
  );
  const setPattern = db.prepare<[PatternState, string, string, string]>(
    'UPDATE learned_patterns SET state = ?, changed_by = ?, changed_at = ? WHERE pattern_id = ?',
  );
  const dropPattern = db.prepare<[string]>('DELETE FROM learned_patterns WHERE pattern_id = ?');

  return {
    labels: (): Label[] => allLabels.all().map(toLabel),
    label: (episodeId: string): Label | null => {
      const row = labelOf.get(episodeId);
      return row === undefined ? null : toLabel(row);
    },
    /** A cause's labels where it led (proven, linked, suspected), newest first, as many as a
     * demotion reads. */
    labelsOfCause: (cause: string): Label[] => ofCause.all(cause, DEMOTION_WINDOW).map(toLabel),
    labelsOfServiceCause: (service: string, cause: string): Label[] =>
      ofServiceCause.all(cause, service).map(toLabel),
    demotions: (): DemotionRow[] => demotions.all(),
    demotion: (cause: string): DemotionRow | null => demotion.get(cause) ?? null,
    patterns: (): PatternRow[] => patterns.all().map(toPattern),
    pattern: (id: string): PatternRow | null => {
      const row = pattern.get(id);
      return row === undefined ? null : toPattern(row);
    },
    projection: projectionOf<LearningEvents>({
      name: 'learning',
      tables: ['learning_labels', 'learning_demotions', 'learned_patterns'],
      on: {
        [LEARNING_LABEL]: (d, e) => {
          putLabel.run({
            episode_id: d.episode_id,
            seq: e.seq,
            correct: d.correct ? 1 : 0,
            source: d.source,
            cause: d.cause,
            pack: d.pack,
            confidence: d.confidence,
            service: d.service,
            alerts: JSON.stringify(d.alerts),
            fix: d.fix,
            by_actor: e.actor,
            at: e.ts,
          });
        },
        [LEARNING_UNLABELLED]: (d) => {
          dropLabel.run(d.episode_id);
        },
        [LEARNING_DEMOTED]: (d, e) => {
          putDemotion.run({
            cause: d.cause,
            precision: d.precision,
            labels: d.labels,
            since: e.ts,
          });
        },
        [LEARNING_RESTORED]: (d) => {
          dropDemotion.run(d.cause);
        },
        [PATTERN_FOUND]: (d, e) => {
          putPattern.run({
            pattern_id: d.pattern_id,
            service: d.service,
            cause: d.cause,
            fix: d.fix,
            alerts: JSON.stringify(d.alerts),
            found_at: e.ts,
          });
        },
        [PATTERN_DECIDED]: (d, e) => {
          if (d.action === 'delete') {
            dropPattern.run(d.pattern_id);
            return;
          }
          const before = pattern.get(d.pattern_id);
          const after = before === undefined ? undefined : TRANSITIONS[d.action][before.state];
          if (after !== undefined) setPattern.run(after, e.actor, e.ts, d.pattern_id);
        },
      },
    }),
  };
}
export type LearningStore = ReturnType<typeof createLearningStore>;

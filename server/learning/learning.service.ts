// Learning: labels on episodes (team verdicts and outside sources), precision per cause and
// pack, calibration, demotions, and the patterns mined from labelled episodes. A label and
// whatever it changes (a demotion, a pattern found) are appended in one writer job.
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
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
import {
  calibrationOf,
  DEMOTION_BAR,
  DEMOTION_MIN_LABELS,
  DEMOTION_WINDOW,
  demotionOf,
  demotionWhy,
  PATTERN_MIN_SUPPORT,
  patternOf,
  precisionBy,
  standingOf,
  supportOf,
  type Label,
} from './learning.figures.js';
import { TRANSITIONS, type LearningStore, type PatternRow } from './learning.store.js';

/** What the service said about an episode, as a label records it. */
export interface Said {
  readonly service: string;
  readonly alerts: readonly string[];
  readonly cause: string | null;
  readonly pack: string | null;
  /** the leading cause's confidence; unproven when there is none */
  readonly confidence: string;
  readonly fix: string | null;
  /** whether the episode has closed: only a closed episode's diagnosis is labelled */
  readonly closed: boolean;
}

interface Deps {
  readonly store: LearningStore;
  readonly ledger: DomainLedger<LearningEvents>;
  readonly writer: Writer;
  /** What the service said about an episode; null: no such episode. */
  readonly said: (episodeId: string) => Said | null;
}

/** A team verdict as a label: same and advice say the diagnosis was right; none says nothing. */
export function correctOf(verdict: string): boolean | null {
  if (verdict === 'same' || verdict === 'advice') return true;
  if (verdict === 'other') return false;
  return null;
}

const TEAM = 'team';

/** Why labels keep a cause from proven now, read from the store alone (the engine's port). */
export function demotionReader(store: LearningStore): (cause: string) => string | null {
  return (cause) => {
    if (store.demotion(cause) === null) return null;
    const now = demotionOf(store.labelsOfCause(cause));
    return now === null ? `${cause} is demoted by its labels` : demotionWhy(now);
  };
}

export function createLearningService({ store, ledger, writer, said }: Deps) {
  /** Inside a writer job: whether the cause's standing changed, and the event if so. */
  function restand(cause: string, actor: string, trace: string): void {
    const demoted = demotionOf(store.labelsOfCause(cause));
    const before = store.demotion(cause);
    if (demoted !== null && before === null) {
      ledger.append({
        type: LEARNING_DEMOTED,
        actor,
        data: { cause, precision: demoted.precision, labels: demoted.labels, bar: DEMOTION_BAR },
        trace_id: trace,
      });
    } else if (demoted === null && before !== null) {
      const now = standingOf(store.labelsOfCause(cause));
      ledger.append({
        type: LEARNING_RESTORED,
        actor,
        data: { cause, precision: now?.precision ?? 0, labels: now?.labels ?? 0 },
        trace_id: trace,
      });
    }
  }

  /** Inside a writer job: a pattern this label completes, appended once. */
  function mine(label: Label, actor: string): void {
    const key = patternOf(label);
    if (key === null || store.pattern(key.pattern_id) !== null) return;
    const { support, wrong } = supportOf(key, store.labelsOfServiceCause(key.service, key.cause));
    if (support < PATTERN_MIN_SUPPORT || wrong > 0) return;
    ledger.append({
      type: PATTERN_FOUND,
      actor,
      data: { ...key, alerts: [...key.alerts], support },
      trace_id: label.episode_id,
    });
  }

  /** Inside a writer job: record a label and what it changes. */
  function record(episodeId: string, correct: boolean, source: string, actor: Actor) {
    const s = said(episodeId);
    if (s === null) throw new NotFoundError('not_found', `no episode ${episodeId}`);
    if (!s.closed)
      throw new ConflictError('episode_open', `episode ${episodeId} has not closed`, {
        why: 'a diagnosis is labelled once its episode has closed',
      });
    const before = store.label(episodeId);
    if (before?.source === TEAM && source !== TEAM)
      throw new ConflictError('team_verdict', `the team's verdict labels episode ${episodeId}`, {
        why: "an outside label never replaces the team's verdict: change the verdict on the episode's page",
      });
    const replaced = before?.cause ?? null;
    const event = ledger.append({
      type: LEARNING_LABEL,
      actor: actor.name,
      data: {
        episode_id: episodeId,
        correct,
        source,
        cause: s.cause,
        pack: s.pack,
        confidence: s.confidence,
        service: s.service,
        alerts: [...new Set(s.alerts)].sort(),
        fix: s.fix,
        ...(actor.via !== undefined && { via: actor.via }),
      },
      trace_id: episodeId,
    });
    const label = store.label(episodeId);
    if (label === null) throw new Error(`the label on ${episodeId} was not projected`);
    // A label replaced on a diagnosis that changed moves both causes' standing.
    for (const cause of new Set([s.cause, replaced])) {
      if (cause !== null) restand(cause, 'system', episodeId);
    }
    mine(label, 'system');
    return { label, seq: event.seq };
  }

  function patternView(p: PatternRow) {
    const { support, wrong } = supportOf(p, store.labelsOfServiceCause(p.service, p.cause));
    return { ...p, alerts: [...p.alerts], support, wrong };
  }

  return {
    /** POST /v1/learning/label: a label from outside (a ticketing tool, a review). */
    async label(body: { episode: string; correct: boolean; source: string }, actor: Actor) {
      const source = body.source.trim();
      if (source === '' || source.toLowerCase() === TEAM) {
        throw new InvalidInputError(
          'invalid_input',
          source === ''
            ? 'source must name who labelled the episode'
            : "source team is the team's verdict: record it with POST /v1/episodes/<id>/team",
          { field: 'source' },
        );
      }
      const { label } = await writer.transact(() =>
        record(body.episode, body.correct, source, actor),
      );
      return labelView(label);
    },
    /**
     * Inside the writer job of a team verdict: the label it gives, if any. An open episode is
     * not labelled; `none` withdraws the team's earlier label.
     */
    fromTeam(episodeId: string, verdict: string, actor: Actor): void {
      if (said(episodeId)?.closed !== true) return;
      const correct = correctOf(verdict);
      if (correct !== null) {
        record(episodeId, correct, TEAM, actor);
        return;
      }
      const before = store.label(episodeId);
      if (before?.source !== TEAM) return;
      ledger.append({
        type: LEARNING_UNLABELLED,
        actor: actor.name,
        data: { episode_id: episodeId, why: 'the team changed its verdict to none' },
        trace_id: episodeId,
      });
      if (before.cause !== null) restand(before.cause, 'system', episodeId);
    },
    /** GET /v1/learning */
    summary() {
      const labels = store.labels();
      const correct = labels.filter((l) => l.correct).length;
      const bySource: Record<string, number> = {};
      for (const l of labels) bySource[l.source] = (bySource[l.source] ?? 0) + 1;
      return {
        counts: {
          labels: labels.length,
          correct,
          wrong: labels.length - correct,
          by_source: bySource,
          patterns: store.patterns().length,
        },
        precision: { causes: precisionBy(labels, 'cause'), packs: precisionBy(labels, 'pack') },
        // As each stands now; `since` is when it crossed the bar.
        demotions: store.demotions().map((d) => {
          const now = standingOf(store.labelsOfCause(d.cause));
          return { ...d, ...(now !== null && { precision: now.precision, labels: now.labels }) };
        }),
        calibration: calibrationOf(labels),
        rules: {
          demotion_bar: DEMOTION_BAR,
          demotion_min_labels: DEMOTION_MIN_LABELS,
          demotion_window: DEMOTION_WINDOW,
          pattern_min_support: PATTERN_MIN_SUPPORT,
        },
      };
    },
    /** The doctor's accuracy: labelled claims (proven, linked) right, and the demotions. */
    accuracy(): { right: number; claims: number; demoted: string[] } {
      const claims = store.labels().filter((l) => ['proven', 'linked'].includes(l.confidence));
      return {
        right: claims.filter((l) => l.correct).length,
        claims: claims.length,
        demoted: store.demotions().map((d) => d.cause),
      };
    },
    /** Why a cause may not reach proven on its own evidence now; null: it may. */
    demotedWhy: demotionReader(store),
    /** GET /v1/learned */
    patterns: () => ({ patterns: store.patterns().map(patternView) }),
    /**
     * The promoted pattern a diagnosis repeats: the same service, cause and first fix, every
     * alert of the pattern among the episode's, and never labelled wrong since; null: none.
     */
    promoted(
      service: string,
      cause: string,
      fix: string | null,
      alerts: readonly string[],
    ): PatternRow | null {
      const present = new Set(alerts);
      return (
        store
          .patterns()
          .find(
            (p) =>
              p.state === 'promoted' &&
              p.service === service &&
              p.cause === cause &&
              p.fix === fix &&
              p.alerts.length > 0 &&
              p.alerts.every((a) => present.has(a)) &&
              supportOf(p, store.labelsOfServiceCause(p.service, p.cause)).wrong === 0,
          ) ?? null
      );
    },
    /** POST /v1/learned/<id> */
    async decide(id: string, action: PatternAction, actor: Actor) {
      return writer.transact(() => {
        const before = store.pattern(id);
        if (before === null) throw new NotFoundError('not_found', `no learned pattern ${id}`);
        if (action !== 'delete' && TRANSITIONS[action][before.state] === undefined) {
          const from = Object.keys(TRANSITIONS[action]).join(' or ');
          throw new ConflictError('pattern_state', `pattern ${id} is ${before.state}`, {
            why: `${action} applies to a pattern that is ${from}; this one is ${before.state}`,
          });
        }
        ledger.append({
          type: PATTERN_DECIDED,
          actor: actor.name,
          data: {
            pattern_id: id,
            action,
            ...(actor.via !== undefined && { via: actor.via }),
          },
        });
        const after = store.pattern(id);
        return after === null ? { pattern_id: id, deleted: true as const } : patternView(after);
      });
    },
  };
}
export type LearningService = ReturnType<typeof createLearningService>;

export function labelView(l: Label) {
  return {
    episode_id: l.episode_id,
    correct: l.correct,
    source: l.source,
    cause: l.cause,
    confidence: l.confidence,
    by: l.by,
    at: l.at,
    seq: l.seq,
  };
}

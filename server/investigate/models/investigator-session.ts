// One investigator run's budget and record. Every System 2 call and every read goes through
// here, so the bounds (SVC_MCTS_S2_CALLS, SVC_MCTS_READS, SVC_MCTS_DEPTH) hold whatever the
// strategy does, and the ledger counts them: each call is a `model.called` event, each read a
// `model.proposed` event, and the run ends with one `model.investigated` summary. The whole run
// also stays within SVC_MODEL_TIMEOUT_S, so a slow model never stalls an episode.
import type { Writer } from '../../db/writer.js';
import { projectionOf, type DomainLedger, type ReadonlyDeep } from '../../ledger/index.js';
import { ModelError, type JsonSchema } from '../../../models/index.js';
import type { InvestigatorContext, InvestigatorTools } from '../readings.js';
import type { ModelUse } from './service.js';
import type { InvestigateEvents } from '../investigate.events.js';

export const MODEL_PROPOSED = 'model.proposed';
export const MODEL_INVESTIGATED = 'model.investigated';

/** Written only by the service: POST /v1/events refuses these types. */
export const investigatorProjection = projectionOf<InvestigateEvents>({
  name: 'investigator',
  tables: [],
  on: {},
  reserves: [MODEL_PROPOSED, MODEL_INVESTIGATED],
});

export type InvestigatorKind = 'loop' | 'mcts';

export interface Bounds {
  readonly s2Calls: number;
  readonly reads: number;
  readonly depth: number;
}

/** Why a run ended. */
export type Stopped =
  | 'settled' // a cause proven or linked
  | 'model' // the model said stop
  | 'exhausted' // nothing left to read
  | 'bounds' // a bound reached
  | 'time' // SVC_MODEL_TIMEOUT_S spent
  | 'ceiling' // the daily token ceiling spent
  | 'error'; // the model failed (timeout, refusal, an answer outside the schema)

/** Thrown to end a run; the session records why. */
export class Stop extends Error {
  readonly why: Stopped;
  readonly kind: string | null;
  constructor(why: Stopped, kind: string | null = null) {
    super(`the investigator stopped: ${why}`);
    this.why = why;
    this.kind = kind;
  }
}

export interface SessionDeps {
  readonly models: Pick<ModelUse, 'call'>;
  readonly ledger: DomainLedger<InvestigateEvents>;
  readonly writer: Writer;
  readonly kind: InvestigatorKind;
  readonly bounds: Bounds;
  /** the whole run's limit in seconds (SVC_MODEL_TIMEOUT_S) */
  readonly timeoutS: number;
  readonly now?: () => number;
}

const SYSTEM =
  'You investigate an incident with read-only checks. From the catalogue given, choose the ' +
  'checks most likely to prove or rule out a cause; never anything else. Answer with JSON.';

export function createSession(
  deps: SessionDeps,
  ctx: InvestigatorContext,
  tools: InvestigatorTools,
) {
  const now = deps.now ?? Date.now;
  const deadline = now() + deps.timeoutS * 1000;
  let calls = 0;
  let reads = 0;
  let deepest = 0;

  const append = <K extends typeof MODEL_PROPOSED | typeof MODEL_INVESTIGATED>(
    type: K,
    data: ReadonlyDeep<Omit<InvestigateEvents[K], 'episode_id' | 'investigator'>>,
    reason?: string,
  ) =>
    deps.writer.transact(() =>
      deps.ledger.append({
        type,
        actor: 'system',
        // TypeScript cannot follow a generic spread; the parameter's type is what is checked.
        data: {
          episode_id: ctx.episode_id,
          investigator: deps.kind,
          ...data,
        } as ReadonlyDeep<InvestigateEvents[K]>,
        ...(reason !== undefined && { reason }),
        trace_id: ctx.episode_id,
      }),
    );

  const secondsLeft = (): number => {
    const left = (deadline - now()) / 1000;
    if (left <= 0) throw new Stop('time');
    return left;
  };

  return {
    /** One System 2 call within the bounds; its value, already checked against `schema`. */
    async ask(purpose: string, user: string, schema: JsonSchema, maxTokens: number) {
      if (calls >= deps.bounds.s2Calls) throw new Stop('bounds');
      const timeoutS = Math.max(1, Math.ceil(secondsLeft()));
      calls += 1;
      try {
        const answer = await deps.models.call(
          's2',
          { purpose, system: SYSTEM, user, schema, max_tokens: maxTokens },
          ctx.episode_id,
          { timeoutS },
        );
        return answer.value;
      } catch (err) {
        const kind = err instanceof ModelError ? err.kind : 'refused';
        throw new Stop(kind === 'ceiling_spent' ? 'ceiling' : 'error', kind);
      }
    },

    /**
     * Reads a proposed check (with its pack's other checks for the service) within the
     * bounds; false when it was read already. The event names every check read.
     */
    async read(id: string, why: string, depth: number): Promise<boolean> {
      if (depth > deps.bounds.depth) throw new Stop('bounds');
      if (reads >= deps.bounds.reads) throw new Stop('bounds');
      secondsLeft();
      const read = await tools.read(id);
      const checkOf = (c: string) => tools.catalogue.find((x) => x.id === c);
      const proposed = checkOf(id);
      if (read.length === 0 || proposed === undefined) return false;
      reads += 1;
      deepest = Math.max(deepest, depth);
      await append(
        MODEL_PROPOSED,
        {
          check: proposed.check,
          service: proposed.service,
          why,
          read: reads,
          depth,
          checks: read.map((r) => checkOf(r)?.check ?? r),
        },
        `the ${deps.kind} investigator had ${proposed.check} read on ${proposed.service}${why === '' ? '' : `: ${why}`}`,
      );
      return true;
    },

    /** Records the run's summary; the bounds are part of it so the ledger shows both. */
    async finish(stopped: Stopped, errorKind: string | null): Promise<void> {
      await append(
        MODEL_INVESTIGATED,
        {
          stopped,
          ...(errorKind !== null && { error_kind: errorKind }),
          s2_calls: calls,
          reads,
          depth: deepest,
          bounds: {
            s2_calls: deps.bounds.s2Calls,
            reads: deps.bounds.reads,
            depth: deps.bounds.depth,
          },
          checks: tools.done(),
        },
        `the ${deps.kind} investigator read ${String(reads)} check(s) in ${String(calls)} call(s): ${stopped}`,
      );
    },
  };
}

export type Session = ReturnType<typeof createSession>;

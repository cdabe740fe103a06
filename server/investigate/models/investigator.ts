// The model investigator the engine asks when the packs' own checks settle nothing
// (SVC_INVESTIGATOR: loop or mcts). It only proposes checks from the catalogue the engine
// offers; the engine reads them, and whatever the readings prove goes through the same
// decision table, policy, autonomy and halt as any other diagnosis.
import type { Investigator } from '../readings.js';
import { runLoop } from './investigator-loop.js';
import { runMcts } from './investigator-mcts.js';
import { createSession, Stop, type SessionDeps } from './investigator-session.js';

/** The session's deps: the models, the ledger, the strategy, its bounds and time. */
export type InvestigatorDeps = SessionDeps;

export function createInvestigator(deps: InvestigatorDeps): Investigator {
  return {
    async extend(ctx, tools) {
      if (tools.catalogue.length === 0) return; // nothing it could propose: no call, no record
      const session = createSession(deps, ctx, tools);
      let stopped: Stop;
      try {
        if (deps.kind === 'mcts') await runMcts(session, ctx, tools, deps.bounds.depth);
        else await runLoop(session, ctx, tools);
        stopped = new Stop('exhausted');
      } catch (err) {
        if (!(err instanceof Stop)) throw err;
        stopped = err;
      }
      await session.finish(stopped.why, stopped.kind);
    },
  };
}

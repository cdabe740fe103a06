// SVC_INVESTIGATOR=loop: ask System 2 for the next read-only check from the evidence so far,
// read it, and repeat, until a cause is settled, the model says stop, nothing is left to read
// or a bound is reached.
import type { InvestigatorContext, InvestigatorTools } from '../readings.js';
import { factsOf, nextCheckSchema, tokensFor } from './investigator-prompt.js';
import { Stop, type Session } from './investigator-session.js';

export async function runLoop(
  session: Session,
  ctx: InvestigatorContext,
  tools: InvestigatorTools,
): Promise<void> {
  for (let depth = 1; ; depth++) {
    const assessment = tools.assess(tools.done());
    if (assessment.settled) throw new Stop('settled');
    const left = tools.catalogue.filter((c) => !tools.done().includes(c.id));
    if (left.length === 0) throw new Stop('exhausted');
    const ids = left.map((c) => c.id);
    const answer = (await session.ask(
      'investigator.next_check',
      factsOf(ctx, assessment, left),
      nextCheckSchema(ids),
      tokensFor(ids, 1),
    )) as { next: string; why: string };
    if (answer.next === 'stop') throw new Stop('model');
    await session.read(answer.next, answer.why, depth);
  }
}

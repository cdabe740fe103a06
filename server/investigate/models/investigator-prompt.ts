// What the investigator is told, and the shapes its answers must have. The facts are stable
// names only (alerts, finding ids, cause titles, the catalogue): never a reading's values, so
// nothing a connector returned leaves the host, and a replayed run asks exactly what the
// recorded run asked.
import type { JsonSchema } from '../../../models/index.js';
import type { Assessment, Candidate, InvestigatorContext } from '../readings.js';

export const WHY_MAX = 120;

export function factsOf(
  ctx: InvestigatorContext,
  assessment: Assessment,
  catalogue: readonly Candidate[],
): string {
  return JSON.stringify({
    service: ctx.service,
    alerts: ctx.alerts,
    evidence: assessment.evidence,
    unreadable: assessment.unreadable,
    hypotheses: assessment.hypotheses,
    catalogue: catalogue.map((c) => ({ id: c.id, title: c.title })),
  });
}

/** The loop's answer: one catalogue id, or stop. */
export const nextCheckSchema = (ids: readonly string[]): JsonSchema => ({
  type: 'object',
  properties: {
    next: { type: 'string', enum: [...ids, 'stop'] },
    why: { type: 'string', maxLength: WHY_MAX },
  },
  required: ['next', 'why'],
  additionalProperties: false,
});

/** The tree search's expansion: up to `most` catalogue ids, best first. */
export const proposalsSchema = (ids: readonly string[], most: number): JsonSchema => ({
  type: 'object',
  properties: {
    checks: {
      type: 'array',
      items: { type: 'string', enum: [...ids] },
      minItems: 1,
      maxItems: most,
    },
    why: { type: 'string', maxLength: WHY_MAX },
  },
  required: ['checks', 'why'],
  additionalProperties: false,
});

/** Tokens enough for the longest answer the schema allows (a byte per token at worst). */
export const tokensFor = (ids: readonly string[], items: number): number =>
  64 + WHY_MAX + items * (8 + Math.max(4, ...ids.map((id) => id.length)));

// The `relations` artefact kind: links between services found outside the service (a causal
// discovery run over a longer history, say). They become estate suggestions for a person to
// confirm or dismiss; they never place a link and never take part in a diagnosis.
import { isRecord } from '../shared/values.js';

export const RELATIONS_MAX_LINKS = 10_000;

export interface RelationLink {
  /** The service that depends on `to` (the one that follows). */
  readonly from: string;
  /** The service depended on (the one that leads). */
  readonly to: string;
  /** 0 to 1: how strongly the run found the link. */
  readonly strength: number;
  /** How far `to` leads `from`, when the run says. */
  readonly lag_s?: number;
  /** The run's own words about the link. */
  readonly evidence?: string;
}

/** The body's links, or why the body is not a relations body (naming the field). */
export function relationsOf(body: unknown): RelationLink[] | string {
  if (!isRecord(body) || !Array.isArray(body['links'])) return '`body.links` is not a list';
  const links = body['links'] as unknown[];
  if (links.length > RELATIONS_MAX_LINKS)
    return `\`body.links\` holds ${String(links.length)} links, more than ${String(RELATIONS_MAX_LINKS)}`;
  const out: RelationLink[] = [];
  for (const [i, l] of links.entries()) {
    const at = `\`body.links[${String(i)}]`;
    if (!isRecord(l)) return `${at}\` is not an object`;
    const { from, to, strength, lag_s: lag, evidence } = l;
    if (typeof from !== 'string' || from === '') return `${at}.from\` is missing`;
    if (typeof to !== 'string' || to === '') return `${at}.to\` is missing`;
    if (from === to) return `${at}\` links ${from} to itself`;
    if (typeof strength !== 'number' || !(strength >= 0 && strength <= 1))
      return `${at}.strength\` is not a number from 0 to 1`;
    if (lag !== undefined && (typeof lag !== 'number' || !(lag >= 0)))
      return `${at}.lag_s\` is not a number of seconds`;
    if (evidence !== undefined && typeof evidence !== 'string')
      return `${at}.evidence\` is not a string`;
    out.push({
      from,
      to,
      strength,
      ...(lag !== undefined ? { lag_s: lag } : {}),
      ...(evidence !== undefined ? { evidence } : {}),
    });
  }
  return out;
}

// What a label records of an episode: its service and alerts (episodes) and the leading
// cause the investigation named (investigate). Read when the label is given, so that later
// changes to a diagnosis never rewrite what was judged.
import type { Said } from '../learning/index.js';
import type { Runtime } from './runtime.js';

interface LeadingHypothesis {
  readonly cause?: unknown;
  readonly pack?: unknown;
  readonly confidence?: unknown;
  readonly fixes?: unknown;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function leadingOf(hypotheses: string | undefined): LeadingHypothesis | null {
  if (hypotheses === undefined) return null;
  try {
    const list = JSON.parse(hypotheses) as unknown;
    const first: unknown = Array.isArray(list) ? list[0] : null;
    return typeof first === 'object' && first !== null ? first : null;
  } catch {
    return null;
  }
}

export function saidAbout(rt: Runtime): (episodeId: string) => Said | null {
  return (episodeId) => {
    const episode = rt.episodesStore.get(episodeId);
    if (episode === null) return null;
    const lead = leadingOf(rt.investigationsStore.get(episodeId)?.hypotheses);
    const cause = text(lead?.cause);
    const fixes = Array.isArray(lead?.fixes) ? (lead.fixes as unknown[]) : [];
    let alerts: string[] = [];
    try {
      const parsed = JSON.parse(episode.alerts) as unknown;
      if (Array.isArray(parsed)) alerts = parsed.filter((a): a is string => typeof a === 'string');
    } catch {
      alerts = [];
    }
    return {
      service: episode.service,
      alerts,
      cause,
      pack: cause === null ? null : text(lead?.pack),
      confidence: cause === null ? 'unproven' : (text(lead?.confidence) ?? 'unproven'),
      fix: cause === null ? null : text(fixes[0]),
      closed: episode.status === 'closed',
    };
  };
}

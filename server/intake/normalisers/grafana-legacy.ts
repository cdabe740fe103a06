// Grafana legacy dashboard alerts (≤ v7): one rule per body, `state` alerting / no_data / ok;
// pending and paused are not alerts. The body carries no time: receive time throughout.
import { NotReadableError, Severity, type Normaliser } from '../signal.js';
import { absoluteLink, putScalar } from './labels.js';
import {
  arr,
  COMMON_SEVERITY,
  first,
  hashOf,
  obj,
  severity,
  signal,
  str,
  type JsonObject,
} from './read.js';

const SOURCE = 'grafana-legacy';

export const normaliser: Normaliser = {
  source: SOURCE,
  detect(body) {
    const b = obj(body);
    return (
      b !== undefined &&
      typeof b['ruleName'] === 'string' &&
      typeof b['state'] === 'string' &&
      (Array.isArray(b['evalMatches']) || Object.hasOwn(b, 'ruleId'))
    );
  },
  normalise(body, ctx) {
    const b = obj(body);
    if (b === undefined) throw new NotReadableError('body is not an object');
    const name = str(b['ruleName']);
    if (name === undefined) throw new NotReadableError('ruleName is missing');
    const state = str(b['state'])?.toLowerCase();
    if (state === undefined) throw new NotReadableError('state is missing');
    if (state === 'pending' || state === 'paused') {
      return { kind: 'control', reason: `Grafana legacy alert state ${state}` };
    }
    if (state !== 'alerting' && state !== 'no_data' && state !== 'ok') {
      throw new NotReadableError(`state ${state} is not alerting, no_data, ok, pending or paused`);
    }
    const tags = obj(b['tags']) ?? {};
    const matches = (arr(b['evalMatches']) ?? []).flatMap((m) => {
      const o = obj(m);
      return o === undefined ? [] : [o];
    });
    const resolved = state === 'ok';
    return {
      kind: 'signals',
      signals: [
        signal({
          source: SOURCE,
          name,
          status: resolved ? 'resolved' : 'firing',
          severity:
            state === 'no_data' ? Severity.Info : severity(tags['severity'], COMMON_SEVERITY),
          service: str(tags['service']) ?? null,
          resource: resourceOf(matches),
          fingerprint: fingerprintOf(b, name),
          started_at: ctx.receivedAt,
          ended_at: resolved ? ctx.receivedAt : null,
          summary: first(b['message'], b['title']) ?? name,
          labels: labelsOf(b, tags, matches),
          link: absoluteLink(b['ruleUrl']),
        }),
      ],
    };
  },
};

/** orgId + ruleId, shared by alerting and ok; ruleId 0 (test notifications) → the rule name. */
function fingerprintOf(b: JsonObject, name: string): string {
  const ruleId = str(b['ruleId']);
  if (ruleId !== undefined && ruleId !== '0') {
    return hashOf(SOURCE, 'rule', str(b['orgId']) ?? '', ruleId);
  }
  return hashOf(SOURCE, 'name', name);
}

/** The first evalMatch tagged with an instance, else the first match's metric. */
function resourceOf(matches: JsonObject[]): string | null {
  for (const m of matches) {
    const instance = str(obj(m['tags'])?.['instance']);
    if (instance !== undefined) return instance;
  }
  return str(matches[0]?.['metric']) ?? null;
}

function labelsOf(b: JsonObject, tags: JsonObject, matches: JsonObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['ruleId', 'orgId', 'dashboardId', 'panelId', 'title', 'imageUrl']) {
    putScalar(out, key, b[key]);
  }
  matches.slice(0, 20).forEach((m, i) => {
    putScalar(out, `evalMatch.${String(i)}.metric`, m['metric']);
    putScalar(out, `evalMatch.${String(i)}.value`, m['value']);
  });
  const firstTags = obj(matches[0]?.['tags']);
  if (firstTags !== undefined) {
    for (const [k, v] of Object.entries(firstTags)) putScalar(out, `evalMatch.0.tags.${k}`, v);
  }
  for (const [k, v] of Object.entries(tags)) putScalar(out, k, v);
  return out;
}

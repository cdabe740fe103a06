// New Relic: the Workflows default webhook payload (an issue: `issueUrl`, `state`,
// `alertConditionNames`) and the legacy Alerts webhook (`incident_id`, `current_state`).
// NORMALISATION.md §2 (newrelic).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type SignalStatus,
} from '../signal.js';
import {
  arr,
  at,
  first,
  hashOf,
  isObject,
  type JsonObject,
  obj,
  severity,
  signal,
  str,
  time,
} from './read.js';

const SOURCE = 'newrelic';

/** Workflows `priority`. */
const PRIORITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  high: 'high',
  medium: 'warning',
  low: 'info',
};

/** Legacy `severity`. */
const LEGACY_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  warning: 'warning',
  info: 'info',
};

const WORKFLOW_STATE: Readonly<Record<string, SignalStatus>> = {
  created: 'firing',
  activated: 'firing',
  acknowledged: 'firing',
  closed: 'resolved',
};

const LEGACY_STATE: Readonly<Record<string, SignalStatus>> = {
  open: 'firing',
  acknowledged: 'firing',
  closed: 'resolved',
};

function isWorkflow(b: JsonObject): boolean {
  return (
    typeof b['issueUrl'] === 'string' &&
    typeof b['state'] === 'string' &&
    (Array.isArray(b['alertConditionNames']) || Array.isArray(b['alertPolicyNames']))
  );
}

function isLegacy(b: JsonObject): boolean {
  return (
    b['incident_id'] !== undefined &&
    typeof b['current_state'] === 'string' &&
    (typeof b['policy_name'] === 'string' || typeof b['condition_name'] === 'string')
  );
}

function detect(body: unknown): boolean {
  return isObject(body) && (isWorkflow(body) || isLegacy(body));
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const root = obj(body);
  if (root === undefined) throw new NotReadableError('a New Relic webhook body is a JSON object');
  if (str(root['issueUrl']) !== undefined || str(root['state']) !== undefined) {
    return workflow(root, ctx);
  }
  if (str(root['current_state']) !== undefined) return legacy(root, ctx);
  throw new NotReadableError(
    'neither a Workflows issue (state) nor a legacy incident (current_state)',
  );
}

function workflow(b: JsonObject, ctx: NormaliseContext): NormaliseResult {
  const state = str(b['state'])?.toLowerCase();
  const id = first(b['id']);
  const name = first(at(b, 'alertConditionNames.0'), b['title']);
  if (state === undefined) throw new NotReadableError('state is missing');
  if (id === undefined) throw new NotReadableError('id is missing');
  if (name === undefined) throw new NotReadableError('alertConditionNames and title are missing');
  const status = Object.hasOwn(WORKFLOW_STATE, state) ? WORKFLOW_STATE[state] : undefined;
  if (status === undefined) {
    return {
      kind: 'control',
      reason: `newrelic issue state ${state.slice(0, 64)} is not a state change`,
    };
  }
  const labels: Record<string, string> = {};
  put(labels, 'priority', b['priority']);
  put(labels, 'state', b['state']);
  put(labels, 'trigger', b['trigger']);
  put(labels, 'workflow', b['workflowName']);
  put(labels, 'total_incidents', b['totalIncidents']);
  put(labels, 'is_correlated', b['isCorrelated']);
  put(labels, 'sources', list(b['sources']));
  put(labels, 'policies', list(b['alertPolicyNames']));
  put(labels, 'conditions', list(b['alertConditionNames']));
  put(labels, 'impacted_entities', list(b['impactedEntities']));
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status,
        severity: severity(b['priority'], PRIORITY),
        service: first(at(b, 'alertPolicyNames.0')) ?? null,
        resource: first(at(b, 'impactedEntities.0')) ?? null,
        fingerprint: key(id),
        started_at: time(b['createdAt']) ?? ctx.receivedAt,
        ended_at: status === 'resolved' ? (time(b['updatedAt']) ?? ctx.receivedAt) : null,
        summary: first(b['title'], name) ?? name,
        labels,
        link: url(b['issueUrl']),
      }),
    ],
  };
}

function legacy(b: JsonObject, ctx: NormaliseContext): NormaliseResult {
  const state = str(b['current_state'])?.toLowerCase();
  const incident = first(b['incident_id']);
  const name = first(b['condition_name'], b['policy_name']);
  if (state === undefined) throw new NotReadableError('current_state is missing');
  if (incident === undefined) throw new NotReadableError('incident_id is missing');
  if (name === undefined) throw new NotReadableError('condition_name is missing');
  const status = Object.hasOwn(LEGACY_STATE, state) ? LEGACY_STATE[state] : undefined;
  if (status === undefined) {
    return {
      kind: 'control',
      reason: `newrelic incident state ${state.slice(0, 64)} is not a state change`,
    };
  }
  const account = first(b['account_id']);
  const target = obj(at(b, 'targets.0'));
  const labels: Record<string, string> = {};
  put(labels, 'severity', b['severity']);
  put(labels, 'current_state', b['current_state']);
  put(labels, 'event_type', b['event_type']);
  put(labels, 'account', b['account_name']);
  put(labels, 'account_id', account);
  put(labels, 'policy', b['policy_name']);
  put(labels, 'condition_id', b['condition_id']);
  put(labels, 'runbook_url', b['runbook_url']);
  put(labels, 'target_type', target?.['type']);
  put(labels, 'target_product', target?.['product']);
  const targetLabels = obj(target?.['labels']);
  for (const [k, v] of Object.entries(targetLabels ?? {}).slice(0, 100))
    put(labels, `target.${k}`, v);
  const at_ = time(b['timestamp']) ?? ctx.receivedAt;
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status,
        severity: severity(b['severity'], LEGACY_SEVERITY),
        service: first(b['policy_name'], b['account_name']) ?? null,
        resource: first(target?.['name']) ?? null,
        // Incident ids are per account.
        fingerprint: key(account === undefined ? incident : `${account}:${incident}`),
        started_at: at_,
        ended_at: status === 'resolved' ? at_ : null,
        summary: first(b['details'], name) ?? name,
        labels,
        link: url(b['incident_url']),
      }),
    ],
  };
}

function list(v: unknown): string | undefined {
  const parts = (arr(v) ?? [])
    .slice(0, 100)
    .map((x) => str(x))
    .filter((x) => x !== undefined);
  return parts.length === 0 ? undefined : parts.join(', ');
}

function url(v: unknown): string | null {
  const s = str(v);
  return s !== undefined && /^https?:\/\//i.test(s) ? s : null;
}

function put(out: Record<string, string>, key: string, v: unknown): void {
  const s = typeof v === 'boolean' ? String(v) : str(v);
  if (s !== undefined) out[key] = s.slice(0, 1000);
}

/** The intake takes fingerprints of at most 512 characters: a longer id is hashed. */
function key(id: string): string {
  return id.length <= 512 ? id : hashOf(SOURCE, id);
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['new-relic'],
  detect,
  normalise,
};

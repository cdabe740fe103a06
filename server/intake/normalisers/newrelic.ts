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
import { httpLink, listText, putScalar } from './labels.js';
import {
  at,
  first,
  idFingerprint,
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
  putScalar(labels, 'priority', b['priority']);
  putScalar(labels, 'state', b['state']);
  putScalar(labels, 'trigger', b['trigger']);
  putScalar(labels, 'workflow', b['workflowName']);
  putScalar(labels, 'total_incidents', b['totalIncidents']);
  putScalar(labels, 'is_correlated', b['isCorrelated']);
  putScalar(labels, 'sources', listText(b['sources']));
  putScalar(labels, 'policies', listText(b['alertPolicyNames']));
  putScalar(labels, 'conditions', listText(b['alertConditionNames']));
  putScalar(labels, 'impacted_entities', listText(b['impactedEntities']));
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
        fingerprint: idFingerprint(SOURCE, id),
        started_at: time(b['createdAt']) ?? ctx.receivedAt,
        ended_at: status === 'resolved' ? (time(b['updatedAt']) ?? ctx.receivedAt) : null,
        summary: first(b['title'], name) ?? name,
        labels,
        link: httpLink(b['issueUrl']),
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
  putScalar(labels, 'severity', b['severity']);
  putScalar(labels, 'current_state', b['current_state']);
  putScalar(labels, 'event_type', b['event_type']);
  putScalar(labels, 'account', b['account_name']);
  putScalar(labels, 'account_id', account);
  putScalar(labels, 'policy', b['policy_name']);
  putScalar(labels, 'condition_id', b['condition_id']);
  putScalar(labels, 'runbook_url', b['runbook_url']);
  putScalar(labels, 'target_type', target?.['type']);
  putScalar(labels, 'target_product', target?.['product']);
  const targetLabels = obj(target?.['labels']);
  for (const [k, v] of Object.entries(targetLabels ?? {}).slice(0, 100))
    putScalar(labels, `target.${k}`, v);
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
        fingerprint: idFingerprint(
          SOURCE,
          account === undefined ? incident : `${account}:${incident}`,
        ),
        started_at: at_,
        ended_at: status === 'resolved' ? at_ : null,
        summary: first(b['details'], name) ?? name,
        labels,
        link: httpLink(b['incident_url']),
      }),
    ],
  };
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['new-relic'],
  detect,
  normalise,
};

// Wazuh: native alerts (an alerts.json line, which Wazuh integrations hand to a webhook
// script as is) and, on the explicit /v1/alerts/wazuh route only, the message Keep's
// custom-keep.py integration derives from one (NORMALISATION.md §2, §4: `auto` never
// recognises that derived message; `normalise` reads it).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type Signal,
} from '../signal.js';
import { putLabel, putNested } from './labels.js';
import {
  COMMON_SEVERITY,
  arr,
  at,
  first,
  hashOf,
  isObject,
  obj,
  severity,
  signal,
  str,
  time,
  type JsonObject,
} from './read.js';

const SOURCE = 'wazuh';

/** Rule level 0–15 in the suggested bands: ≥12 critical, 8–11 high, 4–7 warning, 0–3 info. */
function levelSeverity(level: number | undefined): Severity {
  if (level === undefined) return 'unknown';
  if (level >= 12) return 'critical';
  if (level >= 8) return 'high';
  if (level >= 4) return 'warning';
  return 'info';
}

/** A rule level given as a number or a numeric string. */
function levelOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\s*\d{1,3}\s*$/.test(v)) return Number(v);
  return undefined;
}

function firstLine(v: string | undefined): string | undefined {
  return v === undefined ? undefined : str(v.slice(0, 4000).split('\n', 1)[0]);
}

/** Groups that mark authentication rules, whose instances are told apart by source address. */
const AUTH_GROUP = /authentication|invalid_login/;

function native(b: JsonObject, rule: JsonObject, ctx: NormaliseContext): Signal {
  const ruleId = str(rule['id']);
  const description = str(rule['description']);
  if (ruleId === undefined && description === undefined) {
    throw new NotReadableError('rule.id and rule.description are missing');
  }
  const name = description ?? `Wazuh rule ${ruleId ?? ''}`;
  const level = levelOf(rule['level']);
  const agent = obj(b['agent']);
  const agentId = str(agent?.['id']);
  const groups = (arr(rule['groups']) ?? []).map((g) => str(g)).filter((g) => g !== undefined);
  const srcip = str(at(b, 'data.srcip'));
  const parts = [ruleId ?? name, agentId];
  if (srcip !== undefined && groups.some((g) => AUTH_GROUP.test(g))) parts.push(srcip);

  const labels: Record<string, string> = {};
  putLabel(labels, 'rule.id', ruleId);
  putLabel(labels, 'rule.level', level);
  putLabel(labels, 'rule.groups', groups);
  putLabel(labels, 'rule.firedtimes', rule['firedtimes']);
  for (const key of ['pci_dss', 'gdpr', 'hipaa', 'nist_800_53', 'gpg13', 'tsc']) {
    putLabel(labels, `rule.${key}`, rule[key]);
  }
  putNested(labels, 'rule.mitre', rule['mitre']);
  putLabel(labels, 'agent.id', agentId);
  putLabel(labels, 'agent.name', agent?.['name']);
  putLabel(labels, 'agent.ip', agent?.['ip']);
  putLabel(labels, 'manager.name', at(b, 'manager.name'));
  putLabel(labels, 'decoder.name', at(b, 'decoder.name'));
  putLabel(labels, 'predecoder.hostname', at(b, 'predecoder.hostname'));
  putLabel(labels, 'location', b['location']);
  putLabel(labels, 'id', b['id']);
  putNested(labels, 'syscheck', b['syscheck']);
  putNested(labels, 'data', b['data']);

  return signal({
    source: SOURCE,
    name,
    status: 'firing',
    severity: levelSeverity(level),
    resource: first(agent?.['name'], at(b, 'predecoder.hostname'))?.slice(0, 500) ?? null,
    fingerprint: hashOf(SOURCE, ...parts),
    started_at: time(first(b['timestamp'], b['@timestamp'])) ?? ctx.receivedAt,
    summary: firstLine(str(b['full_log'])) ?? name,
    labels,
  });
}

/** The fields of Keep's derived message, written as "Rule ID 2902\nLevel 7\n…" lines. */
function keepFields(description: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of description.slice(0, 20_000).split('\n', 20)) {
    const m = /^(Rule ID|Level|Agent ID|Agent Name|Title|Full Log)\s+(.*)$/.exec(line.trim());
    const value = str(m?.[2]);
    if (m?.[1] !== undefined && value !== undefined) fields.set(m[1], value);
  }
  return fields;
}

function keep(b: JsonObject, description: string, ctx: NormaliseContext): Signal {
  const fields = keepFields(description);
  const ruleId = fields.get('Rule ID');
  if (ruleId === undefined) throw new NotReadableError('rule is missing');
  const name = first(b['message'], fields.get('Title')) ?? `Wazuh rule ${ruleId}`;
  const level = levelOf(fields.get('Level'));
  const agentId = fields.get('Agent ID');
  const agentName = fields.get('Agent Name');
  // Keep writes the offset as "+01.00".
  const created = str(b['created_at'])?.replace(/([+-]\d{2})\.(\d{2})$/, '$1:$2');

  const labels: Record<string, string> = { format: 'keep' };
  putLabel(labels, 'rule.id', ruleId);
  putLabel(labels, 'rule.level', level);
  putLabel(labels, 'agent.id', agentId);
  putLabel(labels, 'agent.name', agentName);
  putLabel(labels, 'keep.severity', b['severity']);

  return signal({
    source: SOURCE,
    name,
    status: 'firing',
    // The rule level when the message carries it, as for native alerts; else Keep's word.
    severity: level !== undefined ? levelSeverity(level) : severity(b['severity'], COMMON_SEVERITY),
    resource: agentName?.slice(0, 500) ?? null,
    fingerprint: hashOf(SOURCE, ruleId, agentId),
    started_at: time(created) ?? ctx.receivedAt,
    summary: fields.get('Full Log') ?? name,
    labels,
  });
}

function detect(body: unknown): boolean {
  const b = obj(body);
  const rule = obj(b?.['rule']);
  return rule !== undefined && levelOf(rule['level']) !== undefined && isObject(b?.['agent']);
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const rule = obj(b['rule']);
  if (rule !== undefined) return { kind: 'signals', signals: [native(b, rule, ctx)] };
  const description = b['description'];
  if (typeof description === 'string' && str(b['message']) !== undefined) {
    return { kind: 'signals', signals: [keep(b, description, ctx)] };
  }
  throw new NotReadableError('rule object is missing');
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };

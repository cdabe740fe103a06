// VMware vRealize Operations (Aria Operations): the REST notification plugin's alert body
// (NORMALISATION.md §2). CANCELED resolves; ACTIVE (and updates) fire.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { putLabel } from './labels.js';
import { first, idFingerprint, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'vmware-vrealize';

const CRITICALITY: Readonly<Record<string, Severity>> = {
  alert_criticality_level_critical: 'critical',
  alert_criticality_level_immediate: 'high',
  alert_criticality_level_warning: 'warning',
  alert_criticality_level_info: 'info',
};

function detect(body: unknown): boolean {
  const b = obj(body);
  const criticality = b?.['criticality'];
  return (
    b !== undefined &&
    str(b['alertId']) !== undefined &&
    typeof criticality === 'string' &&
    criticality.startsWith('ALERT_CRITICALITY')
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const id = str(b['alertId']);
  if (id === undefined) throw new NotReadableError('alertId is missing');
  if (typeof b['criticality'] !== 'string') throw new NotReadableError('criticality is missing');
  const name = first(b['alertName'], b['subType'], b['type']);
  if (name === undefined) throw new NotReadableError('alertName is missing');
  const state = typeof b['status'] === 'string' ? b['status'].trim().toUpperCase() : '';
  const resolved = state === 'CANCELED' || state === 'CANCELLED';

  const labels: Record<string, string> = {};
  for (const key of [
    'alertName',
    'type',
    'subType',
    'criticality',
    'status',
    'resourceId',
    'resourceKind',
    'adapterKind',
    'alertDefinitionId',
    'Risk',
    'Health',
    'Efficiency',
  ]) {
    putLabel(labels, key, b[key]);
  }
  putLabel(labels, 'updateDate', time(b['updateDate']));

  const out = signal({
    source: SOURCE,
    name,
    status: resolved ? 'resolved' : 'firing',
    severity: severity(b['criticality'], CRITICALITY),
    resource: first(b['resourceName'], b['resourceId'])?.slice(0, 500) ?? null,
    fingerprint: idFingerprint(SOURCE, id, 200),
    started_at: time(b['startDate']) ?? ctx.receivedAt,
    // cancelDate is set on active alerts too; it is the end only once the alert is canceled.
    ended_at: resolved ? (time(b['cancelDate']) ?? time(b['updateDate']) ?? ctx.receivedAt) : null,
    summary: first(b['info'], name) ?? name,
    labels,
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['vrealize', 'vrops'],
  detect,
  normalise,
};

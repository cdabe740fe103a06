// Amazon SNS HTTP(S) deliveries. A Notification whose Message (a JSON string) is a CloudWatch
// alarm becomes a signal: ALARM → firing, OK → resolved, INSUFFICIENT_DATA → firing with
// severity info. Any other Notification becomes one generic signal named by its Subject.
// Subscription and unsubscribe confirmations are control messages: the intake does not call
// SubscribeURL.
import { NotReadableError, Severity, type Normaliser, type Signal } from '../signal.js';
import { putString } from './labels.js';
import {
  arr,
  at,
  COMMON_SEVERITY,
  dedupKey,
  first,
  hashOf,
  obj,
  severity,
  signal,
  str,
  time,
  type JsonObject,
} from './read.js';

const SOURCE = 'cloudwatch-sns';
const TYPES = new Set(['SubscriptionConfirmation', 'Notification', 'UnsubscribeConfirmation']);

/** Dimensions that name the resource itself, most specific first. */
const RESOURCE_DIMENSIONS = [
  'InstanceId',
  'DBInstanceIdentifier',
  'DBClusterIdentifier',
  'CacheClusterId',
  'FunctionName',
  'BucketName',
  'QueueName',
  'TopicName',
  'TableName',
  'LoadBalancerName',
  'LoadBalancer',
  'TargetGroup',
  'AutoScalingGroupName',
  'ServiceName',
  'ClusterName',
  'DomainName',
  'StreamName',
  'VolumeId',
  'NatGatewayId',
  'ApiName',
  'DistributionId',
];

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['cloudwatch', 'sns'],
  detect(body, ctx) {
    const b = obj(body);
    if (b === undefined || typeof b['Type'] !== 'string' || !TYPES.has(b['Type'])) return false;
    return typeof b['TopicArn'] === 'string' || ctx.headers['x-amz-sns-message-type'] === b['Type'];
  },
  normalise(body, ctx) {
    const b = obj(body);
    if (b === undefined) throw new NotReadableError('body is not an object');
    const type = str(b['Type']);
    if (type === undefined || !TYPES.has(type)) {
      throw new NotReadableError('Type is not an SNS message type');
    }
    if (type !== 'Notification') {
      return { kind: 'control', reason: `SNS ${type} (SubscribeURL is not called)` };
    }
    const alarm = alarmOf(b['Message']);
    return {
      kind: 'signals',
      signals: [alarm ? fromAlarm(b, alarm, ctx.receivedAt) : generic(b, ctx.receivedAt)],
    };
  },
};

/** The CloudWatch alarm inside Message (a JSON string, or an object when re-posted). */
function alarmOf(message: unknown): JsonObject | undefined {
  let m = obj(message);
  if (m === undefined && typeof message === 'string' && message.trimStart().startsWith('{')) {
    try {
      m = obj(JSON.parse(message));
    } catch {
      return undefined;
    }
  }
  if (m === undefined) return undefined;
  return str(m['AlarmName']) !== undefined && str(m['NewStateValue']) !== undefined ? m : undefined;
}

function fromAlarm(b: JsonObject, m: JsonObject, receivedAt: string): Signal {
  const name = str(m['AlarmName']) ?? '';
  const state = (str(m['NewStateValue']) ?? '').toUpperCase();
  if (state !== 'ALARM' && state !== 'OK' && state !== 'INSUFFICIENT_DATA') {
    throw new NotReadableError(`NewStateValue ${state} is not ALARM, OK or INSUFFICIENT_DATA`);
  }
  const resolved = state === 'OK';
  const arn = str(m['AlarmArn']);
  const dimensions = dimensionsOf(m['Trigger']);
  const changed = time(m['StateChangeTime']) ?? time(b['Timestamp']) ?? receivedAt;
  const labels: Record<string, string> = {};
  putString(labels, 'NewStateValue', state);
  for (const key of ['OldStateValue', 'Region', 'AWSAccountId', 'AlarmDescription', 'AlarmArn']) {
    putString(labels, key, m[key]);
  }
  for (const key of [
    'MetricName',
    'Namespace',
    'Statistic',
    'ExtendedStatistic',
    'Unit',
    'Period',
    'EvaluationPeriods',
    'ComparisonOperator',
    'Threshold',
  ]) {
    putString(labels, `Trigger.${key}`, at(m, ['Trigger', key]));
  }
  for (const [k, v] of dimensions) putString(labels, `dimension.${k}`, v);
  putString(labels, 'TopicArn', b['TopicArn']);
  putString(labels, 'MessageId', b['MessageId']);
  return signal({
    source: SOURCE,
    name,
    status: resolved ? 'resolved' : 'firing',
    severity:
      state === 'INSUFFICIENT_DATA' ? Severity.Info : descriptionSeverity(m['AlarmDescription']),
    service: first(at(m, 'Trigger.Namespace'), m['AWSAccountId']) ?? null,
    resource: resourceOf(dimensions),
    fingerprint:
      arn !== undefined
        ? dedupKey(SOURCE, arn)
        : hashOf(SOURCE, str(m['AWSAccountId']), str(m['Region']), name),
    started_at: changed,
    ended_at: resolved ? changed : null,
    summary: first(m['NewStateReason'], m['AlarmDescription'], b['Subject']) ?? name,
    labels,
    link: consoleLink(arn ?? str(b['TopicArn']), name),
  });
}

/** A Notification that is not an alarm: one signal named by its Subject. */
function generic(b: JsonObject, receivedAt: string): Signal {
  const subject = str(b['Subject']);
  const name = subject ?? 'SNS notification';
  const labels: Record<string, string> = {};
  putString(labels, 'TopicArn', b['TopicArn']);
  putString(labels, 'MessageId', b['MessageId']);
  if (subject !== undefined) putString(labels, 'Subject', subject);
  const message = typeof b['Message'] === 'string' ? str(b['Message']) : undefined;
  return signal({
    source: SOURCE,
    name,
    status: 'firing',
    severity: Severity.Unknown,
    fingerprint: hashOf(SOURCE, str(b['TopicArn']), subject),
    started_at: time(b['Timestamp']) ?? receivedAt,
    summary: message?.slice(0, 2000).replace(/\s+/g, ' ') ?? name,
    labels,
  });
}

/** Trigger.Dimensions, or the dimensions of a metric-math alarm's Trigger.Metrics[]. */
function dimensionsOf(trigger: unknown): [string, string][] {
  const t = obj(trigger);
  const lists = [
    arr(t?.['Dimensions']),
    ...(arr(t?.['Metrics']) ?? [])
      .slice(0, 20)
      .map((x) => arr(at(x, 'MetricStat.Metric.Dimensions'))),
  ];
  const out: [string, string][] = [];
  for (const list of lists) {
    for (const d of (list ?? []).slice(0, 50)) {
      const name = first(obj(d)?.['name'], obj(d)?.['Name']);
      const value = first(obj(d)?.['value'], obj(d)?.['Value']);
      if (name !== undefined && value !== undefined && !out.some(([k]) => k === name)) {
        out.push([name, value]);
      }
    }
  }
  return out;
}

function resourceOf(dimensions: [string, string][]): string | null {
  for (const key of RESOURCE_DIMENSIONS) {
    const hit = dimensions.find(([k]) => k === key);
    if (hit !== undefined) return hit[1];
  }
  return dimensions[0]?.[1] ?? null;
}

/** CloudWatch has no severity; an AlarmDescription may carry "severity: high" by convention. */
function descriptionSeverity(description: unknown): Severity {
  const text = str(description)?.slice(0, 2000);
  const word = text?.match(/\bseverity\s*[:=]\s*([A-Za-z0-9]{1,20})/i)?.[1];
  return severity(word, COMMON_SEVERITY);
}

/** The alarm in the CloudWatch console, in the region of the alarm (or topic) ARN. */
function consoleLink(arn: string | undefined, name: string): string | null {
  const m = arn?.match(/^arn:(aws|aws-cn|aws-us-gov):[a-z]+:([a-z]{2}(?:-[a-z]+)+-\d):/);
  if (m === undefined || m === null) return null;
  const [, partition, region = ''] = m;
  const host =
    partition === 'aws-cn'
      ? `${region}.console.amazonaws.cn`
      : partition === 'aws-us-gov'
        ? 'console.amazonaws-us-gov.com'
        : `${region}.console.aws.amazon.com`;
  return `https://${host}/cloudwatch/home?region=${region}#alarmsV2:alarm/${encodeURIComponent(name)}`;
}

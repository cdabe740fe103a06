import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './cloudwatch-sns.js';
import {
  allFixtures,
  bodyOf,
  core,
  DEEP_SWEEP,
  expectNotDetected,
  expectPaired,
  expectSafe,
  fields,
  fixtureTests,
  hostileBodies,
  hostileSweep,
  readerFor,
  wrongTypeVariants,
  type Core,
  type Fields,
  type Want,
  type Sweep,
} from '../../testing/intake/normaliser-harness.js';
import { hashOf } from './read.js';
import {
  CONTEXT,
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'cloudwatch-sns';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

// Project fixtures -----------------------------------------------------------------------

const ARN = 'arn:aws:cloudwatch:us-east-1:210987654321:alarm:orders-api-cpu-high';
const CONSOLE =
  'https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1#alarmsV2:alarm/orders-api-cpu-high';
const CONFIRM = 'SNS SubscriptionConfirmation (SubscribeURL is not called)';

const PROJECT: Record<string, Want<Fields>> = {
  // "severity: critical" in AlarmDescription; InstanceId is the resource; AlarmArn the key.
  'ec2-cpu-ALARM.json': [
    {
      name: 'orders-api-cpu-high',
      status: 'firing',
      severity: 'critical',
      service: 'AWS/EC2',
      resource: 'i-0a7c3e91f25b48d06',
      fingerprint: ARN,
      started_at: '2026-06-09T14:25:31.844Z',
      ended_at: null,
      link: CONSOLE,
    },
  ],
  // The body has no start: StateChangeTime of the OK is both start and end.
  'ec2-cpu-OK.json': [
    {
      name: 'orders-api-cpu-high',
      status: 'resolved',
      severity: 'critical',
      service: 'AWS/EC2',
      resource: 'i-0a7c3e91f25b48d06',
      fingerprint: ARN,
      started_at: '2026-06-09T15:00:31.120Z',
      ended_at: '2026-06-09T15:00:31.120Z',
      link: CONSOLE,
    },
  ],
  // JSON, but not a CloudWatch alarm: one generic signal named by the Subject.
  'rds-event-notification.json': [
    {
      name: 'RDS Notification Message',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: hashOf(
        'cloudwatch-sns',
        'arn:aws:sns:us-east-1:210987654321:ops-alarms',
        'RDS Notification Message',
      ),
      started_at: '2026-06-10T03:12:45.006Z',
      ended_at: null,
      link: null,
    },
  ],
  'subscription-confirmation.json': { control: CONFIRM },
};

describe('cloudwatch-sns: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives ALARM and OK of the same alarm the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'ec2-cpu-ALARM.json')),
      first(bodyOf(fixtures, 'ec2-cpu-OK.json')),
    );
  });

  it('keeps the trigger, dimensions, states and topic as labels', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'ec2-cpu-ALARM.json')));
    expect(s?.labels).toEqual({
      NewStateValue: 'ALARM',
      OldStateValue: 'OK',
      Region: 'US East (N. Virginia)',
      AWSAccountId: '210987654321',
      AlarmDescription: 'CPU above 85% for 10 minutes. severity: critical',
      AlarmArn: ARN,
      'Trigger.MetricName': 'CPUUtilization',
      'Trigger.Namespace': 'AWS/EC2',
      'Trigger.Statistic': 'AVERAGE',
      'Trigger.Period': '300',
      'Trigger.EvaluationPeriods': '2',
      'Trigger.ComparisonOperator': 'GreaterThanThreshold',
      'Trigger.Threshold': '85',
      'dimension.InstanceId': 'i-0a7c3e91f25b48d06',
      TopicArn: 'arn:aws:sns:us-east-1:210987654321:ops-alarms',
      MessageId: '0b5f1a3e-2c4d-5e6f-8a9b-0c1d2e3f4a5b',
    });
    expect(s?.summary).toMatch(/^Threshold Crossed: 2 out of the last 2 datapoints/);
  });

  it('reads an alarm re-posted as an object, and is detected by the SNS header alone', () => {
    const body = bodyOf(fixtures, 'ec2-cpu-ALARM.json') as { Message: string; TopicArn?: string };
    const message = JSON.parse(body.Message) as unknown;
    const [s] = signalsOf(run({ ...body, Message: message }));
    expect(s?.fingerprint).toBe(ARN);
    const { TopicArn: _, ...noTopic } = body;
    const headers = { 'x-amz-sns-message-type': 'Notification' };
    expect(normaliser.detect(noTopic, CONTEXT)).toBe(false);
    expect(normaliser.detect(noTopic, { ...CONTEXT, headers })).toBe(true);
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  // No AlarmArn in these older captures: account + region + alarm name are hashed.
  'alerta-alarm-s3-ALARM.json': [
    {
      name: 'bucketbytesAlarm',
      status: 'firing',
      severity: 'unknown',
      service: 'AWS/S3',
      resource: 'try.alerta.io',
      fingerprint: hashOf('cloudwatch-sns', '1234567890', 'EU (Ireland)', 'bucketbytesAlarm'),
    },
  ],
  'alerta-alarm-sns-INSUFFICIENT_DATA.json': [
    {
      name: 'notificationCountAlarm',
      status: 'firing',
      severity: 'info',
      service: 'AWS/SNS',
      resource: 'alerta-test',
      fingerprint: hashOf('cloudwatch-sns', '1234567890', 'EU (Ireland)', 'notificationCountAlarm'),
    },
  ],
  'alerta-subscription-confirmation.json': { control: CONFIRM },
  'awsdocs-sns-notification-plain-text.json': [
    {
      name: 'My First Message',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: hashOf(
        'cloudwatch-sns',
        'arn:aws:sns:us-west-2:123456789012:MyTopic',
        'My First Message',
      ),
    },
  ],
  'awsdocs-sns-subscription-confirmation.json': { control: CONFIRM },
  'awsdocs-sns-unsubscribe-confirmation.json': {
    control: 'SNS UnsubscribeConfirmation (SubscribeURL is not called)',
  },
};

describe.runIf(hasShared)('cloudwatch-sns: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

  it('reads the +0000 offset and links the console in the region of the topic ARN', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'alerta-alarm-s3-ALARM.json')));
    expect(s).toMatchObject({
      started_at: '2019-02-15T23:53:45.093Z',
      link: 'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#alarmsV2:alarm/bucketbytesAlarm',
      summary:
        'Threshold Crossed: 1 datapoint [1062305.0 (14/02/19 23:53:00)] was greater than or equal to the threshold (0.0).',
    });
  });

  it('summarises a plain-text notification by its Message', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'awsdocs-sns-notification-plain-text.json')));
    expect(s).toMatchObject({ summary: 'Hello world!', started_at: '2012-05-02T00:54:06.655Z' });
  });
});

// Detection ------------------------------------------------------------------------------

describe('cloudwatch-sns: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      { Type: 'Notification' },
      { TopicArn: 'arn:aws:sns:x' },
    ]);
  });

  it('is false for an Azure Monitor alert and an unknown SNS Type', () => {
    const azure = { schemaId: 'azureMonitorCommonAlertSchema', data: { essentials: {} } };
    const other = { Type: 'Something', TopicArn: 'arn:aws:sns:us-east-1:1:t' };
    expectNotDetected(normaliser, [azure, other]);
  });
});

// Hostile input --------------------------------------------------------------------------

/** The deep sweep with stringify-safe wrong values, for mutations inside the Message JSON string. */
const MESSAGE_SWEEP: Sweep = {
  ...DEEP_SWEEP,
  wrong: [null, 42, -1, 'x', '', true, [], {}, [null], 'x'.repeat(10_000)],
};

describe('cloudwatch-sns: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
  });

  it('survives a wrong type at every path inside the alarm Message', () => {
    const alarms = allFixtures(SOURCE).filter(
      ({ body }) => typeof (body as { Message?: unknown }).Message === 'string',
    );
    for (const { body } of alarms) {
      const text = (body as { Message: string }).Message;
      if (!text.startsWith('{')) continue;
      const message = JSON.parse(text) as unknown;
      for (const v of wrongTypeVariants(message, MESSAGE_SWEEP)) {
        expectSafe(normaliser, { ...(body as object), Message: JSON.stringify(v.body) });
      }
    }
  });

  it('reads an unparseable or deep Message as a generic notification', () => {
    const base = { Type: 'Notification', TopicArn: 'arn:aws:sns:us-east-1:1:t', Subject: 'S' };
    const deepJson = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    for (const Message of ['{', '{"AlarmName": 5}', '['.repeat(100_000), deepJson, '']) {
      const [s] = signalsOf(run({ ...base, Message }));
      expect(s).toMatchObject({ name: 'S', severity: 'unknown', status: 'firing' });
    }
    const [s] = signalsOf(run({ Type: 'Notification', Message: 'x' }));
    expect(s).toMatchObject({ name: 'SNS notification', started_at: RECEIVED, link: null });
  });

  it('refuses a wrong Type and an alarm in an unknown state', () => {
    expect(() => run({ Type: 'Nope', TopicArn: 't' })).toThrow(NotReadableError);
    const Message = JSON.stringify({ AlarmName: 'a', NewStateValue: 'MAYBE' });
    expect(() => run({ Type: 'Notification', TopicArn: 't', Message })).toThrow(/NewStateValue/);
  });
});

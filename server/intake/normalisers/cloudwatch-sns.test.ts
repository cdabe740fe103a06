import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './cloudwatch-sns.js';
import { hashOf } from './read.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'cloudwatch-sns';
const RECEIVED = CONTEXT.receivedAt;

type Core = Pick<Signal, 'name' | 'status' | 'severity' | 'service' | 'resource' | 'fingerprint'>;
type Fields = Core & Pick<Signal, 'started_at' | 'ended_at' | 'link'>;
type Want<T> = readonly T[] | { readonly control: string };

const core = (s: Signal): Core => ({
  name: s.name,
  status: s.status,
  severity: s.severity,
  service: s.service,
  resource: s.resource,
  fingerprint: s.fingerprint,
});
const fields = (s: Signal): Fields => ({
  ...core(s),
  started_at: s.started_at,
  ended_at: s.ended_at,
  link: s.link,
});

const run = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);

/** The signals of a result, each passing the intake's shape check. */
function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

function expectWanted<T>(r: NormaliseResult, want: Want<T> | undefined, pick: (s: Signal) => T) {
  if (want === undefined) throw new Error('no expectation for this fixture');
  if ('control' in want) expect(r).toEqual({ kind: 'control', reason: want.control });
  else expect(signalsOf(r).map(pick)).toEqual(want);
}

function bodyOf(fixtures: readonly Fixture[], file: string): unknown {
  const f = fixtures.find((x) => x.file === file);
  if (f === undefined) throw new Error(`no fixture ${file}`);
  return f.body;
}

/** Either a result whose signals pass the intake's shape check, or NotReadableError. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  let r: NormaliseResult;
  try {
    r = run(body);
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
    return;
  }
  if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  else expect(typeof r.reason).toBe('string');
}

function nested(levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

const HOSTILE: unknown[] = [
  null,
  42,
  'x',
  '',
  true,
  [],
  {},
  [{}],
  { alerts: 'no' },
  { alerts: [null, 1, 'x', []] },
  nested(100_000, 1),
  deepArray(100_000),
  'x'.repeat(5_000_000),
  { x: 'y'.repeat(5_000_000) },
];

/** Wrong types put at every path of a valid body. */
const WRONG: unknown[] = [
  null,
  42,
  -1,
  'x',
  '',
  true,
  [],
  {},
  [null],
  'x'.repeat(100_000),
  nested(20_000, 'x'),
  deepArray(20_000),
];

type Path = readonly (string | number)[];

/** Every path of a body to depth 6 (the first 3 elements of arrays). */
function pathsOf(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length >= 6 || typeof v !== 'object' || v === null) return out;
  const entries: [string | number, unknown][] = Array.isArray(v)
    ? v.slice(0, 3).map((x: unknown, i) => [i, x])
    : Object.entries(v);
  for (const [k, x] of entries) {
    const p = [...prefix, k];
    out.push(p);
    pathsOf(x, p, out);
  }
  return out;
}

/** A copy of body with the value at path replaced. */
function replaced(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body);
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path.at(-1);
  if (last !== undefined) cur[last] = value;
  return copy;
}

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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), PROJECT[file], fields);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('gives ALARM and OK of the same alarm the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'ec2-cpu-ALARM.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'ec2-cpu-OK.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), SHARED[file], core);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

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
    for (const body of [null, {}, [], { Type: 'Notification' }, { TopicArn: 'arn:aws:sns:x' }]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for an Azure Monitor alert and an unknown SNS Type', () => {
    const azure = { schemaId: 'azureMonitorCommonAlertSchema', data: { essentials: {} } };
    const other = { Type: 'Something', TopicArn: 'arn:aws:sns:us-east-1:1:t' };
    expect(normaliser.detect(azure, CONTEXT)).toBe(false);
    expect(normaliser.detect(other, CONTEXT)).toBe(false);
  });
});

// Hostile input --------------------------------------------------------------------------

/** Stringify-safe wrong values, for mutations inside the Message JSON string. */
const SHALLOW_WRONG: unknown[] = [null, 42, -1, 'x', '', true, [], {}, [null], 'x'.repeat(10_000)];

describe('cloudwatch-sns: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
  });

  it('survives a wrong type at every path inside the alarm Message', () => {
    const alarms = [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)].filter(
      ({ body }) => typeof (body as { Message?: unknown }).Message === 'string',
    );
    for (const { body } of alarms) {
      const text = (body as { Message: string }).Message;
      if (!text.startsWith('{')) continue;
      const message = JSON.parse(text) as unknown;
      for (const path of pathsOf(message)) {
        for (const w of SHALLOW_WRONG) {
          expectSafe({ ...(body as object), Message: JSON.stringify(replaced(message, path, w)) });
        }
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

// CrowdStrike Falcon Streaming API detections, as a forwarder posts them: {metadata, event}
// with metadata.eventType DetectionSummaryEvent (legacy names: DetectName, DetectId) or
// EppDetectionSummaryEvent (Name, CompositeId, Hostname). Other event types (audit, remote
// response, incident summaries, status updates) are control messages.
// NORMALISATION.md §2 (crowdstrike).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { httpLink, putScalar } from './labels.js';
import { at, first, idFingerprint, isObject, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'crowdstrike';

/** `SeverityName`, or the numeric `Severity` 1–5. */
const SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  high: 'high',
  medium: 'warning',
  low: 'info',
  informational: 'info',
  '5': 'critical',
  '4': 'high',
  '3': 'warning',
  '2': 'info',
  '1': 'info',
};

const DETECTIONS = new Set(['detectionsummaryevent', 'eppdetectionsummaryevent']);

/** Kept as labels: what an analyst looks at first. */
const FIELDS = [
  'Tactic',
  'Technique',
  'Objective',
  'UserName',
  'FileName',
  'FilePath',
  'CommandLine',
  'ParentCommandLine',
  'MD5String',
  'SHA256String',
  'MachineDomain',
  'LocalIP',
  'SensorId',
  'AgentId',
  'PatternDispositionDescription',
  'PatternDispositionValue',
  'SeverityName',
  'Severity',
] as const;

function detect(body: unknown): boolean {
  return (
    isObject(body) && typeof at(body, 'metadata.eventType') === 'string' && isObject(body['event'])
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('a CrowdStrike event is a JSON object');
  const metadata = obj(b['metadata']);
  const event = obj(b['event']);
  if (metadata === undefined) throw new NotReadableError('metadata is not an object');
  if (event === undefined) throw new NotReadableError('event is not an object');
  const type = str(metadata['eventType']);
  if (type === undefined) throw new NotReadableError('metadata.eventType is missing');
  if (!DETECTIONS.has(type.toLowerCase())) {
    return { kind: 'control', reason: `crowdstrike ${type.slice(0, 64)} is not a detection` };
  }
  const name = first(event['DetectName'], event['Name']);
  const id = first(event['DetectId'], event['CompositeId']);
  if (name === undefined) throw new NotReadableError('event.DetectName is missing');
  if (id === undefined) throw new NotReadableError('event.DetectId is missing');
  const labels: Record<string, string> = {};
  for (const f of FIELDS) putScalar(labels, f, event[f]);
  putScalar(labels, 'event_type', type);
  putScalar(labels, 'customer_id', metadata['customerIDString']);
  putScalar(labels, 'offset', metadata['offset']);
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status: 'firing',
        severity: severity(first(event['SeverityName'], event['Severity']), SEVERITY),
        // Tactic (a MITRE tactic) is no service: kept as a label.
        service: null,
        resource: first(event['ComputerName'], event['Hostname']) ?? null,
        fingerprint: idFingerprint(SOURCE, id),
        started_at:
          time(metadata['eventCreationTime']) ?? time(event['ProcessStartTime']) ?? ctx.receivedAt,
        summary:
          first(
            event['DetectDescription'],
            event['Description'],
            event['PatternDispositionDescription'],
            name,
          ) ?? name,
        labels,
        link: httpLink(event['FalconHostLink']),
      }),
    ],
  };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };

// The events intake appends: one per received signal, its data the normalised signal.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Text = Type.String();
const MaybeText = Type.Union([Type.String(), Type.Null()]);

const SignalData = Type.Object({
  source: Type.String({ description: 'the normaliser that read it' }),
  name: Type.String({ description: 'rule, alert or check name' }),
  status: Type.Optional(Type.Union([Type.Literal('firing'), Type.Literal('resolved')])),
  severity: Type.String(),
  service: MaybeText,
  resource: MaybeText,
  fingerprint: Type.String({ description: 'the same for an alert instance firing and resolved' }),
  started_at: Text,
  ended_at: Type.Optional(MaybeText),
  summary: Text,
  labels: Type.Record(Type.String(), Type.String()),
  link: Type.Optional(MaybeText),
  unseen: Type.Optional(Type.Boolean({ description: 'resolved without a firing seen first' })),
});

export const intakeEvents = {
  'signal.fired': SignalData,
  'signal.resolved': SignalData,
} as const;
export type IntakeEvents = EventsOf<typeof intakeEvents>;

import { Type, type Static } from 'typebox';
import { ConnectionCount } from './lookback.events.js';

export const MIN_DAYS = 7;
export const MAX_DAYS = 365;

export const LookbackBody = Type.Object(
  {
    days: Type.Integer({
      minimum: MIN_DAYS,
      maximum: MAX_DAYS,
      description: `whole days back from now, ${String(MIN_DAYS)} to ${String(MAX_DAYS)}`,
    }),
  },
  { additionalProperties: false },
);
export type LookbackBody = Static<typeof LookbackBody>;

export const LookbackReport = Type.Object({
  days: Type.Integer(),
  since: Type.String(),
  until: Type.String(),
  total: Type.Integer({ description: 'the sum of the counts that were read' }),
  connections: Type.Array(ConnectionCount),
  run_by: Type.String(),
  run_at: Type.String(),
  seq: Type.Integer({ description: 'the ledger event that records it' }),
});
export type LookbackReport = Static<typeof LookbackReport>;

export const HistoryConnection = Type.Object({
  name: Type.String(),
  kind: Type.String(),
  problem: Type.Union([Type.String(), Type.Null()], { description: 'why it cannot be built' }),
  last_health: Type.Union([
    Type.Object({ ok: Type.Boolean(), detail: Type.String(), at: Type.String() }),
    Type.Null(),
  ]),
});
export type HistoryConnection = Static<typeof HistoryConnection>;

export const LookbackView = Type.Object({
  report: Type.Union([LookbackReport, Type.Null()], { description: 'the last report; null: none' }),
  connections: Type.Array(HistoryConnection, { description: 'the connections that keep history' }),
  kinds: Type.Array(Type.String(), { description: 'the kinds that keep history' }),
  days: Type.Object({ minimum: Type.Integer(), maximum: Type.Integer() }),
});
export type LookbackView = Static<typeof LookbackView>;

// The events licence appends (licence.md §3.11). Every licence.* type is a security event for
// syslog (server/syslog/select.ts).
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);
const Source = Type.Union([
  Type.Literal('file'),
  Type.Literal('api'),
  Type.Literal('redeem'),
  Type.Literal('grant'),
  Type.Literal('authority'),
]);
const Headline = {
  source: Source,
  licence_id: Type.String(),
  serial: Type.Integer(),
  sha256: Type.String(),
  tier: Type.String(),
  customer: Type.String(),
  expires_at: Nullable(Type.String()),
};

export const licenceEvents = {
  'licence.trial_started': Type.Object({
    tier: Type.String(),
    services: Type.Number(),
    install_limit: Type.Number(),
    days: Type.Number(),
    grace_days: Type.Number(),
    expires_at: Type.String(),
    fingerprint: Type.Union([Type.String(), Type.Null()]),
  }),
  'licence.installed': Type.Object(Headline),
  'licence.replaced': Type.Object({
    ...Headline,
    previous: Type.Object({
      licence_id: Type.String(),
      serial: Type.Integer(),
      sha256: Type.String(),
    }),
    acknowledged_losses: Type.Array(Type.String()),
  }),
  'licence.removed': Type.Object({ licence_id: Type.String(), serial: Type.Integer() }),
  'licence.refused': Type.Object({
    source: Source,
    check: Type.String(),
    detail: Type.String(),
    sha256: Nullable(Type.String()),
  }),
  'licence.mode_changed': Type.Object({
    from: Type.String(),
    to: Type.String(),
    why: Type.String(),
  }),
  'licence.expiring': Type.Object({ licence_id: Type.String(), days: Type.Integer() }),
  'licence.grace_entered': Type.Object({ licence_id: Type.String(), grace_ends_at: Type.String() }),
  'licence.lapsed': Type.Object({ licence_id: Type.String() }),
  'licence.revoked': Type.Object({ licence_id: Type.String(), seq: Type.Integer() }),
  'licence.superseded': Type.Object({
    licence_id: Type.String(),
    serial: Type.Integer(),
    below_serial: Type.Integer(),
    valid_until: Type.String(),
  }),
  'licence.revocations_updated': Type.Object({
    seq: Type.Integer(),
    from_seq: Type.Integer(),
    source: Type.String(),
  }),
  'licence.revocations_rollback_ignored': Type.Object({
    seq: Type.Integer(),
    held: Type.Integer(),
    source: Type.String(),
  }),
  'licence.install.moved': Type.Object({
    from: Type.String(),
    to: Type.String(),
    source: Type.String(),
  }),
  'licence.clock_backwards': Type.Object({ by_s: Type.Integer(), hwm: Type.String() }),
  'licence.services_pinned': Type.Object({
    pinned: Type.Array(Type.String()),
    added: Type.Array(Type.String()),
    removed: Type.Array(Type.String()),
  }),
  'licence.coverage_exceeded': Type.Object({
    day: Type.String(),
    limit: Type.Integer(),
    counted: Type.Integer(),
    uncovered: Type.Integer(),
    /** the first uncovered services, by first seen (at most 50) */
    services: Type.Array(Type.String()),
  }),
  'licence.usage_exported': Type.Object({
    sha256: Type.String(),
    prev: Nullable(Type.String()),
    from: Type.String(),
    to: Type.String(),
    hashed_ids: Type.Boolean(),
  }),
} as const;
export type LicenceEvents = EventsOf<typeof licenceEvents>;

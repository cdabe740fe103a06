import { Type, type Static } from 'typebox';

const Amount = (description: string) =>
  Type.Number({ minimum: 0, maximum: 1e12, description: `${description}; 0 = not counted` });

/** The figures of the specification; a value of 0 means not counted. */
export const ImpactFigures = Type.Object(
  {
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. EUR' }),
    engineer_hour: Amount('cost of an engineer hour'),
    triage_min: Amount('minutes a person spends triaging an alert'),
    fix_min: Amount('minutes a person spends on a fix'),
    manual_resolve_min: Amount('minutes to resolve an incident by hand'),
    downtime_hour: Amount('cost of an hour of downtime'),
    callout: Amount('cost of one out-of-hours callout'),
    annual_cost: Amount('what the service costs a year'),
  },
  { additionalProperties: false },
);
export type ImpactFigures = Static<typeof ImpactFigures>;

export const ImpactBody = Type.Object({
  figures: ImpactFigures,
  set: Type.Boolean({ description: 'true once any figure is above 0' }),
  set_by: Type.Union([Type.String(), Type.Null()]),
  set_at: Type.Union([Type.String(), Type.Null()]),
});
export type ImpactBody = Static<typeof ImpactBody>;

export const NOT_SET: ImpactFigures = {
  currency: 'EUR',
  engineer_hour: 0,
  triage_min: 0,
  fix_min: 0,
  manual_resolve_min: 0,
  downtime_hour: 0,
  callout: 0,
  annual_cost: 0,
};

// The policy document (GET/PUT /v1/policy): noise control (grouping, maintenance windows,
// inhibition), escalation, and acting safely (change windows, which fixes may run where).
//
// Adding a section is one entry in SECTIONS: its schema, its default and, where a schema
// cannot say everything, a check (unique names, time order). The document schema, the PUT
// body, the defaults and the checks are all derived from that table.
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { IsoTime } from '../http/common.schemas.js';
import { InvalidInputError } from '../shared/errors.js';

/** Keys of matchers, `by` and `equal`: a signal field name or a label name. */
export const KEY_PATTERN = '^[A-Za-z_][A-Za-z0-9_.-]{0,99}$';

const KeyName = Type.String({
  pattern: KEY_PATTERN,
  description: 'alertname, service, severity, source, resource, or a label name',
});

/** key → value; `*` in a value matches any run of characters; case-sensitive otherwise. */
export const Matchers = Type.Record(
  Type.String({ pattern: KEY_PATTERN }),
  Type.String({ minLength: 1, maxLength: 500 }),
  {
    minProperties: 1,
    maxProperties: 32,
    additionalProperties: false,
    description: 'every key must be present on the signal and match its value (* wildcard)',
  },
);
export type Matchers = Static<typeof Matchers>;

const RuleName = Type.String({ minLength: 1, maxLength: 100, description: 'unique in its list' });

export const Grouping = Type.Object(
  {
    window_s: Type.Integer({
      minimum: 0,
      maximum: 86_400,
      description: "seconds after an incident's first episode in which others may join it",
    }),
    by: Type.Array(KeyName, {
      maxItems: 16,
      uniqueItems: true,
      description: 'keys whose values the opening alerts must share; [] = no grouping',
    }),
  },
  { additionalProperties: false },
);
export type Grouping = Static<typeof Grouping>;

export const MaintenanceWindow = Type.Object(
  {
    name: RuleName,
    services: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 100,
      description: 'service names; * is a wildcard',
    }),
    starts: { ...IsoTime, description: 'ISO 8601 with a zone; inclusive' },
    ends: { ...IsoTime, description: 'ISO 8601 with a zone; exclusive, after starts' },
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    match: Type.Optional(Matchers),
  },
  { additionalProperties: false },
);
export type MaintenanceWindow = Static<typeof MaintenanceWindow>;

export const InhibitRule = Type.Object(
  {
    name: RuleName,
    source: Matchers,
    target: Matchers,
    equal: Type.Optional(
      Type.Array(KeyName, {
        maxItems: 16,
        uniqueItems: true,
        description: 'keys whose values must be present and equal on source and target',
      }),
    ),
  },
  { additionalProperties: false },
);
export type InhibitRule = Static<typeof InhibitRule>;

/** Ids of users and teams, as the access domain spells them. */
const PrincipalId = Type.String({ minLength: 1, maxLength: 200 });

/** Who an escalation step asks: users, teams and/or everyone holding a role. */
export const EscalationWho = Type.Object(
  {
    users: Type.Optional(Type.Array(PrincipalId, { maxItems: 100, uniqueItems: true })),
    teams: Type.Optional(Type.Array(PrincipalId, { maxItems: 100, uniqueItems: true })),
    role: Type.Optional(
      Type.Union([Type.Literal('responder'), Type.Literal('admin'), Type.Literal('owner')], {
        description: 'everyone holding this role or a higher one (viewers cannot approve)',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type EscalationWho = Static<typeof EscalationWho>;

export const EscalationStep = Type.Object(
  {
    after_s: Type.Integer({
      minimum: 0,
      maximum: 86_400,
      description: 'seconds after the request opened; ascending from step to step',
    }),
    who: EscalationWho,
    channel: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'the name of a connector of a notify kind (mail, slack, teams, webhook)',
    }),
  },
  { additionalProperties: false },
);
export type EscalationStep = Static<typeof EscalationStep>;

export const Escalation = Type.Object(
  { steps: Type.Array(EscalationStep, { maxItems: 20 }) },
  { additionalProperties: false },
);
export type Escalation = Static<typeof Escalation>;

const Services = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 100,
  description: 'service names; * is a wildcard',
});

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `HH:MM`, 00:00 to 23:59, UTC. */
export const CLOCK_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

export const WeeklyWindow = Type.Object(
  {
    days: Type.Array(
      Type.Union([
        Type.Literal('mon'),
        Type.Literal('tue'),
        Type.Literal('wed'),
        Type.Literal('thu'),
        Type.Literal('fri'),
        Type.Literal('sat'),
        Type.Literal('sun'),
      ]),
      {
        minItems: 1,
        maxItems: 7,
        uniqueItems: true,
        description: 'the days (UTC) on which the window opens',
      },
    ),
    from: Type.String({ pattern: CLOCK_PATTERN, description: 'HH:MM UTC; inclusive' }),
    to: Type.String({
      pattern: CLOCK_PATTERN,
      description: 'HH:MM UTC; exclusive; at or before `from`: the next day (equal: 24 hours)',
    }),
  },
  { additionalProperties: false },
);
export type WeeklyWindow = Static<typeof WeeklyWindow>;

export const ChangeWindowMode = { Freeze: 'freeze', Only: 'only' } as const;
export type ChangeWindowMode = (typeof ChangeWindowMode)[keyof typeof ChangeWindowMode];

export const ChangeWindow = Type.Object(
  {
    name: RuleName,
    services: Services,
    mode: Type.Union([Type.Literal('freeze'), Type.Literal('only')], {
      description:
        'freeze: no actions inside; only: when an only window names a service, its actions run only inside one',
    }),
    starts: Type.Optional({ ...IsoTime, description: 'ISO 8601 with a zone; inclusive' }),
    ends: Type.Optional({
      ...IsoTime,
      description: 'ISO 8601 with a zone; exclusive, after starts',
    }),
    weekly: Type.Optional(WeeklyWindow),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type ChangeWindow = Static<typeof ChangeWindow>;

export const RISKS = ['low', 'medium', 'high'] as const;

export const ActionRule = Type.Object(
  {
    services: Services,
    fixes: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[A-Za-z0-9_.*-]+$',
        description: 'a fix id as the packs name it (restart_unit); * is a wildcard',
      }),
      { minItems: 1, maxItems: 100 },
    ),
    max_risk: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')], {
      description: 'the highest risk of fix this rule allows',
    }),
    safe: Type.Boolean({
      description: 'on L2 autonomy, the fixes this rule allows run without asking',
    }),
  },
  { additionalProperties: false },
);
export type ActionRule = Static<typeof ActionRule>;

export const ActionsPolicy = Type.Object(
  {
    rules: Type.Array(ActionRule, {
      maxItems: 500,
      description:
        'the first rule naming the service and the fix decides; [] = every fix up to medium risk, none safe',
    }),
  },
  { additionalProperties: false },
);
export type ActionsPolicy = Static<typeof ActionsPolicy>;

/** A semantic check of one section; calls `fail` with the field path below the section. */
type Check<T> = (
  value: T,
  fail: (path: readonly (string | number)[], why: string) => never,
) => void;

function section<S extends TSchema>(
  schema: S,
  fallback: Static<S>,
  check?: Check<Static<S>>,
): { readonly schema: S; readonly fallback: Static<S>; readonly check?: Check<Static<S>> } {
  return { schema, fallback, ...(check !== undefined && { check }) };
}

function uniqueNames(list: readonly { name: string }[], fail: Parameters<Check<unknown>>[1]) {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (seen.has(item.name)) fail([i, 'name'], `is not unique: ${item.name} comes twice`);
    seen.add(item.name);
  });
}

// ────────────────────────────────────────────────────────────────────────────────────────
// THE SECTIONS. One entry per section of the document.
// ────────────────────────────────────────────────────────────────────────────────────────
const SECTIONS = {
  grouping: section(Grouping, { window_s: 300, by: ['alertname'] }),
  maintenance: section(Type.Array(MaintenanceWindow, { maxItems: 500 }), [], (list, fail) => {
    uniqueNames(list, fail);
    list.forEach((w, i) => {
      const starts = Date.parse(w.starts);
      const ends = Date.parse(w.ends);
      if (!Number.isFinite(starts)) fail([i, 'starts'], 'is not a valid timestamp');
      if (!Number.isFinite(ends)) fail([i, 'ends'], 'is not a valid timestamp');
      if (ends <= starts) fail([i, 'ends'], 'must be after starts');
    });
  }),
  inhibit: section(Type.Array(InhibitRule, { maxItems: 200 }), [], uniqueNames),
  escalation: section(Escalation, { steps: [] }, ({ steps }, fail) => {
    steps.forEach((step, i) => {
      if (step.channel.trim() === '') fail(['steps', i, 'channel'], 'must name a connector');
      const who = step.who;
      if ((who.users?.length ?? 0) + (who.teams?.length ?? 0) === 0 && who.role === undefined)
        fail(['steps', i, 'who'], 'must name at least one user, team or role');
      const before = steps[i - 1];
      if (before !== undefined && step.after_s < before.after_s)
        fail(
          ['steps', i, 'after_s'],
          `must not be less than the step before (${String(before.after_s)})`,
        );
    });
  }),
  change_windows: section(Type.Array(ChangeWindow, { maxItems: 500 }), [], (list, fail) => {
    uniqueNames(list, fail);
    list.forEach((w, i) => {
      const absolute = w.starts !== undefined || w.ends !== undefined;
      if (absolute && w.weekly !== undefined)
        fail([i, 'weekly'], 'cannot be given with starts and ends: a window is one or the other');
      if (!absolute && w.weekly === undefined) fail([i], 'needs starts and ends, or weekly');
      if (absolute) {
        if (w.starts === undefined) fail([i, 'starts'], 'is required with ends');
        if (w.ends === undefined) fail([i, 'ends'], 'is required with starts');
        const starts = Date.parse(w.starts ?? '');
        const ends = Date.parse(w.ends ?? '');
        if (!Number.isFinite(starts)) fail([i, 'starts'], 'is not a valid timestamp');
        if (!Number.isFinite(ends)) fail([i, 'ends'], 'is not a valid timestamp');
        if (ends <= starts) fail([i, 'ends'], 'must be after starts');
      }
    });
  }),
  actions: section(ActionsPolicy, { rules: [] }, ({ rules }, fail) => {
    rules.forEach((r, i) => {
      r.fixes.forEach((f, j) => {
        if (f.replace(/\*/g, '') === '' && f !== '*')
          fail(['rules', i, 'fixes', j], 'is only wildcards: write * once');
      });
      r.services.forEach((svc, j) => {
        if (svc.trim() === '') fail(['rules', i, 'services', j], 'must name a service');
      });
    });
  }),
};

type Sections = typeof SECTIONS;
type SchemasOf<T extends Record<string, { schema: TSchema }>> = { [K in keyof T]: T[K]['schema'] };

const schemas = Object.fromEntries(
  Object.entries(SECTIONS).map(([name, s]) => [name, s.schema]),
) as SchemasOf<Sections>;

/** The whole document, every section present: what GET answers and what is stored. */
export const Policy = Type.Object(schemas, { additionalProperties: false });
export type Policy = Static<typeof Policy>;

/** The PUT body and the file: every section optional; a missing one takes its default. */
export const PolicyInput = Type.Partial(Policy, { additionalProperties: false });
export type PolicyInput = Static<typeof PolicyInput>;

export const DEFAULT_POLICY: Policy = Object.fromEntries(
  Object.entries(SECTIONS).map(([name, s]) => [name, s.fallback]),
) as Policy;

export const PolicySource = { Default: 'default', Api: 'api', File: 'file' } as const;
export type PolicySource = (typeof PolicySource)[keyof typeof PolicySource];

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const PolicyView = Type.Object({
  policy: Policy,
  source: Type.Union([
    Type.Literal(PolicySource.Default),
    Type.Literal(PolicySource.Api),
    Type.Literal(PolicySource.File),
  ]),
  file: Nullable(Type.String({ description: 'the file that manages the policy (SVC_POLICY)' })),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'of the canonical JSON' }),
  set_by: Nullable(Type.String()),
  set_at: Nullable(Type.String()),
});
export type PolicyView = Static<typeof PolicyView>;

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: { requiredProperties?: unknown; additionalProperties?: unknown };
  readonly message: string;
}

const fieldOf = (path: readonly (string | number)[]): string =>
  path.length === 0 ? 'document' : path.join('.');

function pathOf(e: SchemaError): (string | number)[] {
  const path =
    e.instancePath === ''
      ? []
      : e.instancePath
          .slice(1)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const leaf = [e.params.requiredProperties, e.params.additionalProperties]
    .filter(Array.isArray)
    .map((a) => a[0] as unknown)
    .find((v) => typeof v === 'string');
  return leaf === undefined ? path : [...path, leaf];
}

function messageOf(e: SchemaError, field: string): string {
  if (e.keyword === 'required') return `${field} is required`;
  if (e.keyword === 'additionalProperties' || e.keyword === 'boolean')
    return `${field} is not a known field`;
  return `${field} ${e.message}`;
}

/**
 * Validate a document (a PUT body or the parsed file) and fill in the defaults of missing
 * sections. Throws InvalidInputError with `field` set to the dotted path, the form the
 * HTTP layer gives schema failures (`maintenance.0.ends`).
 */
export function checkPolicy(input: unknown): Policy {
  const first = Value.Errors(PolicyInput, input)[0] as SchemaError | undefined;
  if (first !== undefined) {
    const field = fieldOf(pathOf(first));
    throw new InvalidInputError('invalid_input', messageOf(first, field), { field });
  }
  const given = input as Record<string, unknown>;
  const policy: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SECTIONS)) {
    const value = structuredClone(given[name] ?? s.fallback);
    const check = s.check as Check<unknown> | undefined;
    check?.(value, (path, why) => {
      const field = fieldOf([name, ...path]);
      throw new InvalidInputError('invalid_input', `${field} ${why}`, { field });
    });
    policy[name] = value;
  }
  return policy as Policy;
}

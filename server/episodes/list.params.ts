// The parameters of GET /v1/episodes, checked and read into a selection. Every bad value is
// a 400 naming its parameter.
import { Type, type Static } from 'typebox';
import { TimeOrDate } from '../http/common.schemas.js';
import { InvalidInputError } from '../shared/errors.js';
import { CONFIDENCES, DECISIONS, KINDS, OUTCOMES, RESULTS } from './enumerations.js';
import type { Facet } from './list.index.js';

export const MAX_LATEST = 5000;
export const MAX_LIMIT = 1000;
export const SORT_FIELDS = [
  't_open',
  't_close',
  'duration',
  'service',
  'decision',
  'outcome',
  'result',
  'confidence',
  'handover_s',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export const RANGES = { '24h': 1, '7d': 7, '30d': 30, '90d': 90, '1y': 365, all: null } as const;

const Csv = Type.String({ maxLength: 4000 });

export const ListQuery = Type.Object(
  {
    group: Type.Optional(Type.Literal('incident')),
    scorecard: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')])),
    limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 50 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
    sort: Type.String({
      pattern: `^-?(${SORT_FIELDS.join('|')})$`,
      default: '-t_open',
      description: `a field of ${SORT_FIELDS.join(', ')}; a leading minus sorts descending`,
    }),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    query: Type.Optional(Type.String({ maxLength: 2000 })),
    latest: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LATEST })),
    range: Type.Optional(
      Type.Union([
        Type.Literal('24h'),
        Type.Literal('7d'),
        Type.Literal('30d'),
        Type.Literal('90d'),
        Type.Literal('1y'),
        Type.Literal('all'),
      ] satisfies { const: keyof typeof RANGES }[]),
    ),
    since: Type.Optional(TimeOrDate),
    until: Type.Optional(TimeOrDate),
    service: Type.Optional(Csv),
    decision: Type.Optional(Csv),
    outcome: Type.Optional(Csv),
    confidence: Type.Optional(Csv),
    kind: Type.Optional(Csv),
    result: Type.Optional(Csv),
    confirmed: Type.Optional(Type.Union([Type.Literal('yes'), Type.Literal('no')])),
    histogram: Type.Optional(Type.Literal('day')),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

/** The enumerated facets check their values; service takes any name. */
const FACET_VALUES: Record<Facet, readonly string[] | null> = {
  service: null,
  decision: DECISIONS,
  outcome: OUTCOMES,
  confidence: CONFIDENCES,
  kind: KINDS,
  result: RESULTS,
};

export interface Selection {
  readonly group: boolean;
  readonly scorecard: boolean;
  readonly histogram: boolean;
  readonly limit: number;
  readonly offset: number;
  readonly sort: { field: SortField; descending: boolean };
  readonly q: string | null;
  readonly query: string | null;
  readonly latest: number | null;
  /** t_open window in ms: from inclusive, to exclusive */
  readonly from: number;
  readonly to: number;
  readonly facets: Partial<Record<Facet, readonly string[]>>;
  readonly confirmed: boolean | null;
}

/** A date is midnight UTC; a time without a zone is UTC. */
export function instant(value: string, field: string): number {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? `${value}T00:00:00Z`
    : /(Z|[+-]\d{2}:?\d{2})$/.test(value)
      ? value
      : `${value}Z`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) {
    throw new InvalidInputError(
      'invalid_input',
      `${field} ${JSON.stringify(value)} is not a date`,
      {
        field,
      },
    );
  }
  return ms;
}

function csv(field: Facet, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = [...new Set(value.split(',').map((v) => v.trim()))].filter((v) => v !== '');
  if (values.length === 0) return undefined;
  const allowed = FACET_VALUES[field];
  for (const v of values) {
    if (allowed !== null && !allowed.includes(v)) {
      throw new InvalidInputError(
        'invalid_input',
        `${field} ${JSON.stringify(v)} is not a ${field}; use a comma-separated list of ${allowed.join(', ')}`,
        { field },
      );
    }
  }
  return values;
}

export function readSelection(p: ListQuery, nowMs: number): Selection {
  const days = p.range === undefined ? null : RANGES[p.range as keyof typeof RANGES];
  const from =
    p.since !== undefined
      ? instant(p.since, 'since')
      : days === null
        ? Number.NEGATIVE_INFINITY
        : nowMs - days * 86_400_000;
  const to = p.until !== undefined ? instant(p.until, 'until') : Number.POSITIVE_INFINITY;
  if (to <= from) {
    throw new InvalidInputError('invalid_input', 'until must be later than since', {
      field: 'until',
    });
  }
  const facets: Partial<Record<Facet, readonly string[]>> = {};
  for (const f of Object.keys(FACET_VALUES) as Facet[]) {
    const values = csv(f, p[f]);
    if (values !== undefined) facets[f] = values;
  }
  const descending = p.sort.startsWith('-');
  const q = p.q?.trim() ?? '';
  const query = p.query?.trim() ?? '';
  return {
    group: p.group === 'incident',
    scorecard: p.scorecard === '1',
    histogram: p.histogram === 'day',
    limit: p.limit,
    offset: p.offset,
    sort: { field: (descending ? p.sort.slice(1) : p.sort) as SortField, descending },
    q: q === '' ? null : q,
    query: query === '' ? null : query,
    latest: p.latest ?? null,
    from,
    to,
    facets,
    confirmed: p.confirmed === undefined ? null : p.confirmed === 'yes',
  };
}

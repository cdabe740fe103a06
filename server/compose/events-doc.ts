// docs/events.md is generated from the event catalogue, so it cannot drift from what the
// ledger accepts (a unit test compares them; `npx tsx build/events-doc.ts` rewrites it).
import type { TSchema } from 'typebox';
import { eventCatalogue } from './event-catalogue.js';

interface JsonSchema {
  readonly type?: string;
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly items?: JsonSchema;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly patternProperties?: Readonly<Record<string, JsonSchema>>;
  readonly description?: string;
}

/** A schema as a short type: `string`, `string | null`, `'act' | 'ask'`, `object`, `string[]`. */
function typeText(s: JsonSchema): string {
  if (s.const !== undefined) return JSON.stringify(s.const).replaceAll('"', "'");
  if (s.anyOf !== undefined) return s.anyOf.map(typeText).join(' \\| ');
  if (s.type === 'array') return `${s.items === undefined ? 'any' : typeText(s.items)}[]`;
  if (s.type === 'object' && s.patternProperties !== undefined) {
    const [value] = Object.values(s.patternProperties);
    return `map of ${value === undefined ? 'any' : typeText(value)}`;
  }
  return s.type ?? 'any';
}

/** One row per field; nested objects' fields as `parent.child`. */
function fieldRows(schema: JsonSchema, prefix = ''): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const row = `| \`${path}\` | ${typeText(field)} | ${required.has(name) ? 'yes' : 'no'} | ${field.description ?? ''} |`;
    return field.type === 'object' && field.properties !== undefined
      ? [row, ...fieldRows(field, `${path}.`)]
      : [row];
  });
}

function section(type: string, owner: string, schema: TSchema): string {
  const s = schema as JsonSchema;
  const rows = fieldRows(s);
  return [
    `### \`${type}\``,
    '',
    `Appended by \`server/${owner}/\`.${s.description === undefined ? '' : ` Data: ${s.description}.`}`,
    '',
    ...(rows.length === 0
      ? ['No data fields.']
      : ['| field | type | required | meaning |', '|---|---|---|---|', ...rows]),
    '',
  ].join('\n');
}

export function eventsMarkdown(): string {
  const entries = eventCatalogue().entries();
  return [
    '# Ledger events',
    '',
    'Generated from the event catalogue (`server/<domain>/<domain>.events.ts`) by',
    '`npx tsx build/events-doc.ts`; a unit test fails when this file is stale. Every event',
    'the service appends has one of these types, and the ledger refuses data that does not',
    'match its schema. Fields not listed may be present (schemas are open); `POST /v1/events`',
    "refuses every type listed here but the events domain's own (`human.action`, `human.deploy`)",
    'and accepts other types of its own under the ingest prefixes, stored as sent.',
    '',
    '| type | appended by |',
    '|---|---|',
    ...entries.map((e) => `| [\`${e.type}\`](#${e.type.replaceAll('.', '')}) | ${e.owner} |`),
    '',
    '## Types',
    '',
    ...entries.map((e) => section(e.type, e.owner, e.schema)),
  ].join('\n');
}

// The TypeBox schema of a pack document (pack.types.ts, field for field) and the checks a
// schema cannot express: ids unique, references resolvable, value names known, paths
// well formed. Every problem names its field as a dotted path (`checks.2.call.op`) so the
// packing tool and the doctor can say exactly what to fix.
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { Pack } from './pack.types.js';
import { checkPathSyntax } from './path-syntax.js';

const Text = Type.String({ minLength: 1 });
const Glob = Type.String({ minLength: 1 });
/** Ids referred to as `<check id>.<id>` or by name: no dots, so references split cleanly. */
const LocalId = Type.String({ pattern: '^[a-z][a-z0-9_]*$' });

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Closed = { additionalProperties: false } as const;

const ConnectorKindName = Type.Union([
  Type.Literal('ssh'),
  Type.Literal('prometheus'),
  Type.Literal('postgresql'),
  Type.Literal('http'),
  Type.Literal('git'),
]);
const Risk = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]);

const PackMatch = Type.Object(
  {
    alerts: Type.Optional(Type.Array(Glob)),
    labels: Type.Optional(Type.Record(Type.String(), Glob)),
    services: Type.Optional(Type.Array(Glob)),
  },
  Closed,
);

const PackCall = Type.Object(
  {
    op: Text,
    args: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    ),
  },
  Closed,
);

const PackValue = Type.Object({ path: Type.String() }, Closed);

const ConditionOp = Type.Union([
  Type.Literal('eq'),
  Type.Literal('ne'),
  Type.Literal('gt'),
  Type.Literal('ge'),
  Type.Literal('lt'),
  Type.Literal('le'),
  Type.Literal('in'),
  Type.Literal('not_in'),
  Type.Literal('matches'),
  Type.Literal('mentions'),
  Type.Literal('error_names'),
  Type.Literal('present'),
  Type.Literal('absent'),
]);

const PackCondition = Type.Object(
  {
    value: Text,
    op: ConditionOp,
    than: Type.Optional(
      Type.Union([
        Type.String(),
        Type.Number(),
        Type.Boolean(),
        Type.Array(Type.Union([Type.String(), Type.Number()])),
      ]),
    ),
  },
  Closed,
);

const PackFindingRule = Type.Object(
  { id: LocalId, when: Type.Array(PackCondition, { minItems: 1 }), says: Text },
  Closed,
);

const PackCheck = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z][a-z0-9_-]*(\\.[a-z0-9_-]+)*$' }),
    title: Text,
    connector: ConnectorKindName,
    call: PackCall,
    timeout_s: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    values: Type.Record(Type.String(), PackValue),
    findings: Type.Array(PackFindingRule),
    scope: Type.Optional(Type.Union([Type.Literal('service'), Type.Literal('dependency')])),
  },
  Closed,
);

const PackCause = Type.Object(
  {
    id: LocalId,
    title: Text,
    proves: Type.Array(Text),
    supports: Type.Array(Text),
    refutes: Type.Array(Text),
    requires: Type.Optional(Type.Array(Text)),
    downstream: Type.Optional(Type.Object({ alerts: Type.Array(Glob) }, Closed)),
    fixes: Type.Array(Text),
  },
  Closed,
);

const PackVerify = Type.Object(
  {
    expect: Type.Array(Text),
    expect_absent: Type.Array(Text),
    within_s: Type.Number({ minimum: 0 }),
    alert_ends_within_s: Type.Number({ minimum: 0 }),
  },
  Closed,
);

const PackFix = Type.Object(
  {
    id: LocalId,
    title: Text,
    risk: Risk,
    connector: ConnectorKindName,
    kind: Type.Union([Type.Literal('fix'), Type.Literal('restore')]),
    fits: Type.Optional(Type.Array(Text)),
    dry_run: Nullable(PackCall),
    action: PackCall,
    verify: PackVerify,
    take_back: Nullable(PackCall),
  },
  Closed,
);

export const PackSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z][a-z0-9_-]*$' }),
    version: Type.Integer({ minimum: 1 }),
    title: Text,
    matches: Type.Array(PackMatch),
    checks: Type.Array(PackCheck),
    causes: Type.Array(PackCause),
    fixes: Type.Array(PackFix),
  },
  Closed,
);

/** The signed file's envelope; its `pack` is checked only after the signature holds. */
export const SignedPackEnvelope = Type.Object(
  {
    pack: Type.Object({}),
    signature: Type.Object(
      {
        alg: Type.Literal('ed25519'),
        key: Type.String({ pattern: '^[A-Z2-7]+$' }),
        sig: Type.String({ pattern: '^[A-Za-z0-9+/]+={0,2}$' }),
      },
      Closed,
    ),
  },
  Closed,
);
export type SignedPackEnvelope = Static<typeof SignedPackEnvelope>;

// The schema must describe pack.types.ts exactly: this fails to compile when they drift.
type Mutable<T> = T extends readonly (infer U)[]
  ? Mutable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Mutable<T[K]> }
    : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesTypes: Same<Static<typeof PackSchema>, Mutable<Pack>> = true;
void schemaMatchesTypes;

export interface PackProblem {
  /** dotted path of the field, `document` for the whole thing */
  readonly field: string;
  /** the whole sentence, field first */
  readonly message: string;
}

export type PackValidation =
  | { readonly ok: true; readonly pack: Pack }
  | { readonly ok: false; readonly problems: readonly PackProblem[] };

interface SchemaError {
  readonly keyword: string;
  readonly schemaPath: string;
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message: string;
}

const fieldOf = (path: readonly (string | number)[]): string =>
  path.length === 0 ? 'document' : path.join('.');

const problem = (path: readonly (string | number)[], why: string): PackProblem => {
  const field = fieldOf(path);
  return { field, message: `${field} ${why}` };
};

function pathOf(e: SchemaError): string[] {
  const path =
    e.instancePath === ''
      ? []
      : e.instancePath
          .slice(1)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const leaf = [e.params['requiredProperties'], e.params['additionalProperties']]
    .filter(Array.isArray)
    .map((a) => a[0] as unknown)
    .find((v) => typeof v === 'string');
  return leaf === undefined ? path : [...path, leaf];
}

/** An error that only says "this alternative of a union is of another type". */
const isAlternativeMismatch = (e: SchemaError): boolean =>
  /\/anyOf\/\d+$/.test(e.schemaPath) && (e.keyword === 'type' || e.keyword === 'const');

const describeAlternative = (e: SchemaError): string =>
  e.keyword === 'const' ? JSON.stringify(e.params['allowedValue']) : String(e.params['type']);

/**
 * TypeBox reports every alternative of a union. Keep the errors that explain what is wrong:
 * inside the alternative the value was meant for, or "must be one of …" when it fits none.
 */
function schemaProblems(doc: unknown): PackProblem[] {
  const errors = Value.Errors(PackSchema, doc) as unknown as readonly SchemaError[];
  const real = errors.filter(
    (e) => e.keyword !== 'anyOf' && e.keyword !== 'boolean' && !isAlternativeMismatch(e),
  );
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  const explained = new Set<SchemaError>(real);
  for (const u of unions) {
    const inside = `${u.schemaPath}/anyOf/`;
    if (real.some((e) => e.schemaPath.startsWith(inside))) continue;
    if (unions.some((o) => o !== u && o.schemaPath.startsWith(inside))) continue; // a nested union says it better
    explained.add(u);
  }
  const out: PackProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (!explained.has(e)) continue;
    const path = pathOf(e);
    let why: string;
    if (e.keyword === 'required') why = 'is required';
    else if (e.keyword === 'additionalProperties') why = 'is not a known field';
    else if (e.keyword === 'anyOf') {
      const choices = errors
        .filter(
          (a) => isAlternativeMismatch(a) && a.schemaPath.startsWith(`${e.schemaPath}/anyOf/`),
        )
        .filter((a) => /^\/anyOf\/\d+$/.test(a.schemaPath.slice(e.schemaPath.length)))
        .map(describeAlternative);
      why = `must be one of ${[...new Set(choices)].join(', ')}`;
    } else why = e.message;
    const p = problem(path, why);
    if (!seen.has(p.message)) out.push(p);
    seen.add(p.message);
  }
  return out;
}

/** Checks that need the whole document: uniqueness and references. */
function semanticProblems(pack: Pack): PackProblem[] {
  const out: PackProblem[] = [];
  const findings = new Set<string>();
  const checkIds = new Map<string, number>();
  pack.checks.forEach((check, c) => {
    const at = ['checks', c];
    const firstAt = checkIds.get(check.id);
    if (firstAt !== undefined) {
      out.push(problem([...at, 'id'], `repeats check id ${check.id} (checks.${String(firstAt)})`));
    } else checkIds.set(check.id, c);
    for (const [name, value] of Object.entries(check.values)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        out.push(problem([...at, 'values', name], 'is not a value name: letters, digits and _'));
      }
      const why = checkPathSyntax(value.path);
      if (why !== null) out.push(problem([...at, 'values', name, 'path'], why));
    }
    const ruleIds = new Set<string>();
    check.findings.forEach((rule, r) => {
      if (rule.id === 'unreadable') {
        out.push(problem([...at, 'findings', r, 'id'], 'is reserved for a check that fails'));
      }
      if (ruleIds.has(rule.id)) {
        out.push(problem([...at, 'findings', r, 'id'], `repeats rule id ${rule.id}`));
      }
      ruleIds.add(rule.id);
      findings.add(`${check.id}.${rule.id}`);
      rule.when.forEach((cond, w) => {
        out.push(...conditionProblems(cond, [...at, 'findings', r, 'when', w], check.values));
      });
    });
  });

  const fixIds = new Set<string>();
  pack.fixes.forEach((fix, f) => {
    if (fixIds.has(fix.id)) out.push(problem(['fixes', f, 'id'], `repeats fix id ${fix.id}`));
    fixIds.add(fix.id);
    for (const list of ['expect', 'expect_absent'] as const) {
      fix.verify[list].forEach((ref, i) => {
        if (!findings.has(ref)) {
          out.push(problem(['fixes', f, 'verify', list, i], `names no finding rule: ${ref}`));
        }
      });
    }
    (fix.fits ?? []).forEach((ref, i) => {
      if (!findings.has(ref))
        out.push(problem(['fixes', f, 'fits', i], `names no finding rule of this pack: ${ref}`));
    });
  });

  const causeIds = new Set<string>();
  pack.causes.forEach((cause, c) => {
    if (causeIds.has(cause.id))
      out.push(problem(['causes', c, 'id'], `repeats cause id ${cause.id}`));
    causeIds.add(cause.id);
    for (const list of ['proves', 'supports', 'refutes', 'requires'] as const) {
      (cause[list] ?? []).forEach((ref, i) => {
        if (!findings.has(ref)) {
          out.push(
            problem(
              ['causes', c, list, i],
              `names no finding rule of this pack: ${ref} (use <check id>.<rule id>)`,
            ),
          );
        }
      });
    }
    cause.fixes.forEach((ref, i) => {
      if (!fixIds.has(ref)) out.push(problem(['causes', c, 'fixes', i], `names no fix: ${ref}`));
    });
  });
  return out;
}

function conditionProblems(
  cond: Pack['checks'][number]['findings'][number]['when'][number],
  at: readonly (string | number)[],
  values: Pack['checks'][number]['values'],
): PackProblem[] {
  const out: PackProblem[] = [];
  if (!Object.hasOwn(values, cond.value)) {
    out.push(problem([...at, 'value'], `names no value of this check: ${cond.value}`));
  }
  const than = cond.than;
  const field = [...at, 'than'];
  switch (cond.op) {
    case 'present':
    case 'absent':
      if (than !== undefined) out.push(problem(field, `is not used with ${cond.op}`));
      break;
    case 'in':
    case 'not_in':
      if (!Array.isArray(than)) out.push(problem(field, `must be a list for ${cond.op}`));
      break;
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
      if (typeof than !== 'number') out.push(problem(field, `must be a number for ${cond.op}`));
      break;
    case 'mentions':
    case 'error_names':
      if (
        !Array.isArray(than) &&
        !(typeof than === 'string' && /^\{[A-Za-z0-9_.:-]+\}$/.test(than))
      )
        out.push(problem(field, 'must be a list of words or one {check.value} placeholder'));
      break;
    case 'matches':
      if (typeof than !== 'string') out.push(problem(field, 'must be a regular expression'));
      else {
        try {
          new RegExp(than);
        } catch (err) {
          out.push(problem(field, `is not a regular expression: ${(err as Error).message}`));
        }
      }
      break;
    case 'eq':
    case 'ne':
      if (than === undefined || Array.isArray(than)) {
        out.push(problem(field, `must be a string, number or boolean for ${cond.op}`));
      }
      break;
  }
  return out;
}

/** Validates a pack document: the schema first, then (when it holds) the references. */
export function validatePack(doc: unknown): PackValidation {
  const schema = schemaProblems(doc);
  if (schema.length > 0) return { ok: false, problems: schema };
  const pack = doc as Pack;
  const semantic = semanticProblems(pack);
  return semantic.length > 0 ? { ok: false, problems: semantic } : { ok: true, pack };
}

/** The problems as one line: the first few, and how many more. */
export function describeProblems(problems: readonly PackProblem[], max = 3): string {
  const shown = problems.slice(0, max).map((p) => p.message);
  const more = problems.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${String(more)} more` : shown.join('; ');
}

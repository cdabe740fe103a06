import { describe, expect, it } from 'vitest';
import { tinyPack, withField } from '../testing/packs/pack.fixture.js';
import { describeProblems, validatePack } from './pack.schema.js';
import type { Pack } from './pack.types.js';

/** The problems of a document, as `field: message`. */
function problemsOf(doc: unknown): { field: string; message: string }[] {
  const v = validatePack(doc);
  return v.ok ? [] : [...v.problems];
}

const threeChecks = (): Pack => {
  const p = tinyPack();
  const [c] = p.checks;
  if (c === undefined) throw new Error('fixture has a check');
  return { ...p, checks: [c, { ...c, id: 'tiny.b' }, { ...c, id: 'tiny.c' }] };
};

describe('validatePack: the schema', () => {
  it('accepts the tiny pack', () => {
    const v = validatePack(tinyPack());
    expect(v.ok).toBe(true);
  });

  it('names a missing field by its path', () => {
    const problems = problemsOf(withField(threeChecks(), 'checks.2.call.op', undefined));
    expect(problems).toEqual([
      { field: 'checks.2.call.op', message: 'checks.2.call.op is required' },
    ]);
  });

  it('names an unknown field', () => {
    const problems = problemsOf(withField(tinyPack(), 'fixes.0.verify.within', 3));
    expect(problems.map((p) => p.message)).toEqual(['fixes.0.verify.within is not a known field']);
  });

  it('names a wrong type', () => {
    const problems = problemsOf(withField(tinyPack(), 'version', 'one'));
    expect(problems[0]?.field).toBe('version');
  });

  it('lists the choices of an enumeration', () => {
    const problems = problemsOf(withField(tinyPack(), 'checks.0.connector', 'telnet'));
    expect(problems).toEqual([
      {
        field: 'checks.0.connector',
        message:
          'checks.0.connector must be one of "ssh", "prometheus", "postgresql", "http", "git"',
      },
    ]);
  });

  it('looks inside the alternative meant: a nullable call', () => {
    expect(problemsOf(withField(tinyPack(), 'fixes.0.dry_run', { args: {} }))).toEqual([
      { field: 'fixes.0.dry_run.op', message: 'fixes.0.dry_run.op is required' },
    ]);
    expect(problemsOf(withField(tinyPack(), 'fixes.0.take_back', 7))[0]?.message).toBe(
      'fixes.0.take_back must be one of object, null',
    );
  });

  it('names a bad argument value', () => {
    const problems = problemsOf(withField(tinyPack(), 'checks.0.call.args.unit', { x: 1 }));
    expect(problems[0]?.message).toBe(
      'checks.0.call.args.unit must be one of string, number, boolean',
    );
  });

  it('names a bad element of a list comparison', () => {
    const doc = withField(tinyPack(), 'checks.0.findings.0.when.0', {
      value: 'state',
      op: 'in',
      than: ['a', {}],
    });
    expect(problemsOf(doc)[0]?.field).toBe('checks.0.findings.0.when.0.than.1');
  });

  it('says so when the document is not an object', () => {
    expect(problemsOf([])[0]?.field).toBe('document');
  });

  it('refuses an id that could not be referred to', () => {
    expect(problemsOf(withField(tinyPack(), 'causes.0.id', 'Service.Down'))[0]?.field).toBe(
      'causes.0.id',
    );
  });
});

describe('validatePack: references and uniqueness', () => {
  it('refuses a repeated check id', () => {
    const p = threeChecks();
    const doc = withField(p, 'checks.2.id', 'tiny.svc');
    expect(problemsOf(doc).map((x) => x.message)).toContain(
      'checks.2.id repeats check id tiny.svc (checks.0)',
    );
  });

  it('refuses a repeated finding rule id in one check, and the reserved one', () => {
    const dup = withField(tinyPack(), 'checks.0.findings.1.id', 'down');
    expect(problemsOf(dup).map((x) => x.message)).toContain(
      'checks.0.findings.1.id repeats rule id down',
    );
    const reserved = withField(tinyPack(), 'checks.0.findings.0.id', 'unreadable');
    expect(problemsOf(reserved).map((x) => x.field)).toContain('checks.0.findings.0.id');
  });

  it('allows the same rule id in two checks', () => {
    expect(validatePack(threeChecks()).ok).toBe(true);
  });

  it('refuses a cause naming a finding that does not exist', () => {
    const doc = withField(tinyPack(), 'causes.0.supports', ['tiny.svc.gone']);
    expect(problemsOf(doc)).toEqual([
      {
        field: 'causes.0.supports.0',
        message:
          'causes.0.supports.0 names no finding rule of this pack: tiny.svc.gone (use <check id>.<rule id>)',
      },
    ]);
  });

  it('refuses a cause naming a fix that does not exist', () => {
    const doc = withField(tinyPack(), 'causes.0.fixes', ['restart', 'reboot']);
    expect(problemsOf(doc).map((x) => x.message)).toEqual([
      'causes.0.fixes.1 names no fix: reboot',
    ]);
  });

  it('refuses verification naming an unknown finding', () => {
    const doc = withField(tinyPack(), 'fixes.0.verify.expect_absent', ['tiny.svc.nope']);
    expect(problemsOf(doc)[0]?.field).toBe('fixes.0.verify.expect_absent.0');
  });

  it('refuses repeated cause and fix ids', () => {
    const p = tinyPack();
    const [cause] = p.causes;
    const [fix] = p.fixes;
    if (cause === undefined || fix === undefined) throw new Error('fixture');
    const doc = { ...p, causes: [cause, cause], fixes: [fix, fix] };
    expect(
      problemsOf(doc)
        .map((x) => x.field)
        .sort(),
    ).toEqual(['causes.1.id', 'fixes.1.id']);
  });

  it('refuses a condition on a value the check does not read', () => {
    const doc = withField(tinyPack(), 'checks.0.findings.0.when.0.value', 'status');
    expect(problemsOf(doc)).toEqual([
      {
        field: 'checks.0.findings.0.when.0.value',
        message: 'checks.0.findings.0.when.0.value names no value of this check: status',
      },
    ]);
  });

  it('refuses a malformed path, naming the value', () => {
    const doc = withField(tinyPack(), 'checks.0.values.state.path', 'units[name={service}.x');
    expect(problemsOf(doc)[0]?.field).toBe('checks.0.values.state.path');
  });

  it('refuses a value name with a dot (templates use <check>.<value>)', () => {
    const doc = withField(tinyPack(), 'checks.0.values', {
      'a.b': { path: 'x' },
      state: { path: 'y' },
    });
    expect(problemsOf(doc)[0]?.field).toBe('checks.0.values.a.b');
  });

  it.each([
    [{ value: 'state', op: 'present', than: 1 }, 'is not used with present'],
    [{ value: 'state', op: 'in', than: 'a' }, 'must be a list for in'],
    [{ value: 'state', op: 'gt', than: 'a' }, 'must be a number for gt'],
    [{ value: 'state', op: 'matches', than: '(' }, 'is not a regular expression'],
    [{ value: 'state', op: 'eq' }, 'must be a string, number or boolean for eq'],
  ])('checks what a condition compares with: %j', (cond, why) => {
    const doc = withField(tinyPack(), 'checks.0.findings.0.when.0', cond);
    expect(problemsOf(doc)[0]?.message).toContain(why);
  });

  it('describes many problems in one line', () => {
    const problems = ['a', 'b', 'c', 'd', 'e'].map((f) => ({ field: f, message: `${f} bad` }));
    expect(describeProblems(problems)).toBe('a bad; b bad; c bad; and 2 more');
  });
});

// The proof rules over EVERY cause of the real packs (build/packs/src), so a cause added
// later is held to them without a test of its own: with its proving finding and what it
// requires it is proven; with any one of its refuting checks unreadable, or any finding it
// requires missing, it never is; and no text a person reads keeps a placeholder that no
// variable or value of its pack can fill.
import { describe, expect, it } from 'vitest';
import { placeholders } from '../packs/index.js';
import { causeDefinitions, checkOf, diagnose } from './diagnose.js';
import { loadSourcePacks } from '../testing/investigate/fixtures/source-packs.js';
import type { Finding } from './types.js';

const packs = loadSourcePacks();
const SERVICE = 'svc';

const finding = (id: string, readable = true): Finding => ({
  id: readable ? id : `${id}.unreadable`,
  check: readable ? checkOf(id) : id,
  connector: 'c',
  call: 'x {}',
  service: SERVICE,
  says: id,
  values: {},
  excerpt: '',
  at: '2026-03-02T10:00:00.000Z',
  readable,
});

const judged = (cause: string, findings: readonly Finding[]) =>
  diagnose(packs, findings, {
    service: SERVICE,
    alerts: ['Any'],
    dependencies: [],
    matched: packs.map((p) => p.id),
  }).find((h) => h.cause === cause);

const cases = [...causeDefinitions(packs)].flatMap(([id, defs]) => {
  const requires = [...new Set(defs.flatMap((d) => d.cause.requires ?? []))];
  const refuting = [...new Set(defs.flatMap((d) => d.cause.refutes.map(checkOf)))];
  return [...new Set(defs.flatMap((d) => d.cause.proves))].map(
    (proving) => [id, proving, requires, refuting] as const,
  );
});

describe('the proof rules, over every cause of the real packs', () => {
  it('has causes to judge', () => {
    expect(cases.length).toBeGreaterThan(5);
  });

  it.each(cases)(
    '%s by %s: proven with what it requires, held without',
    (id, proving, requires, refuting) => {
      const all = [proving, ...requires].map((f) => finding(f));
      expect(judged(id, all)?.confidence).toBe('proven');
      for (const missing of requires)
        expect(
          judged(
            id,
            all.filter((f) => f.id !== missing),
          )?.confidence,
          `without ${missing}`,
        ).not.toMatch(/^(proven|linked)$/);
      for (const check of refuting) {
        const h = judged(id, [...all.filter((f) => f.check !== check), finding(check, false)]);
        expect(h?.confidence, `${check} unreadable`).not.toMatch(/^(proven|linked)$/);
        // Read from another check, the proof stands but is held, and says which check held it.
        if (checkOf(proving) !== check)
          expect(h?.held?.join('; ') ?? '', `${check} unreadable`).toContain(check);
      }
    },
  );

  it('fills every title and finding text from what its pack can know', () => {
    const variables = new Set([
      'service',
      'host',
      'alertname',
      'episode_id',
      'now',
      'hour_ago',
      'dependencies',
    ]);
    const unknown: string[] = [];
    for (const pack of packs) {
      const values = new Set(
        pack.checks.flatMap((c) => Object.keys(c.values).map((v) => `${c.id}.${v}`)),
      );
      const known = (name: string) =>
        variables.has(name) || values.has(name) || name.startsWith('label.');
      const texts = [
        ...pack.causes.map((c) => [`cause ${c.id}`, c.title] as const),
        ...pack.fixes.map((f) => [`fix ${f.id}`, f.title] as const),
        ...pack.checks.flatMap((c) =>
          c.findings.map((r) => [`finding ${c.id}.${r.id}`, r.says] as const),
        ),
      ];
      for (const [where, text] of texts)
        for (const name of placeholders(text))
          if (!known(name)) unknown.push(`${pack.id} ${where}: {${name}}`);
    }
    expect(unknown).toEqual([]);
  });
});

// The catalogue of causes (build/packs/src, unsigned) against RECORDED connector answers:
// fixtures/catalogue/<cause>.json holds, for one cause, the fault (the answers that differ
// from the healthy lab), a red herring beside it and the same symptom from a cause no pack
// knows. For every cause:
//   - the fault proves exactly that cause (and the causes `also` names), and offers its fix
//     only where one is safe and fits, else a person is asked;
//   - the red herring never proves it;
//   - the unknown cause proves nothing that claims to know why (the engine abstains, or
//     names only the symptom-level cause the lab names too: the unit is down, a disk is full);
//   - each check that could refute it, made unreadable, holds it at suspected.
// No text a person reads keeps a `{placeholder}`. And the lab's own faults still prove exactly
// their ground truth with the catalogue's packs.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createFixPlanner } from './fix-plan.js';
import { causeDefinitions, checkOf } from './diagnose.js';
import {
  engineFor,
  FIXTURES,
  keyOfCall,
  packs,
  readJson,
} from '../testing/investigate/recorded.js';
import type { Investigation } from './engine.js';

type Pair = [string, string];

interface Case {
  readonly how: string;
  readonly answers: Record<string, unknown>;
  /** causes proven besides the fixture's own (a fault), or all proven (a herring; default none) */
  readonly proven?: Pair[];
  readonly linked?: Pair[];
}

interface CatalogueEntry {
  readonly cause: string;
  readonly service: string;
  readonly alerts: string[];
  readonly fault: Case & {
    /** the fix offered and fitting, or null: no fix, a person is asked */
    readonly fix: { id: string; op: string; args: Record<string, unknown> } | null;
  };
  readonly herring: Case;
  /** more red herrings where one is not enough to show a hole closed */
  readonly more_herrings?: Case[];
  readonly unknown: Case;
}

const entries = readdirSync(`${FIXTURES}catalogue/`)
  .filter((f) => f.endsWith('.json') && f !== 'healthy.json')
  .sort()
  .map((f) => ({ file: f, entry: readJson<CatalogueEntry>(`catalogue/${f}`) }));

const definitions = causeDefinitions(packs);
const pairs = (list: readonly { cause: string; service: string }[]) =>
  list.map((h) => `${h.cause}(${h.service})`).sort();
const named = (list: readonly Pair[] = []) => list.map(([c, s]) => `${c}(${s})`).sort();

async function investigate(e: CatalogueEntry, answers: Record<string, unknown>, id: string) {
  const { engine } = engineFor(answers);
  return engine.investigate({
    episode_id: id,
    service: e.service,
    alerts: e.alerts,
    labels: { alertname: e.alerts[0] ?? '', service: e.service },
  });
}

const decisive = (r: Investigation) => ({
  proven: pairs(r.hypotheses.filter((h) => h.confidence === 'proven')),
  linked: pairs(r.hypotheses.filter((h) => h.confidence === 'linked')),
});

/** Every text a person reads: titles and findings (a fix's: where it is planned). */
function expectFilled(r: Investigation, more: readonly string[] = []) {
  const texts = [...r.hypotheses.map((h) => h.title), ...r.findings.map((f) => f.says), ...more];
  expect(texts.filter((t) => /\{[A-Za-z0-9_.:-]+\}/.test(t))).toEqual([]);
}

/** Unreadable findings other than the ones a case breaks on purpose. */
const unexpectedUnreadable = (r: Investigation, broken: readonly string[] = []) =>
  r.findings
    .filter((f) => !f.readable && !broken.includes(f.check))
    .filter((f) => !f.says.includes('connection refused'))
    .map((f) => `${f.id}@${f.service}: ${f.says}`);

describe('the catalogue of causes', () => {
  it('has at least 25 causes across the packs, each with a catalogue fixture', () => {
    const causes = [...definitions.keys()].sort();
    expect(causes.length).toBeGreaterThanOrEqual(25);
    const covered = entries.map((e) => e.entry.cause).sort();
    // Every cause some pack can prove has its fixture (bad_deploy: lab-faults.test.ts;
    // config_changed: config-pack.test.ts).
    const elsewhere = ['bad_deploy', 'config_changed'];
    const provable = causes.filter(
      (c) =>
        !elsewhere.includes(c) && (definitions.get(c) ?? []).some((d) => d.cause.proves.length),
    );
    expect(provable.filter((c) => !covered.includes(c))).toEqual([]);
  });

  it('gives every provable cause a refuting finding from a check that reads the healthy state', () => {
    for (const [id, defs] of definitions) {
      if (!defs.some((d) => d.cause.proves.length > 0)) continue;
      expect({ id, refutes: defs.flatMap((d) => d.cause.refutes).length > 0 }).toEqual({
        id,
        refutes: true,
      });
    }
  });

  for (const { file, entry: e } of entries) {
    describe(`${e.cause} (${file})`, () => {
      it(`the fault proves ${e.cause}(${e.service}): ${e.fault.how}`, async () => {
        const r = await investigate(e, e.fault.answers, `ep-${e.cause}`);
        expect(unexpectedUnreadable(r)).toEqual([]);
        expect(decisive(r)).toEqual({
          proven: named([[e.cause, e.service], ...(e.fault.proven ?? [])]),
          linked: named(e.fault.linked),
        });
        const lead = r.hypotheses[0];
        expect(lead).toMatchObject({ cause: e.cause, service: e.service, confidence: 'proven' });
        if (lead === undefined) return;
        for (const id of lead.proving) {
          expect(r.findings.find((f) => f.id === id && f.service === e.service)?.readable).toBe(
            true,
          );
        }
        const planner = createFixPlanner({
          packs: () => packs,
          variables: () => ({ service: e.service }),
          permission: () => ({ allowed: true, safe: true, why: 'the test allows every fix' }),
        });
        const planned = planner.plan(`ep-${e.cause}`, e.service, r);
        expectFilled(r, [planned?.choice.title ?? '', planned?.choice.unfit ?? '']);
        if (e.fault.fix === null) {
          // No safe fix that fits: the decision is to ask a person.
          expect(planned === null || planned.plan === null).toBe(true);
        } else {
          expect(planned?.choice).toMatchObject({ id: e.fault.fix.id, unfit: null });
          expect(planned?.plan).not.toBeNull();
          const [fix] = r.fixes.forHypothesis(lead);
          expect(fix).toMatchObject({
            runnable: true,
            action: { op: e.fault.fix.op, args: e.fault.fix.args },
          });
        }
      });

      for (const [i, herring] of [e.herring, ...(e.more_herrings ?? [])].entries()) {
        it(`the red herring does not prove it: ${herring.how}`, async () => {
          const r = await investigate(e, herring.answers, `ep-${e.cause}-herring-${String(i)}`);
          expect(unexpectedUnreadable(r)).toEqual([]);
          expect(decisive(r)).toEqual({
            proven: named(herring.proven),
            linked: named(herring.linked),
          });
          expect(pairs(r.hypotheses.filter((h) => h.confidence === 'proven'))).not.toContain(
            `${e.cause}(${e.service})`,
          );
          expectFilled(r);
        });
      }

      it(`the same symptom from a cause no pack knows proves nothing: ${e.unknown.how}`, async () => {
        const r = await investigate(e, e.unknown.answers, `ep-${e.cause}-unknown`);
        expect(unexpectedUnreadable(r)).toEqual([]);
        // A symptom-level cause may stand (the unit is down, a disk is full: service_down,
        // disk_full), never this cause nor any other that claims to know why.
        expect(decisive(r)).toEqual({
          proven: named(e.unknown.proven),
          linked: named(e.unknown.linked),
        });
        expect(decisive(r).proven).not.toContain(`${e.cause}(${e.service})`);
        expectFilled(r);
      });

      it('holds it at suspected when a check that could refute it cannot be read', async () => {
        const base = await investigate(e, e.fault.answers, `ep-${e.cause}-base`);
        const refuting = [
          ...new Set((definitions.get(e.cause) ?? []).flatMap((d) => d.cause.refutes.map(checkOf))),
        ];
        let tried = 0;
        for (const check of refuting) {
          const asked = base.findings.filter((f) => f.check === check && f.service === e.service);
          const keys = [...new Set(asked.map((f) => keyOfCall(f.connector, f.call)))];
          if (keys.length === 0) continue; // not asked for this service (nothing to read)
          tried += 1;
          const broken = Object.fromEntries(
            keys.map((k) => [k, { $error: `${check}: connection reset by the test` }]),
          );
          const r = await investigate(e, { ...e.fault.answers, ...broken }, `ep-${check}`);
          const h = r.hypotheses.find((x) => x.cause === e.cause && x.service === e.service);
          expect({ check, confidence: h?.confidence }).not.toEqual({ check, confidence: 'proven' });
          if (h !== undefined && h.proving.length > 0) {
            expect({ check, confidence: h.confidence }).toEqual({ check, confidence: 'suspected' });
            expect(h.held).toContain(`${check} could not be read, and it could rule this out`);
          }
          expect(decisive(r).proven).not.toContain(`${e.cause}(${e.service})`);
        }
        expect(tried).toBeGreaterThan(0);
      });
    });
  }
});

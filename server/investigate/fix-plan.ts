// A fix made concrete for one episode: the leading proven cause's first fix, the connector
// that reaches the service, the values its templates name, and the subject an approval binds
// to (its hash covers the exact call and values). After an approval the plan is rebuilt from
// the subject, and refused when the pack's fix no longer makes the same call.
import { canonicalJson } from '../shared/canonical-json.js';
import { planMissing, subjectOf, type ActionPlan, type TemplateValue } from '../act/index.js';
import { type Pack, fillText, lookupIn } from '../packs/index.js';
import type { FixPermission } from '../policy/index.js';
import type { FixChoice, Finding, Hypothesis } from './types.js';
import { decisive } from './confidence.js';

export interface FixPlan extends ActionPlan {
  /** what an approval approves: exactly this call through this connector with these values */
  readonly subject: Readonly<Record<string, unknown>>;
  readonly hypotheses: readonly Hypothesis[];
}

/** What planning reads of an investigation (the engine's answer). */
export interface PlanSource {
  readonly hypotheses: readonly Hypothesis[];
  readonly fixes?: {
    forHypothesis(
      h: Hypothesis,
    ): readonly { connector: string | null; runnable: boolean; fix: { id: string } }[];
  };
  /** per service: `<check id>.<value name>` → value */
  readonly values?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** what was read, for the fix's `fits` */
  readonly findings?: readonly Finding[];
}

/** Why the fix would not help: the first finding of its `fits` not read on the service. */
function unfitOf(
  fix: { readonly fits?: readonly string[] },
  service: string,
  findings: readonly Finding[],
): string | null {
  const seen = new Set(
    findings.filter((f) => f.readable && f.service === service).map((f) => f.id),
  );
  const absent = (fix.fits ?? []).filter((f) => !seen.has(f));
  return absent.length === 0
    ? null
    : `it needs ${absent.join(', ')}, which the checks did not find`;
}

export interface PlanDeps {
  readonly packs: () => readonly Pack[];
  /** the variables templates may name for a service (engine.variablesFor) */
  readonly variables: (episodeId: string, service: string) => Record<string, unknown>;
  readonly permission: (
    service: string,
    fix: { id: string; risk: FixChoice['risk'] },
  ) => FixPermission;
}

const isTemplateValue = (v: unknown): v is TemplateValue =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function templateValues(...records: readonly Readonly<Record<string, unknown>>[]) {
  const out: Record<string, TemplateValue> = {};
  for (const r of records)
    for (const [k, v] of Object.entries(r)) if (isTemplateValue(v)) out[k] = v;
  return out;
}

/** The fix with its title filled (what people read); null when a placeholder has no value. */
function titled(fix: Pack['fixes'][number], vars: Readonly<Record<string, TemplateValue>>) {
  const title = fillText(fix.title, lookupIn(vars));
  return title.missing.length === 0 ? { ...fix, title: title.value } : null;
}

export function createFixPlanner(deps: PlanDeps) {
  const fixOf = (pack: string, id: string) =>
    deps
      .packs()
      .find((p) => p.id === pack)
      ?.fixes.find((f) => f.id === id) ?? null;

  return {
    /** The first fix of the leading proven cause, with the policy's say; null when none. */
    plan(
      episodeId: string,
      service: string,
      source: PlanSource,
    ): { choice: FixChoice; plan: FixPlan | null } | null {
      const lead = source.hypotheses.find(decisive);
      // A linked cause is acted on in its own service's episode, not here.
      if (lead?.confidence !== 'proven' || lead.fixes.length === 0) return null;
      const prepared = source.fixes?.forHypothesis(lead) ?? [];
      const first = prepared.find((p) => p.runnable) ?? prepared[0];
      const fix = fixOf(lead.pack, first?.fix.id ?? lead.fixes[0] ?? '');
      if (fix === null) return null;
      const vars = templateValues(
        deps.variables(episodeId, lead.service),
        source.values?.[lead.service] ?? {},
      );
      const permission = deps.permission(lead.service, fix);
      const connector = first?.connector ?? null;
      // A title still naming a placeholder is never shown to a person: not runnable.
      const filled = titled(fix, vars);
      const runnable =
        connector !== null &&
        planMissing({ fix, vars }).length === 0 &&
        first?.runnable !== false &&
        filled !== null;
      const choice: FixChoice = {
        pack: lead.pack,
        id: fix.id,
        title: filled?.title ?? fix.id.replace(/_/g, ' '),
        risk: fix.risk,
        kind: fix.kind,
        allowed: permission.allowed,
        safe: permission.safe,
        runnable,
        unfit: unfitOf(fix, lead.service, source.findings ?? []),
      };
      if (!runnable || connector === null || filled === null || choice.unfit !== null)
        return { choice, plan: null };
      const action: ActionPlan = {
        episode_id: episodeId,
        service: lead.service,
        pack: lead.pack,
        fix: filled,
        connector,
        vars,
      };
      return {
        choice,
        plan: {
          ...action,
          subject: { episode_id: episodeId, service: lead.service, ...subjectOf(action), vars },
          hypotheses: source.hypotheses,
        },
      };
    },

    /** The plan an approved request runs, or null when its pack no longer makes that call. */
    fromSubject(subject: Readonly<Record<string, unknown>>, requestId: string): FixPlan | null {
      const text = (k: string): string => (typeof subject[k] === 'string' ? subject[k] : '');
      const raw = fixOf(text('pack'), text('fix'));
      const vars = templateValues((subject['vars'] ?? {}) as Record<string, unknown>);
      const fix = raw === null ? null : titled(raw, vars);
      if (fix === null) return null;
      const action: ActionPlan = {
        episode_id: text('episode_id'),
        service: text('service'),
        pack: text('pack'),
        fix,
        connector: text('connector'),
        vars,
        request_id: requestId,
      };
      if (planMissing(action).length > 0) return null;
      const again = {
        episode_id: action.episode_id,
        service: action.service,
        ...subjectOf(action),
        vars,
      };
      if (canonicalJson(again) !== canonicalJson(subject)) return null;
      return { ...action, subject, hypotheses: [] };
    },
  };
}
export type FixPlanner = ReturnType<typeof createFixPlanner>;

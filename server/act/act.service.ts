// The executor: runs one fix of a pack safely. A dry run asks the connector whether the action
// would be allowed (the gate's `dry_run`), changing nothing; shadow records what would run and
// runs nothing; execute re-checks the halt, the policy, the change windows, the autonomy, the
// fix mode and every approver in the very transaction that records action.started (an
// approval given earlier does not outlive a halt that commits before it), runs it, verifies
// it by re-reading the fix's checks (expected findings present, others absent, the alert
// ended) and takes it back when verification fails and the fix has a take-back. Every step is
// a ledger event whose trace id is the episode's.
import { fillCall as fillTemplateCall, lookupIn } from '../packs/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type {
  ActDeps,
  ActionPlan,
  DryRunResult,
  ExecuteOutcome,
  ExecuteResult,
  FilledCall,
  Finding,
  FixRef,
  PackCall,
  PackFix,
  TemplateValue,
} from './act.types.js';
import type { EventType, ReadonlyDeep } from '../ledger/index.js';
import type { ActEvents } from './act.events.js';

const DEFAULT_VERIFY_EVERY_MS = 3000;
const MAX_DETAIL = 1000;
/**
 * A call with its `{name}` placeholders filled from `vars` (templates.ts: a string that is one
 * placeholder keeps the value's type). Names with no value are listed in `missing`; the call
 * is then not runnable (never an empty string).
 */
export function fillCall(
  call: PackCall,
  vars: Readonly<Record<string, TemplateValue>>,
): { readonly call: FilledCall; readonly missing: readonly string[] } {
  return fillTemplateCall(call, lookupIn(vars));
}

/** Whether every call of the fix (dry run, action, take-back) can be filled from `vars`. */
export function planMissing(plan: Pick<ActionPlan, 'fix' | 'vars'>): readonly string[] {
  const calls = [plan.fix.dry_run, plan.fix.action, plan.fix.take_back].filter(
    (c): c is PackCall => c !== null,
  );
  return [...new Set(calls.flatMap((c) => fillCall(c, plan.vars).missing))];
}

/** A call as the ledger and findings write it: `restart {"unit":"app"}`. */
export const callText = (c: FilledCall): string => `${c.op} ${canonicalJson(c.args)}`;

/** The fix as every action event names it. */
export const fixRef = (pack: string, fix: PackFix): FixRef => ({
  pack,
  id: fix.id,
  title: fix.title,
  risk: fix.risk,
  kind: fix.kind,
});

/**
 * What an approval of this plan binds to (its hash is the request's subject_sha256): the
 * pack, the fix, the connector and the exact operation and arguments that will run.
 */
export function subjectOf(plan: ActionPlan): {
  pack: string;
  fix: string;
  connector: string;
  op: string;
  args: Readonly<Record<string, TemplateValue>>;
} {
  const { call, missing } = fillCall(plan.fix.action, plan.vars);
  if (missing.length > 0) throw new Error(`the fix names values not read: ${missing.join(', ')}`);
  return {
    pack: plan.pack,
    fix: plan.fix.id,
    connector: plan.connector,
    op: call.op,
    args: call.args,
  };
}

/** The check a finding id belongs to: `host.services.unit_down` → `host.services`. */
export const checkOf = (findingId: string): string => {
  const dot = findingId.lastIndexOf('.');
  return dot === -1 ? findingId : findingId.slice(0, dot);
};

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_DETAIL ? `${one.slice(0, MAX_DETAIL)}…` : one;
}

const messageOf = (err: unknown): string => clip(err instanceof Error ? err.message : String(err));

/** The connector's answer as one line: its `output` when it has one, else its JSON. */
function answerText(answer: unknown): string {
  if (typeof answer === 'object' && answer !== null) {
    const output = (answer as { output?: unknown }).output;
    if (typeof output === 'string') return clip(output);
  }
  try {
    return clip(JSON.stringify(answer) ?? '');
  } catch {
    return '';
  }
}

/** One verification reading judged against the fix's expectations. */
export function judge(
  verify: Pick<PackFix['verify'], 'expect' | 'expect_absent'>,
  findings: readonly Finding[],
): { ok: boolean; missing: string[]; present: string[]; unreadable: string[] } {
  const read = new Set(findings.filter((f) => f.readable).map((f) => f.id));
  const unreadableChecks = new Set(
    findings.filter((f) => !f.readable || f.id.endsWith('.unreadable')).map((f) => f.check),
  );
  const missing = verify.expect.filter((id) => !read.has(id));
  const present = verify.expect_absent.filter((id) => read.has(id));
  // An absent finding proves nothing when its check could not be read.
  const unreadable = verify.expect_absent.filter(
    (id) => !read.has(id) && unreadableChecks.has(checkOf(id)),
  );
  return {
    ok: missing.length === 0 && present.length === 0 && unreadable.length === 0,
    missing,
    present,
    unreadable,
  };
}

export function createActions(deps: ActDeps) {
  const every = deps.verifyEveryMs ?? DEFAULT_VERIFY_EVERY_MS;
  const actor = deps.actor ?? 'system';
  const sleep =
    deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  const record = <K extends EventType<ActEvents>>(
    plan: ActionPlan,
    type: K,
    data: ReadonlyDeep<Omit<ActEvents[K], 'episode_id' | 'fix'>>,
  ) =>
    deps.writer.transact(() =>
      deps.ledger.append({
        type,
        actor,
        // TypeScript cannot follow a generic spread; the parameter's type is what is checked.
        data: {
          episode_id: plan.episode_id,
          fix: fixRef(plan.pack, plan.fix),
          ...data,
        } as ReadonlyDeep<ActEvents[K]>,
        trace_id: plan.episode_id,
      }),
    );

  /** One call through the plan's connector: its answer as text, or why it failed. */
  async function attempt(
    plan: ActionPlan,
    c: FilledCall,
  ): Promise<{ ok: boolean; detail: string }> {
    try {
      return { ok: true, detail: answerText(await deps.call(plan.connector, c.op, c.args)) };
    } catch (err) {
      return { ok: false, detail: messageOf(err) };
    }
  }

  function filled(call: PackCall, plan: ActionPlan): FilledCall {
    const { call: c, missing } = fillCall(call, plan.vars);
    if (missing.length > 0)
      throw new Error(
        `fix ${plan.pack}/${plan.fix.id} is not runnable: no value for ${missing.map((m) => `{${m}}`).join(', ')}`,
      );
    return c;
  }

  type Why = 'halted' | 'policy' | 'change_window' | 'autonomy' | 'fix_mode' | 'approval';

  /** What refuses the plan now, or null; read inside the writer job that would start it. */
  function refusalNow(
    plan: ActionPlan,
  ): { why: Why; detail: string; result: ExecuteResult } | null {
    if (deps.halted())
      return { why: 'halted', detail: 'actions are halted', result: 'refused_halt' };
    const now = deps.policyNow(plan.service, { id: plan.fix.id, risk: plan.fix.risk });
    if (!now.permission.allowed)
      return { why: 'policy', detail: now.permission.why, result: 'refused_policy' };
    if (now.changeWindow !== null)
      return {
        why: 'change_window',
        detail: `change window ${now.changeWindow.name} forbids actions on ${plan.service} until ${now.changeWindow.until}`,
        result: 'refused_change',
      };
    const asked = plan.request_id != null;
    const a = deps.autonomy;
    if (a !== undefined) {
      const level = a.levelOf(plan.service);
      if (asked ? level !== 'L1' && level !== 'L2' : level !== 'L2')
        return {
          why: 'autonomy',
          detail: `autonomy of ${plan.service} is now ${level}${asked ? '' : ': only L2 acts without asking'}`,
          result: 'refused_policy',
        };
      if (plan.fix.kind === 'restore' && a.fixMode() !== 'draft')
        return {
          why: 'fix_mode',
          detail: 'fix mode is now advise: restore fixes are handed to a person',
          result: 'refused_policy',
        };
      if (!asked && !now.permission.safe)
        return {
          why: 'policy',
          detail: 'the policy does not list this fix as safe to run without asking',
          result: 'refused_policy',
        };
    }
    const stands = asked ? (deps.approvalStands?.(plan.request_id ?? '') ?? null) : null;
    if (stands !== null) return { why: 'approval', detail: stands, result: 'refused_policy' };
    return null;
  }

  const refusedEvent = (plan: ActionPlan, why: Why, detail: string) => ({
    type: 'action.refused' as const,
    actor,
    data: {
      episode_id: plan.episode_id,
      fix: fixRef(plan.pack, plan.fix),
      why,
      detail,
      ...(plan.request_id != null && { request_id: plan.request_id }),
    },
    trace_id: plan.episode_id,
  });

  /** Re-reads the fix's checks until they show what it expects, or within_s has passed. */
  async function verifyFindings(
    plan: ActionPlan,
  ): Promise<{ ok: boolean; detail: string; findings: string[] }> {
    const v = plan.fix.verify;
    const checks = [...new Set([...v.expect, ...v.expect_absent].map(checkOf))];
    const deadline = deps.clock.now() + v.within_s * 1000;
    const ctx = {
      episode_id: plan.episode_id,
      service: plan.service,
      pack: plan.pack,
      vars: plan.vars,
    };
    for (;;) {
      let findings: readonly Finding[] = [];
      let failure: string | null = null;
      if (checks.length > 0) {
        try {
          findings = await deps.recheck(checks, ctx);
        } catch (err) {
          failure = `the checks could not be re-run: ${messageOf(err)}`;
        }
      }
      const j = judge(v, findings);
      const ids = findings.map((f) => f.id);
      if (failure === null && j.ok) {
        const parts = [
          v.expect.length > 0 ? `read ${v.expect.join(', ')}` : '',
          v.expect_absent.length > 0 ? `no longer read ${v.expect_absent.join(', ')}` : '',
        ].filter((p) => p !== '');
        return {
          ok: true,
          detail: parts.length > 0 ? parts.join('; ') : 'nothing to re-read',
          findings: ids,
        };
      }
      if (deps.clock.now() >= deadline) {
        const parts = [
          failure ?? '',
          j.missing.length > 0 ? `not read: ${j.missing.join(', ')}` : '',
          j.present.length > 0 ? `still read: ${j.present.join(', ')}` : '',
          j.unreadable.length > 0 ? `could not be read: ${j.unreadable.join(', ')}` : '',
        ].filter((p) => p !== '');
        return {
          ok: false,
          detail: `after ${String(v.within_s)} s, ${parts.join('; ')}`,
          findings: ids,
        };
      }
      await sleep(Math.max(1, Math.min(every, deadline - deps.clock.now())));
    }
  }

  /** Waits up to `seconds` (from `since`) for the episode's alerts to end. */
  async function alertEnds(plan: ActionPlan, since: number, seconds: number): Promise<boolean> {
    const deadline = since + seconds * 1000;
    for (;;) {
      if (await deps.alertEnded(plan.episode_id)) return true;
      if (deps.clock.now() >= deadline) return false;
      await sleep(Math.max(1, Math.min(every, deadline - deps.clock.now())));
    }
  }

  async function takeBack(plan: ActionPlan, why: string): Promise<ExecuteOutcome> {
    const tb = plan.fix.take_back;
    if (tb === null)
      return { result: 'not_verified', detail: `${why}; the fix has no take-back`, findings: [] };
    // Halt refuses every action, a take-back included: a person decides.
    if (deps.halted()) {
      await record(plan, 'action.refused', {
        why: 'halted',
        detail: 'the take-back did not run: actions are halted',
      });
      return {
        result: 'not_verified',
        detail: `${why}; the take-back did not run (halted)`,
        findings: [],
      };
    }
    const c = filled(tb, plan);
    const { ok, detail } = await attempt(plan, c);
    await record(plan, 'action.taken_back', { call: callText(c), ok, detail });
    return ok
      ? { result: 'taken_back', detail: `${why}; taken back (${callText(c)})`, findings: [] }
      : { result: 'not_verified', detail: `${why}; the take-back failed: ${detail}`, findings: [] };
  }

  return {
    /** The connector's dry run of the fix (nothing changes); ok false when it is refused. */
    async dryRun(plan: ActionPlan): Promise<DryRunResult> {
      const extra = plan.request_id != null ? { request_id: plan.request_id } : {};
      const dr = plan.fix.dry_run;
      if (dr === null) {
        const detail = `the ${plan.fix.connector} connector has no dry run; checked by the policy only`;
        await record(plan, 'action.dry_run', {
          ...extra,
          connector: plan.connector,
          call: null,
          ok: true,
          detail,
        });
        return { ok: true, detail, call: null };
      }
      const c = filled(dr, plan);
      const { ok, detail } = await attempt(plan, c);
      await record(plan, 'action.dry_run', {
        ...extra,
        connector: plan.connector,
        call: callText(c),
        ok,
        detail,
      });
      return { ok, detail, call: callText(c) };
    },

    /** Records what would run (shadow autonomy); nothing is called. */
    async shadow(plan: ActionPlan, would: 'act' | 'ask'): Promise<void> {
      const c = filled(plan.fix.action, plan);
      await record(plan, 'action.shadow', { connector: plan.connector, call: callText(c), would });
    },

    /**
     * Runs the fix: refused when halted, when the policy no longer allows it, or inside a
     * change window (all checked now, whatever was approved before); else started, called,
     * done, then verified, or verify_failed and taken back where the fix can be.
     */
    async execute(plan: ActionPlan): Promise<ExecuteOutcome> {
      const c = filled(plan.fix.action, plan);
      const base = { connector: plan.connector, call: callText(c) };
      const req = plan.request_id != null ? { request_id: plan.request_id } : {};
      // Checked and started in one transaction: nothing that commits before it is missed.
      const refused = await deps.writer.transact(() => {
        const no = refusalNow(plan);
        if (no !== null) {
          deps.ledger.append(refusedEvent(plan, no.why, no.detail));
          return no;
        }
        deps.ledger.append({
          type: 'action.started',
          actor,
          data: { episode_id: plan.episode_id, fix: fixRef(plan.pack, plan.fix), ...base, ...req },
          trace_id: plan.episode_id,
        });
        return null;
      });
      if (refused !== null) return { result: refused.result, detail: refused.detail, findings: [] };
      const { ok, detail } = await attempt(plan, c);
      await record(plan, 'action.done', { ...base, ok, detail });
      const doneAt = deps.clock.now();
      if (!ok) {
        // What a failed action left is unknown: a person looks, nothing is undone blindly.
        const why = `the action failed: ${detail}`;
        await record(plan, 'action.verify_failed', { findings: [], detail: why });
        return { result: 'not_verified', detail: why, findings: [] };
      }

      const v = plan.fix.verify;
      const checked = await verifyFindings(plan);
      let verdict = checked;
      if (checked.ok && v.alert_ends_within_s > 0) {
        const ended = await alertEnds(plan, doneAt, v.alert_ends_within_s);
        verdict = ended
          ? { ...checked, detail: `${checked.detail}; the alert ended` }
          : {
              ...checked,
              ok: false,
              detail: `${checked.detail}; the alert did not end within ${String(v.alert_ends_within_s)} s`,
            };
      }
      if (verdict.ok) {
        await record(plan, 'action.verified', {
          findings: verdict.findings,
          detail: verdict.detail,
        });
        return { result: 'verified', detail: verdict.detail, findings: verdict.findings };
      }
      await record(plan, 'action.verify_failed', {
        findings: verdict.findings,
        detail: verdict.detail,
      });
      const back = await takeBack(plan, `not verified: ${verdict.detail}`);
      return { ...back, findings: verdict.findings };
    },
  };
}
export type Actions = ReturnType<typeof createActions>;

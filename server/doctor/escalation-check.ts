// Approvals / escalation: every escalation step of the policy names a connector of a notify
// kind (mail, slack, teams, webhook) whose last health check passed.
import type { ConnectionState } from './core-checks.js';
import type { CheckResult, DoctorCheck } from './doctor.service.js';

/** What the check reads of a step (the policy's escalation.steps). */
export interface EscalationStepRef {
  readonly after_s: number;
  readonly channel: string;
}

export interface EscalationCheckDeps {
  /** policy.current().escalation.steps */
  readonly steps: () => readonly EscalationStepRef[];
  /** connectors.list().connectors */
  readonly connections: () => readonly ConnectionState[];
  /** kinds whose capabilities include notify (from the connectors catalogue) */
  readonly notifyKinds: () => readonly string[];
}

const afterText = (s: number): string =>
  s === 0 ? 'at once' : s % 60 === 0 ? `after ${String(s / 60)} min` : `after ${String(s)} s`;

export function escalationCheck({
  steps,
  connections,
  notifyKinds,
}: EscalationCheckDeps): DoctorCheck {
  return {
    area: 'Approvals',
    name: 'escalation',
    run(): CheckResult {
      const all = steps();
      if (all.length === 0)
        return {
          status: 'ok',
          detail: 'no escalation steps',
          hint: '',
        };
      const byName = new Map(connections().map((c) => [c.name, c]));
      const notify = new Set(notifyKinds());
      const problems: string[] = [];
      let missing = false;
      let wrongKind = false;
      let failing = false;
      all.forEach((step, i) => {
        const where = `step ${String(i + 1)} (${afterText(step.after_s)}) channel ${step.channel}`;
        const c = byName.get(step.channel);
        if (c === undefined) {
          missing = true;
          problems.push(`${where}: no such connector`);
        } else if (!notify.has(c.kind)) {
          wrongKind = true;
          problems.push(`${where}: a ${c.kind} connector cannot send approval requests`);
        } else if (c.problem !== null || c.last_health === null || !c.last_health.ok) {
          failing = true;
          const why =
            c.problem ??
            (c.last_health === null ? 'not checked yet' : `failing: ${c.last_health.detail}`);
          problems.push(`${where}: ${why}`);
        }
      });
      if (problems.length === 0) {
        const names = [...new Set(all.map((s) => s.channel))];
        return {
          status: 'ok',
          detail: `${String(all.length)} ${all.length === 1 ? 'step' : 'steps'}; every channel connected (${names.join(', ')})`,
          hint: '',
        };
      }
      const hints = [
        missing || wrongKind
          ? 'add a connector of kind mail, slack, teams or webhook under that name (Connections), or change the step in the policy (escalation.steps)'
          : null,
        failing
          ? 'fix the failing channels: Connections shows their health, POST /v1/connectors/test tries a change'
          : null,
      ].filter((h) => h !== null);
      return {
        status: 'warn',
        detail: `${String(problems.length)} of ${String(all.length)} steps cannot reach people: ${problems.join('; ')}`,
        hint: hints.join('; '),
      };
    },
  };
}

// What the service does with verified artefacts, and what the doctor says about the folder.
import type { CheckResult, DoctorCheck } from '../doctor/index.js';
import type { MlReport } from './ml-dir.js';

/** A suggested link as the estate takes it (it adds the id and decides what to show). */
export interface LinkSuggestion {
  readonly from: string;
  readonly to: string;
  readonly evidence: string;
  readonly score: number;
}

/** The verified relations artefacts' links, as estate suggestions. */
export function relationSuggestions(report: MlReport): LinkSuggestion[] {
  return report.used.flatMap((a) =>
    a.relations.map((l) => ({
      from: l.from,
      to: l.to,
      score: Math.round(l.strength * 100) / 100,
      evidence: `ML artefact ${a.name} (${a.file}, signed by ${a.signers.join(' and ')}): ${l.to} leads ${l.from}${l.lag_s !== undefined ? ` by ${String(l.lag_s)} s` : ''}${l.evidence !== undefined ? `; ${l.evidence}` : ''}`,
    })),
  );
}

const listed = (items: readonly string[]): string =>
  items.length <= 5
    ? items.join('; ')
    : `${items.slice(0, 5).join('; ')}; and ${String(items.length - 5)} more`;

/** Doctor: Diagnosis / ML artefacts. A refused file is a warning that names why. */
export function mlArtefactsCheck(report: () => MlReport): DoctorCheck {
  return {
    area: 'Diagnosis',
    name: 'ML artefacts',
    run(): CheckResult {
      const r = report();
      if (r.trustProblem !== null)
        return {
          status: 'fail',
          detail: `${r.trustProblem}; every artefact in ${r.dir} is refused`,
          hint: 'set SVC_ML_TRUST to an Ed25519 public key in PEM, or the path of a PEM file, or unset it',
        };
      const needs =
        r.trust === null ? 'this install' : `this install and SVC_ML_TRUST (${r.trust})`;
      const used = r.used.map((a) => `${a.file} (${a.kind} ${a.name})`);
      if (r.refused.length > 0)
        return {
          status: 'warn',
          detail: `${String(r.refused.length)} refused in ${r.dir}: ${listed(r.refused.map((f) => `${f.file}: ${f.why}`))}${used.length > 0 ? `; used: ${listed(used)}` : ''}`,
          hint: `an artefact is used only when signed by ${needs}: sign it with \`svc-core ml sign FILE\`${r.trust === null ? '' : ' and have the SVC_ML_TRUST key holder sign it'}, or remove it`,
        };
      if (used.length === 0)
        return {
          status: 'ok',
          detail: `no ML artefacts in ${r.dir}${r.present ? '' : ' (no such folder)'}`,
          hint: '',
        };
      return {
        status: 'ok',
        detail: `${String(used.length)} used, each signed by ${needs}: ${listed(used)}`,
        hint: '',
      };
    },
  };
}

// Doctor's Models checks: where the models run (placement), and whether System 1 and the
// investigator answer a tiny call (or are deliberately unconfigured).
import { existsSync } from 'node:fs';
import type { DoctorCheck } from '../doctor/index.js';
import type { ModelUse } from './service.js';
import type { ModelSystem } from './settings.js';

/** A GPU on this host: an NVIDIA device node or a DRM render directory. */
export const hostHasGpu = (): boolean => existsSync('/dev/nvidia0') || existsSync('/dev/dri');

export function placementCheck(deps: {
  models: Pick<ModelUse, 'configured' | 'describe'>;
  local: boolean;
  hasGpu: () => boolean;
}): DoctorCheck {
  return {
    area: 'Models',
    name: 'placement',
    run() {
      if (deps.local && !deps.hasGpu())
        return {
          status: 'fail',
          detail: 'SVC_MODEL_LOCAL=1 but this host has no GPU: models never run on the CPU',
          hint: 'run the model on a GPU host and set SVC_MODEL_URL to its endpoint',
        };
      if (!deps.models.configured('s2') && !deps.models.configured('s1'))
        return {
          status: 'warn',
          detail: 'no models: diagnosis runs without them, notes from templates',
          hint: 'set SVC_MODEL_URL (and SVC_S1_URL) to OpenAI-compatible endpoints',
        };
      const d = deps.models.describe();
      const where = (s: { url_origin: string | null } | null) =>
        s === null ? 'unconfigured' : (s.url_origin ?? 'cassette');
      return {
        status: 'ok',
        detail: `${deps.local ? 'local, on this GPU' : 'behind endpoints'}: System 2 ${where(d.system2)}, System 1 ${where(d.system1)}`,
        hint: '',
      };
    },
  };
}

const HEALTH = {
  purpose: 'health',
  system: 'Answer with JSON.',
  user: '{"ok": true}',
  schema: {
    type: 'object',
    properties: { ok: { type: 'boolean' } },
    required: ['ok'],
    additionalProperties: false,
  },
  max_tokens: 16,
};
const PROBE_S = 5;

export function answerCheck(deps: {
  models: Pick<ModelUse, 'configured' | 'replayOnly' | 'call'>;
}): DoctorCheck {
  async function probe(system: ModelSystem): Promise<string | null> {
    if (!deps.models.configured(system) || deps.models.replayOnly(system)) return null;
    try {
      await deps.models.call(system, HEALTH, null, { probe: true, timeoutS: PROBE_S });
      return null;
    } catch (err) {
      return `${system === 's2' ? 'the investigator' : 'System 1'} does not answer (${(err as { kind?: string }).kind ?? 'error'})`;
    }
  }
  return {
    area: 'Models',
    name: 'System 1 and investigator',
    async run() {
      const [s2, s1] = await Promise.all([probe('s2'), probe('s1')]);
      const problems = [s2, s1].filter((p): p is string => p !== null);
      if (problems.length > 0)
        return {
          status: 'fail',
          detail: problems.join('; '),
          hint: 'check SVC_MODEL_URL / SVC_S1_URL, the keys and that the endpoints are up',
        };
      const state = (s: ModelSystem) =>
        !deps.models.configured(s)
          ? 'unconfigured'
          : deps.models.replayOnly(s)
            ? 'replayed from a cassette'
            : 'answers';
      return {
        status: 'ok',
        detail: `investigator ${state('s2')}, System 1 ${state('s1')}`,
        hint: '',
      };
    },
  };
}

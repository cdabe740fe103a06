// Doctor's Models checks: where the models run (placement: on a GPU or behind endpoints,
// never on the CPU), and whether System 1 and the investigator answer a tiny call, are
// deliberately unconfigured, or have spent today's token ceiling.
import { existsSync } from 'node:fs';
import type { CeilingState } from '../../../models/index.js';
import type { DoctorCheck } from '../../doctor/index.js';
import type { ModelUse, ModelUseState } from './service.js';
import type { ModelSystem } from './settings.js';

/** A GPU on this host: an NVIDIA device node or a DRM render directory. */
export const hostHasGpu = (): boolean => existsSync('/dev/nvidia0') || existsSync('/dev/dri');

const TO_ENDPOINTS =
  'set SVC_MODEL_URL (and SVC_S1_URL) to OpenAI-compatible endpoints on a GPU host (svc-core models serve there), or replay a cassette (SVC_MODEL_CASSETTE with SVC_MODEL_REPLAY=replay)';

export function placementCheck(deps: {
  models: Pick<ModelUse & ModelUseState, 'configured' | 'describe' | 'local'>;
  /** SVC_MODEL_LOCAL=1: the model runs on this host. */
  local: boolean;
  hasGpu: () => boolean;
}): DoctorCheck {
  return {
    area: 'Models',
    name: 'placement',
    run() {
      const gpu = deps.hasGpu();
      const runtime = deps.models.local();
      const missing = !deps.models.configured('s2') && !deps.models.configured('s1');
      if (deps.local && !gpu) {
        const what =
          runtime === null
            ? ''
            : ` (${runtime.file} ${runtime.state === 'refused' ? 'refused' : 'on the CPU'})`;
        return {
          status: 'fail',
          detail: `SVC_MODEL_LOCAL=1 but this host has no GPU: models never run on the CPU${what}`,
          hint: `unset SVC_MODEL_LOCAL and ${TO_ENDPOINTS}`,
        };
      }
      if (missing)
        return gpu
          ? {
              status: 'warn',
              detail: 'no models: diagnosis runs without them, notes from templates',
              hint: 'set SVC_MODEL_LOCAL=1 with SVC_MODEL=<file>.gguf (in <SVC_DATA>/models/) for this GPU, or SVC_MODEL_URL (and SVC_S1_URL) to OpenAI-compatible endpoints',
            }
          : {
              status: 'fail',
              detail:
                'no models and no GPU on this host: diagnosis runs without them, notes from templates',
              hint: TO_ENDPOINTS,
            };
      if (runtime?.state === 'refused')
        return {
          status: 'fail',
          detail: `local model ${runtime.file} refused: ${runtime.reason ?? 'unknown reason'}`,
          hint: 'check the model file (SVC_MODEL, in <SVC_DATA>/models/ unless absolute) and the GPU driver',
        };
      const d = deps.models.describe();
      const where = (s: { url_origin: string | null } | null) =>
        s === null ? 'unconfigured' : (s.url_origin ?? (runtime === null ? 'cassette' : 'local'));
      const systems = `System 2 ${where(d.system2)}, System 1 ${where(d.system1)}`;
      if (deps.local) {
        const on =
          runtime === null
            ? 'local, on this GPU'
            : runtime.state === 'ready'
              ? `local, ${runtime.file} on this GPU (${runtime.gpu ?? 'gpu'})`
              : `local, ${runtime.file} loading on this GPU`;
        return { status: 'ok', detail: `${on}: ${systems}`, hint: '' };
      }
      const replayed = [d.system2, d.system1].every((s) => s === null || s.url_origin === null);
      return {
        status: 'ok',
        detail: `${replayed ? 'replayed from a cassette' : 'behind endpoints'}: ${systems}`,
        hint: '',
      };
    },
  };
}

/** The next 00:00 UTC after a ceiling's day: when its model steps run again. */
function ceilingResets(state: CeilingState): string {
  return new Date(Date.parse(`${state.day}T00:00:00.000Z`) + 86_400_000).toISOString();
}

const spent = (c: CeilingState | null): c is CeilingState =>
  c !== null && c.limit > 0 && c.used >= c.limit;

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
  models: Pick<
    ModelUse & ModelUseState,
    'configured' | 'replayOnly' | 'call' | 'ceilings' | 'describe' | 'local'
  >;
}): DoctorCheck {
  const label = (system: ModelSystem) => (system === 's2' ? 'the investigator' : 'System 1');
  /** The local model still loading for this system: a probe would only time out. */
  const loading = (system: ModelSystem): string | null => {
    const local = deps.models.local();
    const d = deps.models.describe();
    const view = system === 's2' ? d.system2 : d.system1;
    const isLocal = view !== null && view.url_origin === null && !deps.models.replayOnly(system);
    return isLocal && local?.state === 'loading' ? local.file : null;
  };
  async function probe(system: ModelSystem): Promise<string | null> {
    if (!deps.models.configured(system) || deps.models.replayOnly(system)) return null;
    // A spent ceiling is reported as such; probing would spend more.
    if (spent(deps.models.ceilings()[system]) || loading(system) !== null) return null;
    try {
      await deps.models.call(system, HEALTH, null, { probe: true, timeoutS: PROBE_S });
      return null;
    } catch (err) {
      return `${label(system)} does not answer (${(err as { kind?: string }).kind ?? 'error'})`;
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
          hint: 'check SVC_MODEL_URL / SVC_S1_URL (or the local model), the keys and that the endpoints are up',
        };
      const ceilings = deps.models.ceilings();
      const systems: ModelSystem[] = ['s2', 's1'];
      const over = systems.flatMap((system) => {
        const c = ceilings[system];
        return spent(c)
          ? [
              `${label(system)}'s daily token ceiling is spent (${String(c.used)} of ${String(c.limit)} tokens): its model steps are skipped until ${ceilingResets(c)}`,
            ]
          : [];
      });
      if (over.length > 0)
        return {
          status: 'warn',
          detail: over.join('; '),
          hint: 'wait for 00:00 UTC, or raise SVC_MODEL_DAILY_TOKENS / SVC_S1_DAILY_TOKENS',
        };
      const file = loading('s2') ?? loading('s1');
      if (file !== null)
        return {
          status: 'warn',
          detail: `the local model ${file} is still loading`,
          hint: 'a large model takes a minute or more to load: check again shortly',
        };
      const state = (s: ModelSystem) => {
        const c = ceilings[s];
        const today =
          c !== null && c.limit > 0
            ? ` (${String(c.used)} of ${String(c.limit)} tokens today)`
            : '';
        return !deps.models.configured(s)
          ? 'unconfigured'
          : deps.models.replayOnly(s)
            ? 'replayed from a cassette'
            : `answers${today}`;
      };
      return {
        status: 'ok',
        detail: `investigator ${state('s2')}, System 1 ${state('s1')}`,
        hint: '',
      };
    },
  };
}

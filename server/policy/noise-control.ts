// The policy as episodes read it for every signal: the incident grouping key and window,
// and the suppressions (maintenance windows, inhibition) that apply to the signal now.
import type { EpisodeSignal, NoiseControl, Suppression } from '../episodes/index.js';
import type { Clock } from '../shared/clock.js';
import type { PolicyService } from './policy.service.js';
import { groupKey, inhibitorFor, maintenanceFor, type FiringSignal } from './suppression.js';

interface Deps {
  readonly policy: PolicyService;
  readonly clock: Clock;
  /** Every signal firing now; read only when an inhibition rule's target matches. */
  readonly firing: () => Iterable<FiringSignal>;
}

export function createNoiseControl({ policy, clock, firing }: Deps): NoiseControl {
  return {
    grouping(signal: EpisodeSignal) {
      const current = policy.current();
      return { key: groupKey(current, signal), windowS: current.grouping.window_s };
    },
    suppressions(signal: EpisodeSignal): Suppression[] {
      const current = policy.current();
      const out: Suppression[] = [];
      const window = maintenanceFor(current, signal, clock.now());
      if (window !== null) {
        out.push({
          kind: 'maintenance',
          rule: window.name,
          until: window.ends,
          reason: window.reason,
        });
      }
      const inhibitor = inhibitorFor(current, signal, firing());
      if (inhibitor !== null)
        out.push({ kind: 'inhibition', rule: inhibitor.rule, by: inhibitor.by });
      return out;
    },
  };
}

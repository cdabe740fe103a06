// The install's own record in the ledger: its first start, every start and each clean stop.
// The composition root calls these inside its start and stop transactions.
import type { DomainLedger } from '../ledger/index.js';
import type { InstallEvents } from './install.events.js';
import type { InstallStore } from './install.projection.js';

interface Deps {
  readonly store: Pick<InstallStore, 'get'>;
  readonly ledger: DomainLedger<InstallEvents>;
  /** The type of the last event in the ledger (undefined when it is empty): was the last stop clean. */
  readonly lastEventType: () => string | undefined;
}

export interface StartFacts {
  readonly instance: string;
  readonly version: string;
  readonly key_fingerprint: string;
  readonly fingerprint: string | null;
  readonly pid: number;
}

export function createInstallService({ store, ledger, lastEventType }: Deps) {
  return {
    /** system.installed on the first start, then system.started; a crash before the last stop
     * is recorded (previous_stop_clean false), not hidden. */
    recordStart(facts: StartFacts): void {
      if (store.get() === null) {
        ledger.append({
          type: 'system.installed',
          actor: 'system',
          data: {
            instance: facts.instance,
            key_fingerprint: facts.key_fingerprint,
            fingerprint: facts.fingerprint,
            version: facts.version,
          },
        });
      }
      const lastType = lastEventType();
      const starts = store.get()?.starts ?? 0;
      ledger.append({
        type: 'system.started',
        actor: 'system',
        data: {
          version: facts.version,
          instance: facts.instance,
          pid: facts.pid,
          previous_stop_clean: starts === 0 || lastType === 'system.stopped',
        },
      });
    },
    recordStop(version: string): void {
      ledger.append({ type: 'system.stopped', actor: 'system', data: { version } });
    },
  };
}
export type InstallService = ReturnType<typeof createInstallService>;

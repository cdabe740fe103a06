// What changed in the hour before an episode opened, the first step after intake: the
// configuration snapshots' diffs and the deploys people or CI reported (`human.deploy`,
// `human.action` events). Git deploys are read by the change pack's checks, which can prove
// or clear them; this list is what a person reads first.
import type { SnapshotChange } from '../snapshots/index.js';

export interface ChangeEntry {
  readonly kind: 'snapshot' | 'event';
  readonly at: string;
  readonly what: string;
  readonly source: string;
  readonly service: string | null;
  readonly seq: number;
}

/** At most this many changes are listed per episode. */
const MAX_CHANGES = 50;

interface EventLike {
  readonly seq: number;
  readonly ts: string;
  readonly type: string;
  readonly actor: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface ChangesDeps {
  readonly snapshots: (sinceIso: string) => readonly SnapshotChange[];
  /** human.deploy and human.action events since, oldest first */
  readonly events: (sinceIso: string) => readonly EventLike[];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function createChangesReader(deps: ChangesDeps) {
  return (sinceIso: string, service: string): ChangeEntry[] => {
    const fromSnapshots = deps.snapshots(sinceIso).map((c): ChangeEntry => ({
      kind: 'snapshot',
      at: c.at,
      what: `${c.connector}: ${JSON.stringify({ ...c, seq: undefined, connector: undefined, at: undefined }).slice(0, 300)}`,
      source: c.connector,
      service: null,
      seq: c.seq,
    }));
    const fromEvents = deps.events(sinceIso).map((e): ChangeEntry => {
      const s = text(e.data['service']);
      const version = text(e.data['version']);
      const action = text(e.data['action']);
      return {
        kind: 'event',
        at: e.ts,
        what: `${e.type} by ${e.actor}${version === '' ? '' : ` version ${version}`}${action === '' ? '' : ` ${action}`}`,
        source: e.actor,
        service: s === '' ? null : s,
        seq: e.seq,
      };
    });
    // The episode's own service first, then the newest.
    return [...fromSnapshots, ...fromEvents]
      .sort(
        (a, b) => Number(b.service === service) - Number(a.service === service) || b.seq - a.seq,
      )
      .slice(0, MAX_CHANGES);
  };
}

// What changed in the hour before an episode opened, the first step after intake: the
// configuration snapshots' diffs (a watched file's as its path and masked diff) and the deploys people or CI reported (`human.deploy`,
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
  /** the event's type (`human.deploy`, `human.action`), or `snapshot` */
  readonly type: string;
  /** who reported it (the event's actor); null for a snapshot: a connector saw it, nobody said */
  readonly actor: string | null;
  /** the host it was on, when the event names one (`data.host`) */
  readonly host: string | null;
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

const FILE = 'file:';
const DIFF = 'diff:';
const WHAT_MAX = 600;

/**
 * A snapshot change as a person reads it: a watched file's change as its path and the
 * gate's masked diff (`diff:<path>`), or its hashes when the gate kept no diff; the rest
 * of the diff as JSON. A first snapshot is all additions: shown as it is.
 */
function snapshotWhat(c: SnapshotChange): string {
  const { seq: _seq, connector, at: _at, ...diff } = c;
  if (c.first === true) return `${connector}: ${JSON.stringify(diff).slice(0, 300)}`;
  const parts: string[] = [];
  const summaries: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.added)) if (k.startsWith(DIFF)) summaries[k] = v;
  for (const [k, v] of Object.entries(c.changed)) if (k.startsWith(DIFF)) summaries[k] = v.to;
  const changed: Record<string, { from: string; to: string }> = {};
  for (const [k, v] of Object.entries(c.changed)) {
    if (k.startsWith(DIFF)) continue;
    if (!k.startsWith(FILE)) {
      changed[k] = v;
      continue;
    }
    const path = k.slice(FILE.length);
    const summary = summaries[`${DIFF}${path}`];
    parts.push(
      summary === undefined
        ? `${path} changed (sha256 ${v.from.slice(0, 12)} → ${v.to.slice(0, 12)})`
        : `${path} changed: ${summary}`,
    );
  }
  const added = Object.fromEntries(Object.entries(c.added).filter(([k]) => !k.startsWith(DIFF)));
  const removed = Object.fromEntries(
    Object.entries(c.removed).filter(([k]) => !k.startsWith(DIFF)),
  );
  const rest = {
    ...(Object.keys(added).length > 0 && { added }),
    ...(Object.keys(removed).length > 0 && { removed }),
    ...(Object.keys(changed).length > 0 && { changed }),
  };
  if (Object.keys(rest).length > 0) parts.push(JSON.stringify(rest).slice(0, 300));
  if (parts.length === 0) parts.push(JSON.stringify(diff).slice(0, 300));
  const what = `${connector}: ${parts.join('; ')}`;
  return what.length > WHAT_MAX ? `${what.slice(0, WHAT_MAX - 1)}…` : what;
}

export function createChangesReader(deps: ChangesDeps) {
  return (sinceIso: string, service: string): ChangeEntry[] => {
    const fromSnapshots = deps.snapshots(sinceIso).map((c): ChangeEntry => ({
      kind: 'snapshot',
      at: c.at,
      what: snapshotWhat(c),
      source: c.connector,
      service: null,
      seq: c.seq,
      type: 'snapshot',
      actor: null,
      host: null,
    }));
    const fromEvents = deps.events(sinceIso).map((e): ChangeEntry => {
      const s = text(e.data['service']);
      const version = text(e.data['version']);
      const action = text(e.data['action']);
      const host = text(e.data['host']);
      return {
        kind: 'event',
        at: e.ts,
        what: `${e.type} by ${e.actor}${version === '' ? '' : ` version ${version}`}${action === '' ? '' : ` ${action}`}`,
        source: e.actor,
        service: s === '' ? null : s,
        seq: e.seq,
        type: e.type,
        actor: e.actor,
        host: host === '' ? null : host,
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

// Core / What-changed snapshots: every connection with a setup was read within 30 minutes.
import type { CheckResult, DoctorCheck } from './doctor.service.js';

/** What the doctor reads of one connection's snapshots (the snapshots domain's freshness). */
export interface SnapshotFreshness {
  readonly max_age_ms: number;
  readonly connectors: readonly {
    readonly connector: string;
    readonly kind: string;
    readonly status: 'ok' | 'failed' | 'never';
    readonly age_ms: number | null;
    readonly fresh: boolean;
    readonly detail: string | null;
  }[];
}

const ageText = (ms: number): string => {
  const min = Math.round(ms / 60_000);
  return min < 90 ? `${String(min)} min` : `${(ms / 3_600_000).toFixed(1)} h`;
};

/**
 * Stale connections are a warning while others are fresh or a connection was simply not
 * read yet (just added, or just started); every one stale with a failed or old read is a
 * failure: "what changed" then knows nothing current.
 */
export function snapshotsCheck(freshness: () => SnapshotFreshness): DoctorCheck {
  return {
    area: 'Core',
    name: 'What-changed snapshots',
    run(): CheckResult {
      const f = freshness();
      const all = f.connectors;
      const window = ageText(f.max_age_ms);
      if (all.length === 0)
        return {
          status: 'ok',
          detail:
            'no connection has a setup to read (kinds with the setup operation: GET /v1/connectors/catalogue)',
          hint: '',
        };
      const stale = all.filter((c) => !c.fresh);
      if (stale.length === 0) {
        const oldest = Math.max(...all.map((c) => c.age_ms ?? 0));
        return {
          status: 'ok',
          detail: `${all.length === 1 ? "1 connection's setup" : `${String(all.length)} connections' setup`} read within ${window}; the oldest ${ageText(oldest)} ago`,
          hint: '',
        };
      }
      const line = (c: SnapshotFreshness['connectors'][number]): string => {
        const last = c.age_ms === null ? 'never read' : `last read ${ageText(c.age_ms)} ago`;
        const why = c.status === 'failed' && c.detail !== null ? `; failing: ${c.detail}` : '';
        return c.status === 'never'
          ? `${c.connector}: not read yet`
          : `${c.connector}: ${last}${why}`;
      };
      const allBad = stale.length === all.length && stale.every((c) => c.status !== 'never');
      return {
        status: allBad ? 'fail' : 'warn',
        detail: `${String(stale.length)} of ${String(all.length)} not read within ${window}: ${stale.map(line).join('; ')}`,
        hint: stale.some((c) => c.status === 'failed')
          ? 'fix the failing connections (Connections shows their health); snapshots are retried every SVC_SNAPSHOT_S'
          : 'snapshots run every SVC_SNAPSHOT_S; a connection just added or a service just started is read within that time',
      };
    },
  };
}

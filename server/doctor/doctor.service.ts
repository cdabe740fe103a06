// The doctor: every check of every domain, each with detail and hint; the overall status
// is the worst check. Reports are cached for 15 s; fresh=1 re-runs them.
import type { Clock } from '../shared/clock.js';

export const CheckStatus = { Ok: 'ok', Warn: 'warn', Fail: 'fail' } as const;
export type CheckStatus = (typeof CheckStatus)[keyof typeof CheckStatus];

export interface CheckResult {
  readonly status: CheckStatus;
  readonly detail: string;
  readonly hint: string;
}

export interface DoctorCheck {
  readonly area: string;
  readonly name: string;
  run(): Promise<CheckResult> | CheckResult;
}

export interface DoctorReport {
  readonly status: CheckStatus;
  readonly checked_at: string;
  readonly cached: boolean;
  readonly checks: (CheckResult & { area: string; check: string; duration_ms: number })[];
}

export const DOCTOR_CACHE_MS = 15_000;
const CHECK_TIMEOUT_MS = 10_000;
const severity: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

export function worst(statuses: readonly CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((w, s) => (severity[s] > severity[w] ? s : w), 'ok');
}

async function runOne(check: DoctorCheck): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => {
      resolve({
        status: 'fail',
        detail: `no answer within ${String(CHECK_TIMEOUT_MS / 1000)} s`,
        hint: 'see the service log for this check',
      });
    }, CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => check.run()), timeout]);
  } catch (err) {
    return {
      status: 'fail',
      detail: `the check failed: ${(err as Error).message}`,
      hint: 'see the service log',
    };
  } finally {
    clearTimeout(timer);
  }
}

export function createDoctor({ clock }: { clock: Clock }) {
  const checks: DoctorCheck[] = [];
  let cache: { at: number; report: DoctorReport } | null = null;
  let running: Promise<DoctorReport> | null = null;

  async function run(): Promise<DoctorReport> {
    const results = await Promise.all(
      checks.map(async (c) => {
        const started = performance.now();
        const r = await runOne(c);
        return {
          area: c.area,
          check: c.name,
          status: r.status,
          detail: r.detail,
          hint: r.hint,
          duration_ms: Math.round(performance.now() - started),
        };
      }),
    );
    const report: DoctorReport = {
      status: worst(results.map((r) => r.status)),
      checked_at: clock.nowIso(),
      cached: false,
      checks: results,
    };
    cache = { at: clock.now(), report };
    return report;
  }

  return {
    /** Later domains add their checks here at start. */
    register(check: DoctorCheck): void {
      checks.push(check);
    },
    async report(fresh = false): Promise<DoctorReport> {
      if (!fresh && cache !== null && clock.now() - cache.at < DOCTOR_CACHE_MS)
        return { ...cache.report, cached: true };
      // Concurrent callers share one run instead of verifying the ledger twice.
      running ??= run().finally(() => {
        running = null;
      });
      return running;
    },
  };
}
export type Doctor = ReturnType<typeof createDoctor>;

// After a fix ran: re-run the checks its verification names every couple of seconds until
// every `expect` finding is present and every `expect_absent` one is absent, or `within_s`
// has passed; then, when `alert_ends_within_s` is set, wait for the episode's alerts to end
// within that many seconds of the start. The clock and the sleep are injected, so tests do
// not wait.
import type { PackVerify } from '../packs/index.js';
import type { Finding } from './types.js';

export const POLL_MS = 2000;

export interface VerifyDeps {
  /** re-runs the checks the verification names; answers their findings */
  readonly recheck: () => Promise<readonly Finding[]>;
  /** ms since the epoch */
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** whether the episode's alerts have all ended (needed when alert_ends_within_s > 0) */
  readonly alertsEnded?: () => boolean | Promise<boolean>;
  readonly pollMs?: number;
}

export interface VerifyResult {
  readonly ok: boolean;
  /** one line a person reads */
  readonly detail: string;
  /** ids of the findings of the last reading */
  readonly findings: readonly string[];
  /** how many times the checks were read */
  readonly attempts: number;
}

/** The check ids a verification needs read again (`host.services` of `host.services.unit_running`). */
export function checksOf(verify: PackVerify): string[] {
  const ids = [...verify.expect, ...verify.expect_absent].map((ref) =>
    ref.slice(0, ref.lastIndexOf('.')),
  );
  return [...new Set(ids.filter((id) => id !== ''))];
}

function unmet(verify: PackVerify, ids: ReadonlySet<string>): string[] {
  return [
    ...verify.expect.filter((e) => !ids.has(e)).map((e) => `${e} not read`),
    ...verify.expect_absent.filter((e) => ids.has(e)).map((e) => `${e} still read`),
  ];
}

export async function verifyFix(verify: PackVerify, deps: VerifyDeps): Promise<VerifyResult> {
  const pollMs = deps.pollMs ?? POLL_MS;
  const start = deps.now();
  const deadline = start + verify.within_s * 1000;
  let attempts = 0;
  let last: string[] = [];
  let missing: string[] = [];
  for (;;) {
    attempts += 1;
    try {
      const findings = await deps.recheck();
      last = findings.map((f) => f.id);
      missing = unmet(verify, new Set(findings.filter((f) => f.readable).map((f) => f.id)));
    } catch (err) {
      last = [];
      missing = [
        `the checks could not be read: ${err instanceof Error ? err.message : String(err)}`,
      ];
    }
    if (missing.length === 0) break;
    if (deps.now() + pollMs > deadline) {
      return {
        ok: false,
        detail: `not verified within ${String(verify.within_s)} s: ${missing.join('; ')}`,
        findings: last,
        attempts,
      };
    }
    await deps.sleep(pollMs);
  }
  const checked = `verified after ${String(attempts)} reading${attempts === 1 ? '' : 's'}`;
  if (verify.alert_ends_within_s <= 0)
    return { ok: true, detail: checked, findings: last, attempts };
  if (deps.alertsEnded === undefined) {
    return {
      ok: false,
      detail: `${checked}, but whether the alerts ended cannot be told`,
      findings: last,
      attempts,
    };
  }
  const alertDeadline = start + verify.alert_ends_within_s * 1000;
  for (;;) {
    if (await deps.alertsEnded()) {
      return { ok: true, detail: `${checked}; the alerts ended`, findings: last, attempts };
    }
    if (deps.now() + pollMs > alertDeadline) {
      return {
        ok: false,
        detail: `${checked}, but the alerts did not end within ${String(verify.alert_ends_within_s)} s`,
        findings: last,
        attempts,
      };
    }
    await deps.sleep(pollMs);
  }
}

// The checks that exist in the spine: main, ledger integrity, data volume, licence.
import { statfs } from 'node:fs/promises';
import type { Fingerprint } from '../install/index.js';
import type { LicenceService } from '../licence/index.js';
import type { VerifyReport } from '../ledger/index.js';
import type { Mode } from '../shared/mode.js';
import type { CheckResult, DoctorCheck } from './doctor.service.js';

export const FREE_WARN = 0.15;
export const FREE_FAIL = 0.05;

export function mainCheck(mode: () => Mode, problems: () => readonly string[]): DoctorCheck {
  return {
    area: 'Core',
    name: 'main',
    run(): CheckResult {
      const p = problems();
      if (p.length > 0)
        return { status: 'fail', detail: p.join('; '), hint: 'see the service log' };
      const m = mode();
      if (m === 'operating') return { status: 'ok', detail: 'operating; runtime loaded', hint: '' };
      if (m === 'configuring')
        return {
          status: 'warn',
          detail: 'configuring: no working connection yet',
          hint: 'add a connection (Connections) to reach operating',
        };
      return {
        status: 'fail',
        detail: 'setup: no valid licence',
        hint: 'start the offline trial (SVC_TRIAL=1) or install a licence',
      };
    },
  };
}

export function ledgerCheck(
  verify: () => Promise<VerifyReport & { full?: boolean; full_at?: string | null }>,
  sealRefusal: () => string | null,
): DoctorCheck {
  return {
    area: 'Audit',
    name: 'ledger integrity',
    async run(): Promise<CheckResult> {
      const r = await verify();
      if (!r.ok && r.failure) {
        return {
          status: 'fail',
          detail: `${r.failure.check} fails at seq ${String(r.failure.seq)}: ${r.failure.message}`,
          hint: 'stop writes, keep a copy of the data folder, and compare with syslog checkpoints (svc-core ledger-verify --checkpoint)',
        };
      }
      const refusal = sealRefusal();
      if (refusal !== null)
        return { status: 'fail', detail: refusal, hint: 'run svc-core ledger-verify' };
      const sealed = `${String(r.segments)} segments sealed through seq ${String(r.sealed_through)}`;
      const what =
        r.full === false
          ? `${String(r.checked)} new events verify (all verified at ${r.full_at ?? '?'}, again hourly)`
          : `${String(r.checked)} events verify`;
      return { status: 'ok', detail: `${what}; ${sealed}`, hint: '' };
    },
  };
}

export async function freeShare(dir: string): Promise<{ free: number; total: number }> {
  const s = await statfs(dir);
  return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
}

export function dataVolumeCheck(
  dir: string,
  measure: (dir: string) => Promise<{ free: number; total: number }> = freeShare,
): DoctorCheck {
  return {
    area: 'Storage',
    name: 'data volume',
    async run(): Promise<CheckResult> {
      const { free, total } = await measure(dir);
      const share = total > 0 ? free / total : 0;
      const detail = `${(share * 100).toFixed(1)}% free (${(free / 2 ** 30).toFixed(1)} GiB of ${(total / 2 ** 30).toFixed(1)} GiB) on ${dir}`;
      if (share < FREE_FAIL)
        return {
          status: 'fail',
          detail,
          hint: 'free space now: writes are refused (503) when the disk fills',
        };
      if (share < FREE_WARN)
        return { status: 'warn', detail, hint: 'keep at least 15% free on the data volume' };
      return { status: 'ok', detail, hint: '' };
    },
  };
}

const HOUR_MS = 3_600_000;

/**
 * Licence / confirmation by mode (licence.md §3.6): offline ok by choice; auto ok under 24 h
 * unconfirmed, warn to 7 d, then warn suggesting offline; strict warn after 24 h (at 72 h the
 * licence is not valid, which fails above). Unconfirmed counts from the last confirmation, or
 * from when the licence was installed.
 */
function confirmationOf(
  v: NonNullable<ReturnType<LicenceService['view']>>,
  nowMs: number,
): { status: 'warn'; detail: string; hint: string } | null {
  if (v.check === 'offline' || v.kind !== 'licence') return null;
  const since = v.confirmed_at ?? v.installed_at;
  if (since === null) return null;
  const hours = Math.floor((nowMs - Date.parse(since)) / HOUR_MS);
  if (hours < 24) return null;
  const age = hours < 48 ? `${String(hours)} h` : `${String(Math.floor(hours / 24))} days`;
  const what =
    v.confirmed_at === null
      ? `not confirmed by the licence authority since it was installed ${age} ago`
      : `not confirmed by the licence authority for ${age}`;
  if (v.check === 'strict')
    return {
      status: 'warn',
      detail: what,
      hint: 'strict checking stops the service at 72 h unconfirmed: let it reach SVC_AUTHORITY_URL (HTTPS_PROXY, SVC_CA_BUNDLE, pins) and POST /v1/licence/check',
    };
  if (hours >= 7 * 24)
    return {
      status: 'warn',
      detail: what,
      hint: 'choose offline? if this install cannot reach the licence authority, set SVC_LICENCE_CHECK=offline; otherwise check SVC_AUTHORITY_URL, HTTPS_PROXY and SVC_CA_BUNDLE',
    };
  return {
    status: 'warn',
    detail: what,
    hint: 'check that the licence authority is reachable (SVC_AUTHORITY_URL, HTTPS_PROXY, SVC_CA_BUNDLE); the service keeps working',
  };
}

export function licenceCheck(
  licence: LicenceService,
  fingerprint: Fingerprint,
  /** why the fingerprint is not this host's own (an image-baked machine id), or null */
  imageBaked: () => string | null = () => null,
): DoctorCheck {
  return {
    area: 'Licence',
    name: 'confirmation',
    run(): CheckResult {
      const v = licence.view();
      const fp = fingerprint.ok ? '' : ` Install identity: ${fingerprint.problem}.`;
      if (v === null)
        return {
          status: 'fail',
          detail: `no licence.${fp}`,
          hint: 'start the offline trial (SVC_TRIAL=1) or install a licence',
        };
      const services =
        v.services === null ? 'unlimited services' : `${String(v.services)} services`;
      const expiry = v.expires_at === null ? 'perpetual' : `expires ${v.expires_at}`;
      const who = v.customer === null ? '' : ` for ${v.customer}`;
      const base = `${v.kind} (${v.tier})${who}, ${services}, ${expiry}; ${v.check === 'offline' ? 'offline by choice' : `check ${v.check}`}.${fp}`;
      if (!v.valid)
        return {
          status: 'fail',
          detail: `${v.why ?? 'not valid'}: ${base}`,
          hint:
            v.file_mounted === null
              ? 'install a licence (Licence page, POST /v1/licence)'
              : `replace the licence file ${v.file_mounted}`,
        };
      // In grace everything still works, but the service stops at its end: a failure to act on.
      if (v.in_grace)
        return {
          status: 'fail',
          detail: `expired, in grace until ${v.grace_ends_at ?? '?'}: ${base}`,
          hint: 'install a renewed licence before the grace period ends',
        };
      if (licence.clockBehind())
        return {
          status: 'warn',
          detail: `the system clock is behind the licence high-water mark: ${base}`,
          hint: 'set the clock right (NTP); licence decisions keep using the later time meanwhile',
        };
      if (!fingerprint.ok)
        return {
          status: 'warn',
          detail: base,
          hint: 'give this host a machine id so that the install can be licensed',
        };
      const baked = imageBaked();
      if (baked !== null)
        return {
          status: 'warn',
          detail: `the install fingerprint is not this host's own: ${base}`,
          hint: baked,
        };
      if (v.stage === 'expiring' || (v.days_left !== null && v.days_left <= 14))
        return {
          status: 'warn',
          detail: `${String(v.days_left)} days left: ${base}`,
          hint: 'install a renewed licence soon',
        };
      // An offline grant is a loan until the vendor's next serial lists this install.
      if (
        v.vouched_until !== null &&
        Date.parse(v.vouched_until) - licence.effectiveNow() <= 30 * 86_400_000
      )
        return {
          status: 'warn',
          detail: `this install runs under a grant that ends ${v.vouched_until}: ${base}`,
          hint: 'install a licence that lists this install (the vendor issues it once the grant reaches them in a usage statement)',
        };
      const unconfirmed = confirmationOf(v, licence.effectiveNow());
      if (unconfirmed !== null) return { ...unconfirmed, detail: `${unconfirmed.detail}: ${base}` };
      // The list's age matters only where the service asks for newer ones (§3.9).
      const list = licence.revocations();
      const listAge =
        v.check === 'offline' || list.seq === 0
          ? ''
          : ` Revocation list seq ${String(list.seq)}, issued ${list.issued_at}.`;
      return {
        status: 'ok',
        detail: `${v.confirmed_at === null ? base : `${base} Confirmed ${v.confirmed_at}.`}${listAge}`,
        hint: '',
      };
    },
  };
}

/** What Core / Investigations reports, read from the store (the CLI has no orchestrator). */
export interface InvestigationCounts {
  readonly enabled: boolean;
  /** episodes not closed */
  readonly episodes: number;
  readonly investigating: number;
  readonly waiting: number;
  /** incidents whose alerts still fire */
  readonly firing: number;
}

/** Core / Investigations: informational, the running count and incidents still firing. */
export function investigationsCheck(counts: () => InvestigationCounts): DoctorCheck {
  return {
    area: 'Core',
    name: 'Investigations',
    run(): CheckResult {
      const c = counts();
      const detail = `${String(c.investigating)} investigating, ${String(c.waiting)} waiting for approval, ${String(c.episodes)} episodes open; ${String(c.firing)} incidents still firing`;
      if (!c.enabled)
        return {
          status: 'warn',
          detail: `investigation is off (SVC_ORCHESTRATE=0); ${detail}`,
          hint: 'alerts are recorded and episodes opened, but nothing is investigated',
        };
      return { status: 'ok', detail, hint: '' };
    },
  };
}

/** How long without an alert before the doctor asks whether the sources still send. */
export const INTAKE_QUIET_WARN_MS = 24 * 60 * 60 * 1000;

/**
 * Alert intake ran recently: the newest signal event's time, against the clock. Silence is
 * a warning, not a failure: a calm estate sends nothing, but a broken webhook looks the same.
 */
export function intakeCheck(
  lastSignalAt: () => string | null,
  ingestOn: boolean,
  now: () => number,
): DoctorCheck {
  return {
    area: 'Core',
    name: 'Alert intake',
    run(): CheckResult {
      if (!ingestOn) {
        return {
          status: 'warn',
          detail: 'ingestion is off: no SVC_INGEST_TOKEN is configured',
          hint: 'set SVC_INGEST_TOKEN (or SVC_INGEST_TOKEN_FILE) and give it to the alert sources',
        };
      }
      const last = lastSignalAt();
      if (last === null) {
        return {
          status: 'warn',
          detail: 'no alert has arrived yet',
          hint: "point a source's webhook at POST /v1/alerts/<source> with the ingest token (docs/intake.md)",
        };
      }
      const ago = now() - Date.parse(last);
      const hours = Math.floor(ago / 3_600_000);
      const when =
        hours >= 1
          ? `${String(hours)} h ago`
          : `${String(Math.max(0, Math.round(ago / 60_000)))} min ago`;
      return ago > INTAKE_QUIET_WARN_MS
        ? {
            status: 'warn',
            detail: `the last alert arrived ${when} (${last})`,
            hint: 'check that the sources still send: a broken webhook and a calm estate look the same',
          }
        : { status: 'ok', detail: `the last alert arrived ${when}`, hint: '' };
    },
  };
}

/** What the doctor reads of a connection: its load problem and its last health check. */
export interface ConnectionState {
  readonly name: string;
  readonly kind: string;
  readonly problem: string | null;
  readonly last_health: { ok: boolean; detail: string; duration_ms: number } | null;
}

/**
 * Every connection's health with its duration. None configured is a warning (nothing can be
 * checked); some failing is a warning (the others still work); all failing is a failure.
 */
export function connectionsCheck(connections: () => readonly ConnectionState[]): DoctorCheck {
  return {
    area: 'Connections',
    name: 'health',
    run(): CheckResult {
      const all = connections();
      if (all.length === 0) {
        return {
          status: 'warn',
          detail: 'no connections configured',
          hint: 'add a connection to a monitoring tool or host (Connections, or PUT /v1/connectors/<name>)',
        };
      }
      const line = (c: ConnectionState): string =>
        c.problem !== null
          ? `${c.name} (${c.kind}): ${c.problem}`
          : c.last_health === null
            ? `${c.name} (${c.kind}): not checked yet`
            : `${c.name} (${c.kind}): ${c.last_health.ok ? 'ok' : 'failed'}, ${c.last_health.detail} in ${String(c.last_health.duration_ms)} ms`;
      const failing = all.filter((c) => c.problem !== null || c.last_health?.ok === false);
      const status = failing.length === 0 ? 'ok' : failing.length === all.length ? 'fail' : 'warn';
      return {
        status,
        detail: all.map(line).join('; '),
        hint:
          status === 'ok'
            ? ''
            : `check ${failing.map((c) => c.name).join(', ')}: the detail says what failed (POST /v1/connectors/test tries a change before saving)`,
      };
    },
  };
}

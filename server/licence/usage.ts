// The signed usage statement (licence.md §3.10, GET /v1/licence/usage): minimal, readable, signed
// by this install's key in a svc-usage/1 envelope (ES256 with the P-256 install key under FIPS),
// chained to the previous statement by its SHA-256, carrying the ledger's head so a later audit
// can hold the counts against the ledger, and audited each time it is made. No service names
// unless asked for hashed (HMAC-SHA256 keyed by the licence id).
import { createHash, createHmac, type KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { NotFoundError } from '../shared/errors.js';
import { COUNTED_DAYS, dayOf, type Coverage } from './coverage.js';
import type { CoverageStore } from './coverage.store.js';
import {
  algOf,
  kidOf,
  seal,
  signingInput,
  verifyBytes,
  type Envelope,
  type Signer,
} from './document/envelope.js';
import { installKeyFromPub } from './installs/install-pub.js';
import type { LicenceEvents } from './licence.events.js';
import type { LicenceService } from './licence.service.js';

export const USAGE_FORMAT = 'svc-usage/1';
const DAY_MS = 86_400_000;
/** The most days max_daily looks back over (a statement after a long silence). */
const MAX_PERIOD_DAYS = 400;

export interface UsageKeys {
  /** the key that signs: Ed25519, or P-256 under FIPS */
  readonly signing: KeyObject;
  /** the install's Ed25519 public key, base64url raw (as the licence lists it) */
  readonly installPub: string;
  /** under FIPS: the P-256 public key, SPKI DER base64url */
  readonly installPubP256: string | null;
}

interface Deps {
  readonly licence: Pick<LicenceService, 'view' | 'current' | 'effectiveNow' | 'hwm'>;
  readonly coverage: Pick<Coverage, 'state'>;
  readonly store: Pick<CoverageStore, 'usageState' | 'seenPerDay'>;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly keys: () => UsageKeys | null;
  readonly fingerprint: string | null;
  readonly version: string;
  /** ledger events of a type since a time, newest first (the ledger reader) */
  readonly eventsSince?: (
    type: string,
    sinceIso: string,
  ) => readonly { readonly ts: string; readonly data: Record<string, unknown> }[];
  /** the grants issued here and the installs removed here (the exchange, §3.7) */
  readonly installs?: () => { grants_issued: readonly unknown[]; removed: readonly unknown[] };
  /** the ledger's head, as GET /v1/ledger/verify reports it, and the seals */
  readonly ledgerHead: () => { seq: number; hash: string | null; sealed_through: number };
}

/** HMAC-SHA256(key = licence id, service), hex: a service named without naming it. */
export const hashedServiceId = (licenceId: string, service: string): string =>
  createHmac('sha256', licenceId).update(service, 'utf8').digest('hex');

const isoDaysBefore = (ms: number, days: number): string =>
  new Date(ms - days * DAY_MS).toISOString();

/** The highest number counted on one day of [from, to] and the days coverage was exceeded. */
function dailyFigures(
  perDay: ReadonlyMap<string, readonly string[]>,
  pins: readonly string[],
  fromMs: number,
  toMs: number,
  limit: number | null,
): { maxDaily: number; exceededDays: number } {
  let maxDaily = 0;
  let exceededDays = 0;
  const start = Math.max(fromMs, toMs - MAX_PERIOD_DAYS * DAY_MS);
  for (let t = Date.parse(`${dayOf(start)}T00:00:00Z`); t <= toMs; t += DAY_MS) {
    const counted = new Set(pins);
    for (let back = 0; back < COUNTED_DAYS; back += 1)
      for (const s of perDay.get(dayOf(t - back * DAY_MS)) ?? []) counted.add(s);
    maxDaily = Math.max(maxDaily, counted.size);
    if (limit !== null && counted.size > limit) exceededDays += 1;
  }
  return { maxDaily, exceededDays };
}

export function createUsage(deps: Deps) {
  const { licence, ledger, writer } = deps;

  function payloadOf(hashedIds: boolean, keys: UsageKeys) {
    const view = licence.view();
    if (view === null) throw new NotFoundError('no_licence', 'no licence is installed');
    const current = licence.current()?.licence ?? null;
    const nowMs = deps.clock.now();
    const state = deps.store.usageState();
    const from = state.last_to ?? view.started_at;
    const fromMs = Math.min(Date.parse(from), nowMs);
    const cov = deps.coverage.state();
    const perDay = deps.store.seenPerDay(
      dayOf(fromMs - COUNTED_DAYS * DAY_MS),
      dayOf(licence.effectiveNow()),
    );
    const daily = dailyFigures(perDay, cov.pinned, fromMs, nowMs, cov.limit);
    const idKey = view.licence_id ?? deps.fingerprint ?? 'trial';
    const head = deps.ledgerHead();
    const role =
      current?.installs.find((i) => i.fingerprint === deps.fingerprint)?.role ??
      (view.kind === 'trial' ? 'trial' : null);
    return {
      format: USAGE_FORMAT,
      licence_id: view.licence_id,
      serial: view.serial,
      fingerprint: deps.fingerprint,
      install_pub: keys.installPub,
      ...(keys.installPubP256 !== null && { install_pub_p256: keys.installPubP256 }),
      period: { from: new Date(fromMs).toISOString(), to: new Date(nowMs).toISOString() },
      generated_at: new Date(nowMs).toISOString(),
      t_eff: new Date(licence.effectiveNow()).toISOString(),
      version: deps.version,
      services: {
        limit: cov.limit,
        counted_now: cov.counted.length,
        max_daily: Math.max(daily.maxDaily, cov.counted.length),
        pinned: cov.pinned.length,
        uncovered_now: cov.uncovered.length,
        uncovered_signal_days: daily.exceededDays,
        ...(hashedIds && {
          ids: cov.counted.map((s) => hashedServiceId(idKey, s)).sort(),
        }),
      },
      installs: {
        this_role: role,
        // How an air-gapped vendor learns of offline grants and removals (licence.md §3.7).
        grants_issued: [...(deps.installs?.().grants_issued ?? [])],
        removed: [...(deps.installs?.().removed ?? [])],
      },
      check: {
        mode: view.check,
        last_confirmed_at: view.confirmed_at,
        // Checks that asked and were not confirmed (unreachable, refused answers, pins).
        failures_30d: (deps.eventsSince?.('licence.check', isoDaysBefore(nowMs, 30)) ?? []).filter(
          (e) => e.data['confirmed'] !== true,
        ).length,
      },
      clock: {
        hwm: new Date(licence.hwm()).toISOString(),
        backwards_events: state.clock_backwards,
        // Resets since the period began, so the vendor sees every one (§3.8).
        resets: (deps.eventsSince?.('licence.clock_reset', new Date(fromMs).toISOString()) ?? [])
          // After the last statement's end: a reset at that instant was already reported.
          .filter((e) => state.last_to === null || Date.parse(e.ts) > fromMs)
          .map((e) => ({
            at: e.ts,
            source: e.data['source'],
            from: e.data['from'],
            to: e.data['to'],
          }))
          .reverse(),
      },
      trial:
        view.kind === 'trial'
          ? { kind: 'local', verified: false, started_at: view.started_at }
          : (current?.trial ?? null),
      ledger: {
        size: head.seq,
        root: head.hash,
        sealed_through: head.sealed_through,
        seal_kid: kidOf(keys.signing),
      },
      prev: state.last_sha256,
    };
  }

  return {
    /** Makes, signs and records one statement; two at once chain one after the other. */
    async export(
      opts: { hashedIds: boolean },
      actor: string,
    ): Promise<{ envelope: Envelope; sha256: string }> {
      const keys = deps.keys();
      if (keys === null) throw new Error('this process holds no install key: it cannot sign');
      const alg = algOf(keys.signing);
      if (alg === null) throw new Error('the install key is neither Ed25519 nor P-256');
      const signer: Signer = { alg, kid: kidOf(keys.signing), key: keys.signing };
      // Read, sign and record in one writer job: prev and the ledger head are those of the
      // moment the statement is recorded, whatever else is exported or appended meanwhile.
      return writer.transact(() => {
        const payload = payloadOf(opts.hashedIds, keys);
        const envelope = seal(USAGE_FORMAT, payload, [signer]);
        const sha256 = sha256OfStatement(envelope);
        ledger.append({
          type: 'licence.usage_exported',
          actor,
          data: {
            sha256,
            prev: payload.prev,
            from: payload.period.from,
            to: payload.period.to,
            hashed_ids: opts.hashedIds,
          },
        });
        return { envelope, sha256 };
      });
    },
  };
}
export type Usage = ReturnType<typeof createUsage>;

/** A statement's SHA-256 (hex): over its payload bytes, which `prev` of the next one names. */
export function sha256OfStatement(envelope: Pick<Envelope, 'payload'>): string {
  return createHash('sha256').update(Buffer.from(envelope.payload, 'base64url')).digest('hex');
}

export type UsageVerdict =
  | { readonly ok: true; readonly payload: Record<string, unknown>; readonly sha256: string }
  | { readonly ok: false; readonly check: string; readonly detail: string };

/**
 * The vendor's side: verifies a statement with the install's public key from the licence
 * (`install_pub`; under FIPS the P-256 key the install registered). Every signature must hold
 * for the key given, and the statement must name that key.
 */
export function verifyUsageStatement(
  input: unknown,
  keys: { readonly installPub: string; readonly installPubP256?: KeyObject },
): UsageVerdict {
  let env: unknown = input;
  if (typeof input === 'string') {
    try {
      env = JSON.parse(input);
    } catch {
      return { ok: false, check: 'format', detail: 'not JSON' };
    }
  }
  if (
    typeof env !== 'object' ||
    env === null ||
    (env as { format?: unknown }).format !== USAGE_FORMAT ||
    typeof (env as { payload?: unknown }).payload !== 'string' ||
    !Array.isArray((env as { signatures?: unknown }).signatures)
  ) {
    return { ok: false, check: 'format', detail: `not a ${USAGE_FORMAT} envelope` };
  }
  const e = env as Envelope;
  const bytes = Buffer.from(e.payload, 'base64url');
  const ed = installKeyFromPub(keys.installPub);
  if (ed === null) return { ok: false, check: 'key', detail: 'install_pub is not an Ed25519 key' };
  if (e.signatures.length === 0) return { ok: false, check: 'signature', detail: 'unsigned' };
  const signed = signingInput(USAGE_FORMAT, bytes);
  for (const sig of e.signatures) {
    const key = sig.alg === 'ES256' ? keys.installPubP256 : ed;
    if (key === undefined || !verifyBytes(sig.alg, key, signed, sig.sig))
      return { ok: false, check: 'signature', detail: `the ${sig.alg} signature does not verify` };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, check: 'format', detail: 'the payload is not JSON' };
  }
  if (typeof payload !== 'object' || payload === null)
    return { ok: false, check: 'format', detail: 'the payload is not an object' };
  const p = payload as Record<string, unknown>;
  if (p['format'] !== USAGE_FORMAT || p['install_pub'] !== keys.installPub)
    return { ok: false, check: 'key', detail: 'the statement names another install key' };
  return { ok: true, payload: p, sha256: sha256OfStatement(e) };
}

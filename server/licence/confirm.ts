// Confirmation with the licence authority (licence.md §3.6): a svc-check/1 request with a fresh
// nonce, answered by a signed svc-confirm/1 envelope that is accepted only with that nonce,
// this fingerprint and this licence. A newer licence or revocation list in the answer goes
// through the same verifiers as a file; signed authority time earlier than the high-water mark
// resets it (§3.8). Every check is recorded (licence.check); offline never opens a socket.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import {
  postToAuthority,
  type AuthorityResponse,
  type AuthorityTransportSettings,
} from './authority-transport.js';
import { effectiveCheckMode, type CheckMode } from './check-mode.js';
import { openEnvelope } from './document/trust.js';
import type { LicenceEvents } from './licence.events.js';
import type { LicenceService, LicenceView } from './licence.service.js';

export const CHECK_FORMAT = 'svc-check/1';
export const CONFIRM_FORMAT = 'svc-confirm/1';
/** POST /v1/licence/check waits this long at most (design §3.6). */
export const CHECK_CAP_MS = 30_000;
/** Authority time further than this from effective time raises a clock warning. */
export const CLOCK_SKEW_WARN_MS = 24 * 3_600_000;

export type CheckTrigger = 'schedule' | 'api' | 'start';

const Document = Type.Union([
  Type.String({ maxLength: 256 * 1024 }),
  Type.Object({}, { additionalProperties: true }),
]);
export const ConfirmPayload = Type.Object({
  licence_id: Type.String(),
  fingerprint: Type.String(),
  nonce: Type.String(),
  status: Type.Union([
    Type.Literal('ok'),
    Type.Literal('revoked'),
    Type.Literal('superseded'),
    Type.Literal('unknown_install'),
  ]),
  authority_time: Type.String({ format: 'date-time' }),
  latest_serial: Type.Integer({ minimum: 0 }),
  licence: Type.Optional(Document),
  revocations: Type.Optional(Document),
  next_check_after_s: Type.Optional(Type.Integer({ minimum: 1 })),
});

/** What the transport needs, with the URL still optional (the licence may name one). */
export type ConfirmSettings = Omit<AuthorityTransportSettings, 'authorityUrl'> & {
  readonly check: CheckMode;
  readonly authorityUrl: string | null;
};

export interface CheckOutcome {
  /** ok, revoked, superseded, unknown_install; a transport failure (unreachable, timeout,
   * tls_error, pin_mismatch, bad_answer); bad_signature, wrong_nonce, wrong_fingerprint,
   * wrong_licence (answer ignored); offline, no_licence, no_authority (nothing asked) */
  readonly result: string;
  readonly confirmed: boolean;
  readonly detail: string;
  readonly mode: CheckMode;
  readonly latency_ms: number;
  readonly authority_time: string | null;
  readonly latest_serial: number | null;
  readonly next_check_after_s: number | null;
  /** whether a socket was opened for it */
  readonly asked: boolean;
  readonly seen?: readonly string[];
}

interface Deps {
  readonly licence: Pick<
    LicenceService,
    | 'current'
    | 'view'
    | 'knownStatements'
    | 'trustContext'
    | 'authorityTime'
    | 'effectiveNow'
    | 'offerRevocations'
    | 'installFrom'
    | 'revocations'
    | 'settle'
  >;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly settings: ConfirmSettings;
  readonly fingerprint: string | null;
  /** this install's raw Ed25519 public key, base64url */
  readonly installPub: string | null;
  readonly version: string;
  readonly log: Pick<Logger, 'warn' | 'info'>;
  /** the transport; tests pass a spy */
  readonly post?: typeof postToAuthority;
  /** services counted against the licence, when the counting is known */
  readonly servicesCounted?: () => number | null;
}

const REFUSED_AS_SIGNATURE = new Set([
  'signature',
  'unknown_key',
  'key_statement',
  'revoked_key',
  'fips',
]);

export function createConfirmation(deps: Deps) {
  const { licence, ledger, writer, settings } = deps;
  const post = deps.post ?? postToAuthority;
  /** nonces of requests sent and not yet answered: an answer must echo its own */
  const outstanding = new Set<string>();
  let running: Promise<unknown> | null = null;

  function modeNow(): CheckMode {
    return effectiveCheckMode(settings.check, licence.current()?.licence ?? null);
  }

  /** The transport settings: the variables first, then the licence's own authority. */
  function transportFor(): AuthorityTransportSettings | null {
    const own = licence.current()?.licence.authority;
    const url = settings.authorityUrl ?? own?.url ?? null;
    if (url === null) return null;
    return {
      authorityUrl: url,
      authorityPins: settings.authorityPins.length > 0 ? settings.authorityPins : (own?.pins ?? []),
      caBundle: settings.caBundle,
      httpsProxy: settings.httpsProxy,
      noProxy: settings.noProxy,
    };
  }

  async function record(trigger: CheckTrigger, o: CheckOutcome, url: string | null) {
    await writer.transact(() => {
      if (o.result === 'pin_mismatch') {
        ledger.append({
          type: 'licence.pin_mismatch',
          actor: 'system',
          data: { seen: [...(o.seen ?? [])], url: url ?? '' },
          reason: o.detail,
        });
      }
      ledger.append({
        type: 'licence.check',
        actor: 'system',
        data: {
          trigger,
          result: o.result,
          latency_ms: o.latency_ms,
          authority_time: o.authority_time,
          confirmed: o.confirmed,
          detail: o.detail,
        },
      });
    });
  }

  async function judge(
    r: AuthorityResponse,
    nonce: string,
    licenceId: string,
  ): Promise<Omit<CheckOutcome, 'mode' | 'latency_ms' | 'asked'>> {
    const none = { authority_time: null, latest_serial: null, next_check_after_s: null };
    if (!r.ok) {
      return {
        result: r.result,
        confirmed: false,
        detail: r.detail,
        ...none,
        ...(r.seen !== undefined && { seen: r.seen }),
      };
    }
    if (r.status !== 200)
      return {
        result: 'bad_answer',
        confirmed: false,
        detail: `the authority answered ${String(r.status)}: ${JSON.stringify(r.body).slice(0, 200)}`,
        ...none,
      };
    const opened = openEnvelope(
      r.body,
      { format: CONFIRM_FORMAT, usage: 'confirm', knownStatements: licence.knownStatements() },
      licence.trustContext(),
    );
    if (!opened.ok)
      return {
        result: REFUSED_AS_SIGNATURE.has(opened.check) ? 'bad_signature' : 'bad_answer',
        confirmed: false,
        detail: `the confirmation was ignored (${opened.check}): ${opened.detail}`,
        ...none,
      };
    if (!Value.Check(ConfirmPayload, opened.payload))
      return {
        result: 'bad_answer',
        confirmed: false,
        detail: 'the confirmation was ignored: its fields are not a svc-confirm/1',
        ...none,
      };
    const c = opened.payload;
    if (c.nonce !== nonce || !outstanding.has(c.nonce))
      return {
        result: 'wrong_nonce',
        confirmed: false,
        detail: 'the confirmation was ignored: it answers another request (a replay?)',
        ...none,
      };
    if (c.fingerprint !== deps.fingerprint)
      return {
        result: 'wrong_fingerprint',
        confirmed: false,
        detail: `the confirmation was ignored: it is for install ${c.fingerprint}`,
        ...none,
      };
    if (c.licence_id !== licenceId)
      return {
        result: 'wrong_licence',
        confirmed: false,
        detail: `the confirmation was ignored: it is for licence ${c.licence_id}`,
        ...none,
      };
    // Signed, fresh (nonce) and ours: its time may take the high-water mark back (§3.8).
    const notes: string[] = [];
    const at = Date.parse(c.authority_time);
    if (await licence.authorityTime(at))
      notes.push('the licence high-water mark was reset to the authority time');
    const skew = at - licence.effectiveNow();
    if (Math.abs(skew) > CLOCK_SKEW_WARN_MS) {
      const hours = Math.round(Math.abs(skew) / 3_600_000);
      notes.push(
        `this host's clock is ${String(hours)} h ${skew > 0 ? 'behind' : 'ahead of'} the authority's`,
      );
      deps.log.warn({ skew_ms: skew }, 'licence: the clock differs from the authority time');
    }
    let newer = false;
    if (c.revocations !== undefined) {
      await licence.offerRevocations(
        typeof c.revocations === 'string' ? c.revocations : JSON.stringify(c.revocations),
        'authority',
      );
    }
    if (c.licence !== undefined) {
      try {
        newer = (await licence.installFrom(c.licence, 'authority', 'system')).changed;
        if (newer) notes.push('a newer licence from the authority was installed');
      } catch (err) {
        notes.push(`the licence in the answer was refused: ${(err as Error).message}`);
      }
    }
    const confirmed = c.status === 'ok' || (c.status === 'superseded' && newer);
    return {
      result: c.status,
      confirmed,
      detail: [
        `the authority says ${c.status} (latest serial ${String(c.latest_serial)})`,
        ...notes,
      ].join('; '),
      authority_time: c.authority_time,
      latest_serial: c.latest_serial,
      next_check_after_s: c.next_check_after_s ?? null,
    };
  }

  async function once(trigger: CheckTrigger, signal?: AbortSignal): Promise<CheckOutcome | null> {
    const mode = modeNow();
    const current = licence.current();
    const base = {
      mode,
      latency_ms: 0,
      authority_time: null,
      latest_serial: null,
      next_check_after_s: null,
      confirmed: false,
      asked: false,
    };
    const skip = (result: string, detail: string): CheckOutcome | null =>
      trigger === 'api' ? { ...base, result, detail } : null;
    if (mode === 'offline')
      return skip(
        'offline',
        'SVC_LICENCE_CHECK=offline: this install never asks the licence authority',
      );
    if (current === null)
      return skip('no_licence', 'no signed licence is in force: there is nothing to confirm');
    const transport = transportFor();
    if (transport === null)
      return skip(
        'no_authority',
        'no licence authority is known: set SVC_AUTHORITY_URL (the licence names none)',
      );
    const l = current.licence;
    const nonce = randomBytes(16).toString('base64url');
    outstanding.add(nonce);
    const started = performance.now();
    try {
      const body = {
        format: CHECK_FORMAT,
        licence_id: l.licence_id,
        serial: l.serial,
        fingerprint: deps.fingerprint,
        install_pub: deps.installPub,
        version: deps.version,
        mode,
        revocations_seq: licence.revocations().seq,
        services_counted: deps.servicesCounted?.() ?? null,
        nonce,
        sent_at: new Date(licence.effectiveNow()).toISOString(),
      };
      const r = await post(transport, '/v1/check', body, signal === undefined ? {} : { signal });
      const judged = await judge(r, nonce, l.licence_id);
      return {
        ...base,
        ...judged,
        latency_ms: Math.round(performance.now() - started),
        asked: true,
      };
    } finally {
      outstanding.delete(nonce);
    }
  }

  async function run(trigger: CheckTrigger, signal?: AbortSignal): Promise<CheckOutcome | null> {
    const outcome = await once(trigger, signal);
    if (outcome === null) return null;
    await record(trigger, outcome, transportFor()?.authorityUrl ?? null);
    await licence.settle();
    return outcome;
  }

  /** One check at a time: a second waits for the first to end, then asks for itself. */
  async function serial<T>(fn: () => Promise<T>): Promise<T> {
    while (running !== null) await running.catch(() => undefined);
    const p = fn();
    running = p;
    try {
      return await p;
    } finally {
      if (running === p) running = null;
    }
  }

  return {
    mode: modeNow,
    /** Where the authority is and how to reach it, or null when none is configured. */
    transport: transportFor,
    /** The transport calls go through (tests may pass their own). */
    post,

    /** A scheduled or start check; null when there was nothing to ask (offline, no licence). */
    check: (trigger: 'schedule' | 'start', signal?: AbortSignal): Promise<CheckOutcome | null> =>
      serial(() => run(trigger, signal)),

    /** POST /v1/licence/check: one check, its exchange cut at 30 s; always recorded. */
    async checkNow(capMs = CHECK_CAP_MS): Promise<CheckOutcome & { licence: LicenceView | null }> {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), capMs);
      try {
        const o = await serial(() => run('api', controller.signal));
        if (o === null) throw new Error('a check asked through the API always has an outcome');
        return { ...o, licence: licence.view() };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
export type Confirmation = ReturnType<typeof createConfirmation>;

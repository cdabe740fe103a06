// What the install exchange reads (licence.md §3.7): the licence as the exchange counts it
// (installs removed here hold no seat), the offline grants issued here that still hold one,
// what look and vouch are told, what the caller can do now, where requests asked here stand,
// GET /v1/licence/installs and what usage statements list. Nothing here writes.
import type { KeyObject } from 'node:crypto';
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import { roleAtLeast, type Role } from '../../shared/roles.js';
import type { LicencePayload } from '../document/licence-doc.js';
import type { LicenceEvents } from '../licence.events.js';
import type { LicenceService } from '../licence.service.js';
import type { LicenceStore } from '../licence.store.js';
import { online, type AuthorityLink } from './exchange-authority.js';
import type { ExchangeStore, RequestRow } from './exchange.store.js';
import type { LookContext } from './look.js';
import { examineRequest, type FingerprintKind } from './request.js';
import type {
  Allowed,
  InstallAction,
  InstallsView,
  OutgoingRequest,
  PollState,
} from '../licence.wire.js';

export type { Allowed, PollState } from '../licence.wire.js';

export interface HistoryEvent {
  readonly seq: number;
  readonly ts: string;
  readonly type: string;
  readonly actor: string;
  readonly data: unknown;
}

/** The history GET /v1/licence/installs shows: every licence.install.* event (a type prefix). */
export const INSTALL_HISTORY_PREFIX = 'licence.install.';

export interface ExchangeDeps {
  readonly licence: Pick<
    LicenceService,
    | 'view'
    | 'current'
    | 'trustContext'
    | 'revocations'
    | 'revocationsText'
    | 'offerRevocations'
    | 'effectiveNow'
    | 'fileMounted'
    | 'installGranted'
    | 'installFrom'
  >;
  readonly licenceStore: Pick<LicenceStore, 'highestSerial' | 'vouched'>;
  readonly store: ExchangeStore;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly writer: Writer;
  /** this install's identity, null when the host gives none */
  readonly identity: { readonly fingerprint: string; readonly kind: FingerprintKind } | null;
  /** the install's Ed25519 private key, null in read-only tools */
  readonly installKey: () => KeyObject | null;
  readonly version: string;
  readonly clockToleranceS: number;
  /** the licence authority, when one may be asked (E hands vouches to it, N polls it) */
  readonly authority?: AuthorityLink;
  /** the newest licence.install.* events, newest first (the ledger reader) */
  readonly history: (limit: number) => readonly HistoryEvent[];
}

export function createExchangeReads(deps: ExchangeDeps) {
  const { licence, store } = deps;
  const now = (): number => licence.effectiveNow();

  /** The licence in force as the exchange counts it: installs removed here hold no seat. */
  function effectiveLicence(): LicencePayload | null {
    const lic = licence.current()?.licence ?? null;
    if (lic === null) return null;
    const gone = new Set(
      store
        .removalsFor(lic)
        .filter((r) => r.was === 'on_licence')
        .map((r) => r.fingerprint),
    );
    return gone.size === 0
      ? lic
      : { ...lic, installs: lic.installs.filter((i) => !gone.has(i.fingerprint)) };
  }

  /** Offline grants issued here that still hold a seat: not ended, not listed, not removed. */
  /** Offline grants issued here for `lic` that have not ended, are on no serial, and are not withdrawn. */
  function liveGrants(lic: LicencePayload): readonly RequestRow[] {
    const listed = new Set(lic.installs.map((i) => i.fingerprint));
    const withdrawn = new Set(licence.revocations().grants.map((g) => g.req_id));
    const t = now();
    return store
      .grantsIssued(lic.licence_id)
      .filter(
        (g) =>
          !listed.has(g.fingerprint) &&
          !withdrawn.has(g.req_id) &&
          g.valid_until !== null &&
          Date.parse(g.valid_until) > t,
      );
  }

  /** The live grants that still hold a seat: those not removed here (by request, any serial). */
  function outstandingGrants(lic: LicencePayload | null): readonly RequestRow[] {
    if (lic === null) return [];
    const removed = new Set(store.grantRemovals(lic.licence_id).map((r) => r.req_id));
    return liveGrants(lic).filter((g) => !removed.has(g.req_id));
  }

  /** Seats the licence's installs (less those removed here) and the grants issued here take. */
  const seatsInUse = (lic: LicencePayload | null): number =>
    (lic?.installs.length ?? 0) + outstandingGrants(lic).length;

  /** What look and vouch are told about `text`: E's licence, state and time. */
  function lookContext(text: string, onlineNow = online(deps.authority)): LookContext {
    const lic = effectiveLicence();
    // The replay check asks about this request only: a direct lookup, however many came before.
    const reqId = examineRequest(text).payload?.req_id ?? null;
    const seen = reqId !== null && (store.recordOf(reqId)?.state ?? 'open') !== 'open';
    const outstanding = outstandingGrants(lic);
    return {
      licence: lic,
      thisFingerprint: deps.identity?.fingerprint ?? '',
      online: onlineNow,
      seenReqIds: new Set(seen && reqId !== null ? [reqId] : []),
      grantsIssued: outstanding.length,
      // A removal frees the seat, not the allowance: the removed install runs on until its
      // grant ends or the vendor withdraws it.
      grantsAllowanceUsed: lic === null ? 0 : liveGrants(lic).length,
      grantedFingerprints: new Set(outstanding.map((g) => g.fingerprint)),
      now: now(),
      toleranceS: deps.clockToleranceS,
    };
  }

  /** Whether this install's licence lets it vouch, and why not. */
  function vouchable(): Allowed {
    const v = licence.view();
    const lic = licence.current()?.licence ?? null;
    if (v === null || lic === null)
      return { allowed: false, why: 'this install holds no signed licence to vouch with' };
    if (!v.on_licence || v.vouched_until !== null)
      return { allowed: false, why: 'only an install listed on the licence can vouch' };
    const self = deps.identity?.fingerprint;
    if (store.removalsFor(lic).some((r) => r.fingerprint === self))
      return { allowed: false, why: 'this install was removed from the licence here' };
    if (lic.trial?.verified === false)
      return { allowed: false, why: 'an unverified trial cannot vouch' };
    if (v.stage === 'lapsed') return { allowed: false, why: 'the licence has lapsed' };
    if (v.stage === 'not_yet') return { allowed: false, why: 'the licence is not valid yet' };
    return { allowed: true };
  }

  function askable(): Allowed {
    if (deps.identity === null)
      return { allowed: false, why: 'this host gives no install fingerprint' };
    if (licence.fileMounted() !== null)
      return {
        allowed: false,
        why: 'the licence is managed as a mounted file: the vendor’s next file must list this install',
      };
    const v = licence.view();
    if (v?.kind === 'licence' && v.on_licence && v.vouched_until === null)
      return { allowed: false, why: 'this install is already on the licence' };
    return { allowed: true };
  }

  function can(role: Role): Record<InstallAction, Allowed> {
    const admin = roleAtLeast(role, 'admin');
    const needs: Allowed = { allowed: false, why: `needs the admin role (you are ${role})` };
    const ask = askable();
    const vouch = vouchable();
    const asked = store.requests('asked').length > 0;
    const poll: Allowed = asked
      ? { allowed: true }
      : { allowed: false, why: 'this install has asked nothing yet' };
    const remove: Allowed =
      licence.current() === null
        ? { allowed: false, why: 'this install holds no signed licence' }
        : { allowed: true };
    const gate = (a: Allowed): Allowed => (!admin ? needs : a);
    return {
      ask: gate(ask),
      look: gate(vouch),
      vouch: gate(vouch),
      poll: gate(poll),
      remove: gate(remove),
    };
  }

  function pollState(r: RequestRow): PollState {
    if (r.state === 'granted') return 'granted';
    const lic = licence.current()?.licence ?? null;
    if (lic !== null && lic.installs.some((i) => i.fingerprint === r.fingerprint)) return 'granted';
    if (Date.parse(r.expires_at) <= now()) return 'expired';
    return 'open';
  }

  const outgoingOf = (r: RequestRow): OutgoingRequest => ({
    req_id: r.req_id,
    fingerprint: r.fingerprint,
    purpose: r.purpose,
    label: r.label,
    code: r.code,
    status: pollState(r),
    created_at: r.created_at,
    expires_at: r.expires_at,
    valid_until: r.valid_until,
  });

  return {
    now,
    /** The seats in use as GET /v1/status counts them (`licence.installs`). */
    installsUsed: (): number => seatsInUse(effectiveLicence()),
    /** The offline grants issued here, still in force, to an install key. */
    grantsFor: (installPub: string): readonly RequestRow[] =>
      outstandingGrants(effectiveLicence()).filter((g) => g.install_pub === installPub),
    /** The install keys that hold a seat here: listed by the licence, or granted here. */
    seatKeys: (): ReadonlySet<string> => {
      const lic = effectiveLicence();
      return new Set([
        ...(lic?.installs.map((i) => i.install_pub) ?? []),
        ...outstandingGrants(lic).flatMap((g) => (g.install_pub === null ? [] : [g.install_pub])),
      ]);
    },
    effectiveLicence,
    outstandingGrants,
    lookContext,
    vouchable,
    askable,
    can,
    pollState,
    outgoingOf,

    /** GET /v1/licence/installs. */
    view: (role: Role): InstallsView => {
      const v = licence.view();
      const lic = effectiveLicence();
      const grants = outstandingGrants(lic);
      const thisFp = deps.identity?.fingerprint ?? null;
      const listed = lic?.installs.find((i) => i.fingerprint === thisFp) ?? null;
      const vouched = v?.vouched_until ?? null;
      const grant = vouched === null ? null : deps.licenceStore.vouched();
      // This install, running under a grant: on no serial yet, but holding a seat all the same.
      const own =
        grant !== null && thisFp !== null
          ? [
              {
                fingerprint: thisFp,
                label: null,
                role: grant.role,
                added_at: grant.accepted_at,
                via: 'grant',
                valid_until: grant.valid_until,
              },
            ]
          : [];
      const history = deps
        .history(50)
        .map((e) => ({ seq: e.seq, ts: e.ts, type: e.type, actor: e.actor, data: e.data }));
      return {
        this: {
          fingerprint: thisFp,
          kind: deps.identity?.kind ?? null,
          label: listed?.label ?? null,
          role: listed?.role ?? deps.licenceStore.vouched()?.role ?? null,
          on_licence: v?.on_licence ?? false,
          vouched_until: vouched,
        },
        installs: [
          ...(lic?.installs ?? []).map((i) => ({ ...i })),
          ...grants.map((g) => ({
            fingerprint: g.fingerprint,
            label: g.label,
            role: g.role ?? 'production',
            added_at: g.updated_at,
            via: 'vouch',
            valid_until: g.valid_until,
          })),
          ...own,
        ],
        history,
        limit: {
          installs: lic?.limits.installs ?? null,
          used: seatsInUse(lic) + own.length,
        },
        candidate:
          thisFp !== null && (v === null || !v.on_licence)
            ? { fingerprint: thisFp, kind: deps.identity?.kind ?? null }
            : null,
        outgoing: store.requests('asked').map(outgoingOf),
        can: can(role),
      };
    },

    /** What usage statements list (§3.7): the grants issued here and the installs removed. */
    usageInstalls: () => {
      const lic = licence.current()?.licence ?? null;
      const live = new Set(lic === null ? [] : liveGrants(lic).map((g) => g.req_id));
      return {
        grants_issued: outstandingGrants(effectiveLicence()).map((g) => ({
          req_id: g.req_id,
          fingerprint: g.fingerprint,
          role: g.role,
          granted_at: g.updated_at,
          valid_until: g.valid_until,
        })),
        removed:
          lic === null
            ? []
            : [
                ...store.removalsFor(lic).filter((r) => r.was === 'on_licence'),
                // A removed grant is news to the vendor while it runs: it may withdraw it.
                ...store
                  .grantRemovals(lic.licence_id)
                  .filter((r) => r.req_id !== null && live.has(r.req_id)),
              ].map((r) => ({
                fingerprint: r.fingerprint,
                was: r.was,
                req_id: r.req_id,
                removed_at: r.removed_at,
              })),
      };
    },
  };
}
export type ExchangeReads = ReturnType<typeof createExchangeReads>;

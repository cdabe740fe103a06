// What E makes of a pasted install request (licence.md §3.7, step 2): the request as signed, its
// digits, every check with its result, and what a vouch would do now. Pure: the caller passes
// E's licence, its state and the time; nothing is stored (look only audits).
//
// `same_licence` when the request's licence_id is null: a new install holds no licence yet, so
// the request asks to join E's licence and the check holds ("a new install"); a request naming
// another licence than E's is for the vendor (manual), never refused outright.
import { Value } from 'typebox/value';
import { LicenceInstall, type LicencePayload } from '../document/licence-doc.js';
import { stageOf } from '../stages.js';
import { examineRequest, FINGERPRINT_KINDS, type Check, type SignedRequest } from './request.js';
import type {
  LookAnswer as WireLookAnswer,
  LookCheck as WireLookCheck,
  LookRequest,
  Would,
} from '../licence.wire.js';

/** Whether `fp` is an install fingerprint as licences list it (the house format, not §3.5's svc1-). */
export function isInstallFingerprint(fp: unknown): boolean {
  return Value.Check(LicenceInstall.properties.fingerprint, fp);
}

export const LOOK_CHECKS = [
  'armour',
  'signature',
  'format',
  'headers_match_payload',
  'not_expired',
  'not_seen_before',
  'same_licence',
  'not_already_listed',
  'fingerprint_plausible',
  'seat_available',
] as const;
export type LookCheckName = (typeof LOOK_CHECKS)[number];

/** Checks whose failure means no vouch at all (the others decide between the outcomes). */
const REFUSING: readonly LookCheckName[] = [
  'armour',
  'signature',
  'format',
  'headers_match_payload',
  'not_expired',
  'not_seen_before',
  'not_already_listed',
  'fingerprint_plausible',
];

/** One check, by its name here (the wire names it as a string). */
export interface LookCheck extends WireLookCheck {
  readonly name: LookCheckName;
}

export type { LookRequest, Would } from '../licence.wire.js';
/** How a vouch would carry the outcome out: the authority online, an offline grant, a forward. */
export type Route = 'authority' | 'grant' | 'forward' | null;

/** What look answers (the wire's LookAnswer), with each check's name from LOOK_CHECKS. */
export interface LookAnswer extends WireLookAnswer {
  readonly checks: readonly LookCheck[];
}

export interface LookContext {
  /** E's licence, or null when E holds none */
  readonly licence: LicencePayload | null;
  /** E's own fingerprint */
  readonly thisFingerprint: string;
  /** whether E can reach the authority (check mode auto or strict, and not failing) */
  readonly online: boolean;
  /** req_ids E has recorded (vouched, burned or forwarded): a request is vouched once */
  readonly seenReqIds: ReadonlySet<string>;
  /** offline grants E issued that no licence serial lists yet: they hold seats */
  readonly grantsIssued: number;
  /**
   * offline grants that count against `vouch.self_service`: those of grantsIssued and the ones
   * removed here since, until they end or a revocation list withdraws them (a removal frees the
   * seat, not the allowance). Defaults to grantsIssued.
   */
  readonly grantsAllowanceUsed?: number;
  /** installs holding a grant from here: asking again would take a second seat */
  readonly grantedFingerprints?: ReadonlySet<string>;
  /** effective time, ms */
  readonly now: number;
  readonly toleranceS: number;
}

export interface Examined {
  readonly answer: LookAnswer;
  /** the verified request, when armour, signature and format hold */
  readonly signed: SignedRequest | null;
  readonly route: Route;
}

/** "6 d 23 h", "5 h 12 min", "40 min". */
export function span(ms: number): string {
  const mins = Math.floor(Math.abs(ms) / 60_000);
  const hours = Math.floor(mins / 60);
  const days = Math.floor(hours / 24);
  if (days > 0) return `${String(days)} d ${String(hours % 24)} h`;
  if (hours > 0) return `${String(hours)} h ${String(mins % 60)} min`;
  return `${String(mins)} min`;
}

/** The seats a licence's installs and E's outstanding grants take. */
export function seatsUsed(licence: LicencePayload, grantsIssued: number): number {
  return licence.installs.length + grantsIssued;
}

/** The look answer and, for vouch, the verified request and how its outcome would travel. */
export function examine(text: unknown, ctx: LookContext): Examined {
  const x = examineRequest(text);
  const p = x.payload;
  const lic = ctx.licence;
  const unread: Check = { ok: false, detail: 'the request could not be read' };
  const c = (name: LookCheckName, check: Check): LookCheck =>
    check.detail === undefined
      ? { name, ok: check.ok }
      : { name, ok: check.ok, detail: check.detail };

  let notExpired = unread;
  let notSeen = unread;
  let sameLicence = unread;
  let notListed = unread;
  let plausible = unread;
  if (p !== null) {
    const left = Date.parse(p.expires_at) - ctx.now;
    const tol = ctx.toleranceS * 1000;
    notExpired =
      left > 0
        ? { ok: true, detail: `${span(left)} left` }
        : left > -tol
          ? { ok: true, detail: `expired ${span(left)} ago, within the clock tolerance` }
          : { ok: false, detail: `expired ${span(left)} ago` };
    notSeen = ctx.seenReqIds.has(p.req_id)
      ? { ok: false, detail: `request ${p.req_id} was already vouched or forwarded here` }
      : { ok: true };
    sameLicence =
      lic === null
        ? { ok: false, detail: 'this install holds no licence' }
        : p.licence_id === null
          ? { ok: true, detail: 'a new install: it holds no licence yet' }
          : p.licence_id === lic.licence_id
            ? { ok: true }
            : {
                ok: false,
                detail: `the request names licence ${p.licence_id}; this install holds ${lic.licence_id}`,
              };
    notListed =
      lic !== null && lic.installs.some((i) => i.fingerprint === p.fingerprint)
        ? { ok: false, detail: `${p.fingerprint} is already on the licence` }
        : ctx.grantedFingerprints?.has(p.fingerprint) === true
          ? { ok: false, detail: `${p.fingerprint} already holds a grant from this install` }
          : { ok: true };
    plausible = !isInstallFingerprint(p.fingerprint)
      ? { ok: false, detail: 'not an install fingerprint (six groups of four base32 characters)' }
      : !(FINGERPRINT_KINDS as readonly string[]).includes(p.kind)
        ? { ok: false, detail: `kind "${p.kind}" is not ${FINGERPRINT_KINDS.join(', ')}` }
        : p.fingerprint === ctx.thisFingerprint
          ? { ok: false, detail: 'it is this install’s own fingerprint' }
          : { ok: true };
  }
  let seat: Check;
  if (lic === null) seat = { ok: false, detail: 'this install holds no licence' };
  else if (lic.site !== null) seat = { ok: true, detail: `site licence (${lic.site.name})` };
  else if (lic.limits.installs === null) seat = { ok: true, detail: 'no install limit' };
  else {
    const used = seatsUsed(lic, ctx.grantsIssued);
    const detail = `${String(used)} of ${String(lic.limits.installs)} installs used`;
    seat = { ok: used < lic.limits.installs, detail };
  }

  const checks: LookCheck[] = [
    c('armour', x.armour),
    c('signature', x.signature),
    c('format', x.format),
    c('headers_match_payload', x.headers),
    c('not_expired', notExpired),
    c('not_seen_before', notSeen),
    c('same_licence', sameLicence),
    c('not_already_listed', notListed),
    c('fingerprint_plausible', plausible),
    c('seat_available', seat),
  ];
  const { would, why, route } = decide(checks, ctx, seat.ok);
  const request: LookRequest | null =
    p === null
      ? null
      : {
          req_id: p.req_id,
          fingerprint: p.fingerprint,
          kind: p.kind,
          label: p.label,
          purpose: p.purpose,
          version: p.version,
          created_at: p.created_at,
          expires_at: p.expires_at,
        };
  return {
    answer: { request, digits: x.digits, checks, would, why },
    signed: would === 'refused' ? null : x.signed,
    route,
  };
}

/** `POST /v1/licence/installs/look`'s answer (§3.7), exactly. */
export function lookAt(text: unknown, ctx: LookContext): LookAnswer {
  return examine(text, ctx).answer;
}

function decide(
  checks: readonly LookCheck[],
  ctx: LookContext,
  seatFree: boolean,
): { would: Would; why: string; route: Route } {
  const refuse = (why: string) => ({ would: 'refused' as const, why, route: null });
  const first = checks.find((k) => !k.ok && REFUSING.includes(k.name));
  if (first !== undefined) return refuse(`${first.name}: ${first.detail ?? 'failed'}`);
  const lic = ctx.licence;
  if (lic === null) return refuse('this install holds no licence to vouch with');
  if (lic.trial?.verified === false) return refuse('an unverified local trial cannot vouch');
  const stage = stageOf(lic, ctx.now).stage;
  if (stage === 'lapsed') return refuse('this install’s licence has lapsed');
  if (stage === 'not_yet') return refuse('this install’s licence is not valid yet');

  const manual = (why: string) => ({ would: 'manual' as const, why, route: 'forward' as const });
  const pending = (why: string) => ({
    would: 'pending' as const,
    why,
    route: 'authority' as const,
  });
  if (!checks.some((k) => k.name === 'same_licence' && k.ok)) {
    return manual('the request names another licence; only the vendor can add it');
  }
  if (lic.site !== null) {
    return {
      would: 'granted',
      why: 'site licence: any install may run under it',
      route: 'grant',
    };
  }
  if (stage === 'in_grace') {
    const why = 'the licence is in grace: the authority must renew it first';
    return ctx.online ? pending(why) : manual(`${why}; no route to the authority`);
  }
  if (ctx.online) {
    return seatFree
      ? {
          would: 'granted',
          why: 'a seat is free: the authority adds the install',
          route: 'authority',
        }
      : pending('install limit reached; the authority must approve');
  }
  if (!seatFree) {
    return manual('install limit reached and no route to the authority: forward it to the vendor');
  }
  const used = ctx.grantsAllowanceUsed ?? ctx.grantsIssued;
  const left = lic.vouch.self_service - used;
  if (left <= 0) {
    return manual(
      `no route to the authority and no offline grants left (${String(lic.vouch.self_service)} allowed): forward it to the vendor`,
    );
  }
  return {
    would: 'granted',
    // Said before and after the vouch alike: which of the allowed grants this one would be.
    why: `a seat is free and the licence allows offline grants: this is ${String(used + 1)} of ${String(lic.vouch.self_service)}`,
    route: 'grant',
  };
}

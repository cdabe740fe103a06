// The ask / look / vouch / poll / remove exchange between installs (licence.md §3.7), over the
// pure layer beside it (request, look, vouch, grant, forward). N asks and carries the text; E
// looks and vouches; the grant text goes back and N installs it through POST /v1/licence. Each
// step is a ledger event. A vouch decides and records in one writer job, so a request is
// vouched once however many arrive at the same moment (the replay guard), and a wrong code is
// counted before it is answered, half a second later.
import type { KeyObject } from 'node:crypto';
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../shared/errors.js';
import { roleAtLeast, type Role } from '../../shared/roles.js';
import type { InstallRole, LicencePayload } from '../document/licence-doc.js';
import type { LicenceEvents } from '../licence.events.js';
import type { LicenceService } from '../licence.service.js';
import type { LicenceStore } from '../licence.store.js';
import type { ExchangeStore, RequestRow } from './exchange.store.js';
import { acceptGrant, roleFor } from './grant.js';
import { lookAt, type LookAnswer, type LookContext } from './look.js';
import {
  buildRequest,
  examineRequest,
  type FingerprintKind,
  type Purpose,
  type RequestPayload,
} from './request.js';
import { decideVouch, MAX_CODE_MISMATCHES } from './vouch.js';

/** How long a wrong code waits before its 409 (the spec's 0.5 s). */
export const WRONG_CODE_DELAY_MS = 500;
/** Open requests one install may hold at once. */
export const MAX_OPEN_REQUESTS = 10;
export const GRANT_ARMOUR_BEGIN = '-----BEGIN SVC INSTALL GRANT-----';

export interface Allowed {
  readonly allowed: boolean;
  readonly why?: string;
}

export interface HistoryEvent {
  readonly seq: number;
  readonly ts: string;
  readonly type: string;
  readonly actor: string;
  readonly data: unknown;
}

/** The history GET /v1/licence/installs shows. */
export const INSTALL_EVENT_TYPES = [
  'licence.install.asked',
  'licence.install.looked',
  'licence.install.vouched',
  'licence.install.code_mismatch',
  'licence.install.request_burned',
  'licence.install.grant_accepted',
  'licence.install.polled',
  'licence.install.removed',
  'licence.install.moved',
] as const;

/** Where a request asked here stands (§3.7 step 4). */
export type PollState = 'open' | 'granted' | 'pending' | 'expired' | 'burned' | 'refused';

interface Deps {
  readonly licence: Pick<
    LicenceService,
    | 'view'
    | 'current'
    | 'trustContext'
    | 'revocations'
    | 'effectiveNow'
    | 'fileMounted'
    | 'installGranted'
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
  /** the newest licence.install.* events, newest first (the ledger reader) */
  readonly history: (limit: number) => readonly HistoryEvent[];
  /** waits a wrong code out; tests may shorten nothing, the delay is the contract */
  readonly sleep?: (ms: number) => Promise<void>;
}

const sleepFor = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

export function createInstallExchange(deps: Deps) {
  const { licence, store, ledger, writer } = deps;
  const sleep = deps.sleep ?? sleepFor;
  const now = (): number => licence.effectiveNow();

  /** The licence in force as the exchange counts it: installs removed here hold no seat. */
  function effectiveLicence(): LicencePayload | null {
    const lic = licence.current()?.licence ?? null;
    if (lic === null) return null;
    const gone = new Set(store.removals(lic.licence_id).map((r) => r.fingerprint));
    return gone.size === 0
      ? lic
      : { ...lic, installs: lic.installs.filter((i) => !gone.has(i.fingerprint)) };
  }

  /** Offline grants issued here that still hold a seat: not ended, not listed, not removed. */
  function outstandingGrants(lic: LicencePayload | null): readonly RequestRow[] {
    if (lic === null) return [];
    const listed = new Set(lic.installs.map((i) => i.fingerprint));
    const gone = new Set(store.removals(lic.licence_id).map((r) => r.fingerprint));
    const t = now();
    return store
      .grantsIssued(lic.licence_id)
      .filter(
        (g) =>
          !listed.has(g.fingerprint) &&
          !gone.has(g.fingerprint) &&
          g.valid_until !== null &&
          Date.parse(g.valid_until) > t,
      );
  }

  function lookContext(): LookContext {
    const lic = effectiveLicence();
    return {
      licence: lic,
      thisFingerprint: deps.identity?.fingerprint ?? '',
      // Vouching through the authority online is not built yet: E decides offline (a grant
      // or a forward bundle), which every install can do (docs/decisions.md).
      online: false,
      seenReqIds: new Set(
        store
          .requests('received')
          .filter((r) => r.state !== 'open')
          .map((r) => r.req_id),
      ),
      grantsIssued: outstandingGrants(lic).length,
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

  function can(role: Role): Record<'ask' | 'look' | 'vouch' | 'poll' | 'remove', Allowed> {
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

  const outgoingOf = (r: RequestRow) => ({
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
    /** GET /v1/licence/installs. */
    view(role: Role) {
      const v = licence.view();
      const lic = effectiveLicence();
      const grants = outstandingGrants(lic);
      const thisFp = deps.identity?.fingerprint ?? null;
      const listed = lic?.installs.find((i) => i.fingerprint === thisFp) ?? null;
      const vouched = licence.view()?.vouched_until ?? null;
      const history = deps
        .history(50)
        .map((e) => ({ seq: e.seq, ts: e.ts, type: e.type, actor: e.actor, data: e.data }));
      return {
        this: {
          fingerprint: thisFp,
          kind: deps.identity?.kind ?? null,
          label: listed?.label ?? null,
          role: listed?.role ?? licenceStoreRole(),
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
        ],
        history,
        limit: {
          installs: lic?.limits.installs ?? null,
          used: (lic?.installs.length ?? 0) + grants.length,
        },
        candidate:
          thisFp !== null && (v === null || !v.on_licence)
            ? { fingerprint: thisFp, kind: deps.identity?.kind ?? null }
            : null,
        outgoing: store.requests('asked').map(outgoingOf),
        can: can(role),
      };
    },

    can,

    /** POST /v1/licence/installs/ask, on N. */
    async ask(input: { purpose: Purpose; label?: string }, actor: string) {
      const why = askable();
      if (!why.allowed) throw new ConflictError('cannot_ask', why.why ?? 'cannot ask');
      const key = deps.installKey();
      const id = deps.identity;
      if (key === null || id === null)
        throw new ConflictError('cannot_ask', 'this process holds no install key');
      const open = store.requests('asked').filter((r) => pollState(r) === 'open').length;
      if (open >= MAX_OPEN_REQUESTS)
        throw new ConflictError(
          'too_many_requests',
          `${String(open)} requests are open here (at most ${String(MAX_OPEN_REQUESTS)}): wait for one to be answered or to expire`,
        );
      const built = buildRequest({
        installKey: key,
        fingerprint: id.fingerprint,
        kind: id.kind,
        purpose: input.purpose,
        label: input.label ?? null,
        version: deps.version,
        licenceId: licence.current()?.licence.licence_id ?? null,
        now: now(),
      });
      const p = built.payload;
      await writer.transact(() => {
        ledger.append({
          type: 'licence.install.asked',
          actor,
          data: {
            req_id: p.req_id,
            purpose: p.purpose,
            label: p.label,
            fingerprint: p.fingerprint,
            nonce: p.nonce,
            install_pub: p.install_pub,
            licence_id: p.licence_id,
            code: built.code,
            expires_at: p.expires_at,
          },
        });
      });
      return {
        req_id: p.req_id,
        code: built.code,
        text: built.text,
        fingerprint: p.fingerprint,
        purpose: p.purpose,
        expires_at: p.expires_at,
      };
    },

    /** POST /v1/licence/installs/look, on E: changes nothing but the audit. */
    async look(text: string, actor: string): Promise<LookAnswer> {
      const answer = lookAt(text, lookContext());
      await writer.transact(() => {
        ledger.append({
          type: 'licence.install.looked',
          actor,
          data: {
            req_id: answer.request?.req_id ?? null,
            fingerprint: answer.request?.fingerprint ?? null,
            result: answer.would,
            why: answer.why,
          },
        });
      });
      return answer;
    },

    /** POST /v1/licence/installs/vouch, on E. */
    async vouch(input: { text: string; code: string; role?: InstallRole }, actor: string) {
      const able = vouchable();
      if (!able.allowed) throw new ConflictError('cannot_vouch', able.why ?? 'cannot vouch');
      const key = deps.installKey();
      const envelope = licence.current()?.envelope ?? null;
      if (key === null || envelope === null)
        throw new ConflictError('cannot_vouch', 'this process holds no install key or licence');
      // Decide and record in one writer job: the record is the replay guard.
      const result = await writer.transact(() => {
        const ctx = lookContext();
        const r = decideVouch(input.text, input.code, {
          ...ctx,
          recordOf: (id) => store.recordOf(id),
          installKey: key,
          envelope,
          revocationsSeq: licence.revocations().seq,
          ...(input.role !== undefined && { role: input.role }),
        });
        appendOutcome(r, examineRequest(input.text).payload, ctx, actor);
        return r;
      });
      switch (result.outcome) {
        case 'already_vouched':
          throw new ConflictError(
            'already_vouched',
            `request ${result.req_id} was already vouched for here: a text is vouched once`,
            { req_id: result.req_id },
          );
        case 'request_burned':
          throw new ConflictError(
            'request_burned',
            `request ${result.req_id} was burned by ${String(MAX_CODE_MISMATCHES)} wrong codes: the new install must ask again`,
            { req_id: result.req_id },
          );
        case 'code_mismatch':
          await sleep(WRONG_CODE_DELAY_MS);
          if (result.burned)
            throw new ConflictError(
              'request_burned',
              `the code does not match, for the ${String(MAX_CODE_MISMATCHES)}th time: request ${result.req_id} is burned and the new install must ask again`,
              { req_id: result.req_id, attempt: result.attempt },
            );
          throw new ConflictError(
            'code_mismatch',
            `the code does not match the one this text computes (attempt ${String(result.attempt)} of ${String(MAX_CODE_MISMATCHES)}): read the code again from the new install's screen`,
            {
              req_id: result.req_id,
              attempt: result.attempt,
              left: MAX_CODE_MISMATCHES - result.attempt,
            },
          );
        case 'refused': {
          const failing = result.look.checks.find((c) => !c.ok && c.name !== 'seat_available');
          throw new InvalidInputError('request_refused', `the request was refused: ${result.why}`, {
            field: 'text',
            check: failing?.name ?? null,
            look: result.look,
          });
        }
        case 'granted':
          return {
            result: 'granted' as const,
            why: result.why,
            req_id: result.request.payload.req_id,
            fingerprint: result.grant.fingerprint,
            role: result.grant.role,
            valid_until: result.grant.valid_until,
            text: result.text,
          };
        case 'manual':
          return {
            result: 'manual' as const,
            why: result.why,
            req_id: result.request.payload.req_id,
            fingerprint: result.request.payload.fingerprint,
            text: result.text,
          };
        case 'authority':
          // lookContext() says offline, so decideVouch never routes here (see online above).
          throw new Error('vouch routed to the authority, which the exchange does not call');
      }
    },

    /** POST /v1/licence/installs/poll, on N: where the requests asked here stand. */
    async poll(actor: string) {
      const rows = store.requests('asked');
      if (rows.length === 0)
        throw new NotFoundError('no_requests', 'this install has asked nothing');
      const requests = rows.map(outgoingOf);
      const changed = requests.filter(
        (r, i) => (rows[i]?.polled_state ?? 'open') !== r.status || rows[i]?.polled_state === null,
      );
      if (changed.length > 0)
        await writer.transact(() => {
          for (const r of changed)
            ledger.append({
              type: 'licence.install.polled',
              actor,
              data: { req_id: r.req_id, state: r.status, from: 'local' },
            });
        });
      const open = requests.some((r) => r.status === 'open');
      return {
        /** the newest request's state */
        state: requests[0]?.status ?? 'open',
        requests,
        why: open
          ? 'no route to the licence authority from here: paste the grant or licence the existing install gave you on the Licence page (POST /v1/licence)'
          : null,
      };
    },

    /** POST /v1/licence/installs/remove, on E. */
    async remove(fingerprint: string, actor: string) {
      const lic = effectiveLicence();
      if (lic === null)
        throw new ConflictError('no_licence', 'this install holds no signed licence');
      const listed = lic.installs.find((i) => i.fingerprint === fingerprint);
      const granted = outstandingGrants(lic).find((g) => g.fingerprint === fingerprint);
      if (listed === undefined && granted === undefined)
        throw new NotFoundError(
          'not_on_licence',
          `${fingerprint} is neither on licence ${lic.licence_id} nor holding a grant from here`,
          { field: 'fingerprint' },
        );
      const production = lic.installs.filter((i) => i.role === 'production');
      if (
        fingerprint === deps.identity?.fingerprint &&
        listed?.role === 'production' &&
        production.length <= 1
      )
        throw new ConflictError(
          'last_production',
          'this install is the only production install on the licence: it cannot remove itself',
        );
      await writer.transact(() => {
        ledger.append({
          type: 'licence.install.removed',
          actor,
          data: {
            fingerprint,
            licence_id: lic.licence_id,
            was: listed !== undefined ? 'on_licence' : 'grant',
          },
          reason:
            'the seat is free here; the removal is listed in usage statements until a serial without it arrives',
        });
      });
      const after = effectiveLicence();
      return {
        removed: fingerprint,
        limit: {
          installs: after?.limits.installs ?? null,
          used: (after?.installs.length ?? 0) + outstandingGrants(after).length,
        },
      };
    },

    /**
     * A grant text pasted on N (POST /v1/licence): checked against N's open requests, then the
     * licence it carries installed with it. 400 naming the condition that failed.
     */
    async acceptGrant(text: string, actor: string) {
      const t = now();
      const open = store
        .requests('asked')
        .filter((r) => r.state === 'open' && Date.parse(r.expires_at) > t)
        .flatMap((r) =>
          r.nonce === null || r.install_pub === null
            ? []
            : [
                {
                  req_id: r.req_id,
                  nonce: r.nonce,
                  install_pub: r.install_pub,
                  fingerprint: r.fingerprint,
                },
              ],
        );
      const a = acceptGrant(text, {
        trust: licence.trustContext(),
        openRequests: open,
        highestSerial: (id) => deps.licenceStore.highestSerial(id) ?? 0,
        revocations: licence.revocations(),
        removedInstalls: new Set(store.removals().map((r) => r.fingerprint)),
        now: t,
      });
      if (!a.ok) {
        throw new InvalidInputError(
          'grant_refused',
          `the grant was refused (${a.reason}): ${a.detail}`,
          { field: 'licence', check: a.reason },
        );
      }
      const g = a.grant;
      return licence.installGranted(
        JSON.stringify(a.licence.envelope),
        {
          req_id: g.req_id,
          licence_id: g.licence_id,
          licence_serial: g.licence_serial,
          granted_by: g.granted_by,
          role: g.role,
          valid_until: g.valid_until,
        },
        actor,
      );
    },

    /** What usage statements list (§3.7): the grants issued here and the installs removed. */
    usageInstalls() {
      const lic = licence.current()?.licence ?? null;
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
            : store.removals(lic.licence_id).map((r) => ({
                fingerprint: r.fingerprint,
                was: r.was,
                removed_at: r.removed_at,
              })),
      };
    },
  };

  function licenceStoreRole(): string | null {
    return deps.licenceStore.vouched()?.role ?? null;
  }

  /** The events a vouch's outcome records (inside the deciding writer job). */
  function appendOutcome(
    r: ReturnType<typeof decideVouch>,
    asked: RequestPayload | null,
    ctx: LookContext,
    actor: string,
  ): void {
    const lic = ctx.licence;
    switch (r.outcome) {
      case 'code_mismatch': {
        const fingerprint = asked?.fingerprint ?? '';
        ledger.append({
          type: 'licence.install.code_mismatch',
          actor,
          data: {
            req_id: r.req_id,
            fingerprint,
            attempt: r.attempt,
            expires_at: asked?.expires_at ?? new Date(ctx.now).toISOString(),
          },
          reason: 'the typed code is not the one the request text computes',
        });
        if (r.burned)
          ledger.append({
            type: 'licence.install.request_burned',
            actor,
            data: { req_id: r.req_id, fingerprint, attempts: r.attempt },
            reason: `${String(MAX_CODE_MISMATCHES)} wrong codes: the new install must ask again`,
          });
        return;
      }
      case 'granted':
      case 'manual': {
        const p = r.request.payload;
        ledger.append({
          type: 'licence.install.vouched',
          actor,
          data: {
            req_id: p.req_id,
            fingerprint: p.fingerprint,
            purpose: p.purpose,
            label: p.label,
            result: r.outcome,
            why: r.why,
            via: r.outcome === 'granted' ? 'grant' : 'forward',
            role: r.outcome === 'granted' ? r.grant.role : roleFor(p.purpose),
            licence_id: lic?.licence_id ?? '',
            valid_until: r.outcome === 'granted' ? r.grant.valid_until : null,
            expires_at: p.expires_at,
          },
        });
        return;
      }
      default:
        return;
    }
  }
}
export type InstallExchange = ReturnType<typeof createInstallExchange>;

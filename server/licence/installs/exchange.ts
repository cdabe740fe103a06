// The ask / look / vouch / poll / remove exchange between installs (licence.md §3.7), over the
// pure layer beside it (request, look, vouch, grant, forward). N asks and carries the text; E
// looks and vouches; the grant text goes back and N installs it through POST /v1/licence. Each
// step is a ledger event. A vouch decides and records in one writer job, so a request is
// vouched once however many arrive at the same moment (the replay guard), and a wrong code is
// counted before it is answered, half a second later.
import { ConflictError, InvalidInputError, NotFoundError } from '../../shared/errors.js';
import type { InstallRole, LicencePayload } from '../document/licence-doc.js';
import { createExchangeReads, type ExchangeDeps, type PollState } from './exchange-state.js';
import { acceptGrant, grantReqId, grantRevocations, roleFor } from './grant.js';
import { lookAt, type LookAnswer, type LookContext } from './look.js';
import { buildRequest, examineRequest, type Purpose, type RequestPayload } from './request.js';
import { decideVouch, MAX_CODE_MISMATCHES } from './vouch.js';
import { vouchAnswer } from './vouch-answer.js';
import type { AskAnswer, PollAnswer, RemoveAnswer, VouchAnswer } from '../licence.wire.js';
import { buildForward } from './forward.js';
import {
  forwardToAuthority,
  online,
  pollAuthority,
  removeAtAuthority,
} from './exchange-authority.js';

/** How long a wrong code waits before its 409 (the spec's 0.5 s). */
export const WRONG_CODE_DELAY_MS = 500;
/** Open requests one install may hold at once. */
export const MAX_OPEN_REQUESTS = 10;
export const GRANT_ARMOUR_BEGIN = '-----BEGIN SVC INSTALL GRANT-----';

const sleepFor = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

export function createInstallExchange(deps: ExchangeDeps) {
  const { licence, store, ledger, writer } = deps;
  const reads = createExchangeReads(deps);
  const { now, effectiveLicence, outstandingGrants, lookContext, vouchable, askable, pollState } =
    reads;
  const { outgoingOf } = reads;

  return {
    view: reads.view,
    can: reads.can,
    usageInstalls: reads.usageInstalls,
    installsUsed: reads.installsUsed,
    seatKeys: reads.seatKeys,
    grantsFor: reads.grantsFor,
    vouchable,

    /** POST /v1/licence/installs/ask, on N. */
    async ask(input: { purpose: Purpose; label?: string }, actor: string): Promise<AskAnswer> {
      const why = askable();
      if (!why.allowed) throw new ConflictError('cannot_ask', why.why ?? 'cannot ask');
      const key = deps.installKey();
      const id = deps.identity;
      if (key === null || id === null)
        throw new ConflictError('cannot_ask', 'this process holds no install key');
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
      // Counted in the job that records: two asks at once cannot both take the last place.
      await writer.transact(() => {
        const open = store.requests('asked').filter((r) => pollState(r) === 'open').length;
        if (open >= MAX_OPEN_REQUESTS)
          throw new ConflictError(
            'too_many_requests',
            `${String(open)} requests are open here (at most ${String(MAX_OPEN_REQUESTS)}): wait for one to be answered or to expire`,
          );
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
      const answer = lookAt(text, lookContext(text));
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
    async vouch(
      input: { text: string; code: string; role?: InstallRole },
      actor: string,
    ): Promise<VouchAnswer> {
      const able = vouchable();
      if (!able.allowed) throw new ConflictError('cannot_vouch', able.why ?? 'cannot vouch');
      const key = deps.installKey();
      const envelope = licence.current()?.envelope ?? null;
      if (key === null || envelope === null)
        throw new ConflictError('cannot_vouch', 'this process holds no install key or licence');
      const decide = (onlineNow: boolean, reopen: string | null) =>
        writer.transact(() => {
          const ctx = lookContext(input.text, onlineNow);
          const r = decideVouch(input.text, input.code, {
            ...ctx,
            // A request sent to an authority that could not be reached is decided again here.
            recordOf: (id) => (id === reopen ? null : store.recordOf(id)),
            installKey: key,
            envelope,
            revocationsSeq: licence.revocations().seq,
            revocations: licence.revocationsText(),
            ...(input.role !== undefined && { role: input.role }),
          });
          appendOutcome(r, examineRequest(input.text).payload, ctx, actor);
          return r;
        });
      // Decide and record in one writer job: the record is the replay guard.
      const result = await decide(online(deps.authority), null);
      if (result.outcome === 'code_mismatch') await sleepFor(WRONG_CODE_DELAY_MS);
      if (result.outcome !== 'authority') return vouchAnswer(result);
      const p = result.request.payload;
      const lic = effectiveLicence();
      const link = deps.authority;
      const verdict =
        lic === null || link === undefined
          ? ({ kind: 'unreachable', why: 'no licence authority' } as const)
          : await forwardToAuthority(
              link,
              buildForward({
                request: result.request,
                licence: lic,
                installKey: key,
                thisFingerprint: deps.identity?.fingerprint ?? '',
                why: result.why,
                now: now(),
              }).text,
            );
      const refusedBy = async (why: string): Promise<never> => {
        await recordAuthority(p, 'refused', why, actor);
        throw new ConflictError('authority_refused', `the licence authority refused: ${why}`, {
          req_id: p.req_id,
        });
      };
      if (verdict.kind === 'granted') {
        // The next serial lists N (and E): installed here, and the text N installs.
        try {
          await licence.installFrom(verdict.licence, 'authority', actor);
        } catch (err) {
          return refusedBy(`its new serial was refused here (${(err as Error).message})`);
        }
        await recordAuthority(p, 'granted', verdict.why, actor);
        return {
          result: 'granted' as const,
          why: verdict.why,
          req_id: p.req_id,
          fingerprint: p.fingerprint,
          role: roleFor(p.purpose),
          valid_until: null,
          text: verdict.licence,
        };
      }
      if (verdict.kind === 'pending') {
        await recordAuthority(p, 'pending', verdict.why, actor);
        return {
          result: 'pending' as const,
          why: `${verdict.why}; this install's next check with the authority brings the new serial`,
          req_id: p.req_id,
          fingerprint: p.fingerprint,
        };
      }
      if (verdict.kind === 'refused' || verdict.kind === 'unknown') return refusedBy(verdict.why);
      const offline = await decide(false, p.req_id);
      if (offline.outcome === 'authority') throw new Error('decided offline, routed online');
      return vouchAnswer(offline, `the licence authority could not be reached (${verdict.why}); `);
    },

    /**
     * POST /v1/licence/installs/poll, on N: where the requests asked here stand. With a route to
     * the authority, each open request is asked there; a serial listing this install is
     * installed at once. polled is recorded when a request's state changes.
     */
    async poll(actor: string): Promise<PollAnswer> {
      if (store.requests('asked').length === 0)
        throw new NotFoundError('no_requests', 'this install has asked nothing');
      const link = deps.authority;
      const key = deps.installKey();
      const asked = online(link) && link !== undefined && key !== null;
      const why = new Map<string, string>();
      const said = new Map<string, PollState>();
      let unreachable: string | null = null;
      for (const r of store.requests('asked')) {
        if (!asked || pollState(r) !== 'open' || r.nonce === null || r.install_pub === null)
          continue;
        const v = await pollAuthority(link, key, {
          req_id: r.req_id,
          fingerprint: r.fingerprint,
          install_pub: r.install_pub,
          nonce: r.nonce,
        });
        if (v.kind === 'granted') {
          try {
            await licence.installFrom(v.licence, 'authority', actor);
            why.set(r.req_id, v.why);
          } catch (err) {
            // One refused serial says so for its request; the others are still asked.
            why.set(
              r.req_id,
              `the authority's serial was refused here (${(err as Error).message})`,
            );
          }
        } else if (v.kind === 'pending') {
          said.set(r.req_id, 'pending');
          why.set(r.req_id, v.why);
        } else if (v.kind === 'unreachable') {
          unreachable = v.why;
          break;
        }
      }
      const rows = store.requests('asked');
      const requests = rows.map((r) => {
        const o = outgoingOf(r);
        const status = said.get(r.req_id) ?? o.status;
        return { ...o, status, why: why.get(r.req_id) ?? null };
      });
      const changed = requests.filter((r, i) => rows[i]?.polled_state !== r.status);
      const from = asked && unreachable === null ? 'authority' : 'local';
      if (changed.length > 0)
        await writer.transact(() => {
          for (const r of changed)
            ledger.append({
              type: 'licence.install.polled',
              actor,
              data: { req_id: r.req_id, state: r.status, from },
            });
        });
      const open = requests.some((r) => r.status === 'open' || r.status === 'pending');
      return {
        /** the newest request's state */
        state: requests[0]?.status ?? 'open',
        requests,
        why: !open
          ? null
          : unreachable !== null
            ? `the licence authority could not be reached (${unreachable}): paste the grant or licence the existing install gave you on the Licence page (POST /v1/licence)`
            : asked
              ? 'the licence authority has not added this install yet'
              : 'no route to the licence authority from here: paste the grant or licence the existing install gave you on the Licence page (POST /v1/licence)',
      };
    },

    /** POST /v1/licence/installs/remove, on E. */
    async remove(fingerprint: string, actor: string): Promise<RemoveAnswer> {
      const lic = effectiveLicence();
      if (lic === null)
        throw new ConflictError('no_licence', 'this install holds no signed licence');
      // Checked in the job that records: two removals at once record one.
      await writer.transact(() => {
        const now = effectiveLicence() ?? lic;
        const listed = now.installs.find((i) => i.fingerprint === fingerprint);
        const granted = outstandingGrants(now).find((g) => g.fingerprint === fingerprint);
        if (listed === undefined && granted === undefined)
          throw new NotFoundError(
            'not_on_licence',
            `${fingerprint} is neither on licence ${now.licence_id} nor holding a grant from here`,
            { field: 'fingerprint' },
          );
        const production = now.installs.filter((i) => i.role === 'production');
        if (
          fingerprint === deps.identity?.fingerprint &&
          listed?.role === 'production' &&
          production.length <= 1
        )
          throw new ConflictError(
            'last_production',
            'this install is the only production install on the licence: it cannot remove itself',
          );
        ledger.append({
          type: 'licence.install.removed',
          actor,
          data: {
            fingerprint,
            licence_id: now.licence_id,
            licence_serial: now.serial,
            was: listed !== undefined ? 'on_licence' : 'grant',
            req_id: listed !== undefined ? null : (granted?.req_id ?? null),
          },
          reason:
            'the seat is free here; the removal is listed in usage statements until a serial without it arrives',
        });
      });
      const authority = await removalToAuthority(lic, fingerprint, actor);
      return {
        removed: fingerprint,
        limit: {
          installs: effectiveLicence()?.limits.installs ?? null,
          used: reads.installsUsed(),
        },
        authority,
      };
    },

    /**
     * A grant text pasted on N (POST /v1/licence): checked against N's open requests, then the
     * licence it carries installed with it. 400 naming the condition that failed.
     */
    async acceptGrant(text: string, opts: { actor: string; acknowledge?: boolean }) {
      const { actor } = opts;
      // The same grant pasted again: it is in force already, nothing changes.
      const held = deps.licenceStore.vouched();
      const self = deps.identity?.fingerprint ?? null;
      if (held !== null && held.fingerprint === self && held.req_id === grantReqId(text))
        return { changed: false };
      // E's revocation list first: the grant is judged with the newest list either side holds.
      const carried = grantRevocations(text);
      if (carried !== null) await licence.offerRevocations(carried, 'grant');
      const t = now();
      // Requests this host asked and still waiting: a copy of the data folder on another host
      // holds the same rows, but not this fingerprint.
      const open = store
        .requests('asked')
        .filter((r) => r.fingerprint === self && pollState(r) === 'open')
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
        removedInstalls: new Set(
          store
            .removals()
            .filter((r) => r.was === 'on_licence')
            .map((r) => r.fingerprint),
        ),
        now: t,
      });
      if (!a.ok) {
        await writer.transact(() => {
          ledger.append({
            type: 'licence.refused',
            actor,
            data: { source: 'grant', check: a.reason, detail: a.detail, sha256: null },
            reason: a.detail,
          });
        });
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
          fingerprint: g.fingerprint,
          licence_id: g.licence_id,
          licence_serial: g.licence_serial,
          granted_by: g.granted_by,
          role: g.role,
          valid_until: g.valid_until,
        },
        { actor, ...(opts.acknowledge !== undefined && { acknowledge: opts.acknowledge }) },
      );
    },
  };

  /**
   * A removal told to the authority when there is a route: it answers the next serial without
   * the install, installed here at once. Otherwise the removal waits in usage statements.
   */
  async function removalToAuthority(
    lic: LicencePayload,
    fingerprint: string,
    actor: string,
  ): Promise<{
    result: 'serial' | 'not_listed' | 'refused' | 'unreachable' | 'offline';
    why: string;
  }> {
    const link = deps.authority;
    const key = deps.installKey();
    const self = deps.identity?.fingerprint;
    if (!online(link) || link === undefined || key === null || self === undefined)
      return {
        result: 'offline',
        why: 'no route to the licence authority: the removal is listed in usage statements until a serial without the install arrives',
      };
    const v = await removeAtAuthority(link, key, {
      licence_id: lic.licence_id,
      licence_serial: lic.serial,
      fingerprint,
      removed_by: self,
      removed_at: new Date(now()).toISOString(),
    });
    if (v.kind === 'granted') {
      try {
        await licence.installFrom(v.licence, 'authority', actor);
      } catch (err) {
        return {
          result: 'refused',
          why: `the authority's serial was refused here (${(err as Error).message})`,
        };
      }
      return { result: 'serial', why: v.why };
    }
    if (v.kind === 'refused') return { result: 'refused', why: v.why };
    if (v.kind === 'unreachable')
      return {
        result: 'unreachable',
        why: `the licence authority could not be reached (${v.why}): the removal is listed in usage statements until a serial without the install arrives`,
      };
    return { result: 'not_listed', why: v.why };
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
      case 'manual':
        appendVouched(r.request.payload, {
          result: r.outcome,
          why: r.why,
          via: r.outcome === 'granted' ? 'grant' : 'forward',
          role: r.outcome === 'granted' ? r.grant.role : null,
          validUntil: r.outcome === 'granted' ? r.grant.valid_until : null,
          licenceId: lic?.licence_id ?? '',
          actor,
        });
        return;
      // Recorded before the authority is asked: the record is the replay guard.
      case 'authority':
        appendVouched(r.request.payload, {
          result: 'pending',
          why: `sent to the licence authority: ${r.why}`,
          via: 'authority',
          role: null,
          validUntil: null,
          licenceId: lic?.licence_id ?? '',
          actor,
        });
        return;
      default:
        return;
    }
  }

  function appendVouched(
    p: RequestPayload,
    o: {
      result: 'granted' | 'pending' | 'manual' | 'refused';
      why: string;
      via: 'grant' | 'forward' | 'authority';
      role: string | null;
      validUntil: string | null;
      licenceId: string;
      actor: string;
    },
  ): void {
    ledger.append({
      type: 'licence.install.vouched',
      actor: o.actor,
      data: {
        req_id: p.req_id,
        fingerprint: p.fingerprint,
        purpose: p.purpose,
        label: p.label,
        result: o.result,
        why: o.why,
        via: o.via,
        role: o.role ?? roleFor(p.purpose),
        licence_id: o.licenceId,
        valid_until: o.validUntil,
        expires_at: p.expires_at,
        install_pub: p.install_pub,
      },
    });
  }

  /** What the authority answered a vouch sent to it. */
  function recordAuthority(
    p: RequestPayload,
    result: 'granted' | 'pending' | 'refused',
    why: string,
    actor: string,
  ): Promise<void> {
    return writer.transact(() => {
      appendVouched(p, {
        result,
        why,
        via: 'authority',
        role: null,
        validUntil: null,
        licenceId: licence.current()?.licence.licence_id ?? '',
        actor,
      });
    });
  }
}
export type InstallExchange = ReturnType<typeof createInstallExchange>;

// Approval requests: open (inside the caller's writer transaction), approve, deny, withdraw,
// expire, the list with facets, and the signed channel links. The two-person rule: the
// requester never approves their own request, and each approver counts once toward the
// quorum, by id, never by name: a person by their id, the admin token as `admin-token`
// whatever `by` says, a link as the person it was sent to (a link sent to several people
// counts as `channel:<connector>`, and only where one approver is enough). One deny ends it.
// Handlers registered with onDecided / onOpened run after the commit that ended / opened it.
import { createHash, randomBytes } from 'node:crypto';
import type { LinkCheck, LinkSigner } from '../channels/index.js';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
} from '../shared/errors.js';
import { roleAtLeast } from '../shared/roles.js';
import { actorId, type Actor } from '../shared/types.js';
import type {
  ApprovalList,
  ApprovalListQuery,
  LinkPreview,
  LinkUsed,
} from './approvals.schemas.js';
import {
  APPROVAL_CLOSED,
  APPROVAL_DECIDED,
  APPROVAL_REQUESTED,
  APPROVAL_SENT,
  FACETS,
  KINDS,
  RISKS,
  STATUSES,
  type ApprovalFacet,
  type ApprovalSortField,
  type ApprovalsStore,
} from './approvals.store.js';
import {
  approverRules,
  approversOf,
  displayName,
  type Approver,
  type ApproverPerson,
} from './approvers.js';
import type {
  ApprovalDecidedHandler,
  ApprovalKind,
  ApprovalRequest,
  ApprovalStatus,
  OpenApproval,
} from './types.js';
import type { ApprovalEvents } from './approvals.events.js';

/** Default time a request stays open: 24 h. */
export const DEFAULT_TTL_S = 86_400;
/** The longest a request may stay open: 30 days. */
export const MAX_TTL_S = 30 * 86_400;

/** What a channel was sent, recorded as approval.sent. */
export interface SentRecord {
  readonly request_id: string;
  readonly channel: string;
  readonly step: number;
  readonly ok: boolean;
  readonly detail: string;
  /** token_ids of the links sent (never the tokens) */
  readonly link_ids?: readonly string[];
}

interface Deps {
  readonly store: ApprovalsStore;
  readonly ledger: DomainLedger<ApprovalEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  /** The signed single-use links (server/channels): needed for the link endpoints. */
  readonly links?: LinkSigner;
  readonly newId?: (nowIso: string) => string;
  readonly log?: { error(obj: object, msg: string): void };
  /**
   * Everyone who may sign in (peopleStore.users()): approvers are checked against who they
   * are now. Absent (unit tests): ids are taken as given.
   */
  readonly people?: () => readonly ApproverPerson[];
  /** One person by id, through the people store's index (the list is read otherwise). */
  readonly personById?: (id: string) => ApproverPerson | null;
}

/** `ap-<UTC timestamp>-<hex>`, e.g. ap-20261122T101500Z-3fa9c1. */
export function newRequestId(nowIso: string): string {
  const stamp = nowIso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `ap-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** Hex SHA-256 of canonicalJson(subject): what an approval binds to. */
export function subjectSha256(subject: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonicalJson(subject), 'utf8').digest('hex');
}

const conflict = (why: string, message: string): ConflictError =>
  new ConflictError(why, message, { why });

const viaOf = (actor: Actor) => (actor.via !== undefined ? { acting_via: actor.via } : {});

/** A date is midnight UTC; a time without a zone is UTC. */
function instant(value: string, field: string): string {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? `${value}T00:00:00Z`
    : /(Z|[+-]\d{2}:?\d{2})$/.test(value)
      ? value
      : `${value}Z`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms))
    throw new InvalidInputError(
      'invalid_input',
      `${field} ${JSON.stringify(value)} is not a date`,
      {
        field,
      },
    );
  return new Date(ms).toISOString();
}

const FACET_VALUES: Record<ApprovalFacet, readonly string[]> = {
  status: STATUSES,
  risk: RISKS,
  kind: KINDS,
};

function csv(field: ApprovalFacet, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = [...new Set(value.split(',').map((v) => v.trim()))].filter((v) => v !== '');
  if (values.length === 0) return undefined;
  const allowed = FACET_VALUES[field];
  for (const v of values) {
    if (!allowed.includes(v)) {
      throw new InvalidInputError(
        'invalid_input',
        `${field} ${JSON.stringify(v)} is not a ${field}; use a comma-separated list of ${allowed.join(', ')}`,
        { field },
      );
    }
  }
  return values;
}

/** Checks what a caller opens; a bad field is a programming error of the caller, named. */
function checkOpen(o: OpenApproval): void {
  const bad = (field: string, why: string): never => {
    throw new InvalidInputError('invalid_input', `${field} ${why}`, { field });
  };
  if (!(KINDS as readonly string[]).includes(o.kind)) bad('kind', 'is not a kind of request');
  if (o.title.trim() === '' || o.title.length > 200) bad('title', 'must be 1 to 200 characters');
  if (o.summary.length > 4000) bad('summary', 'must be at most 4000 characters');
  if (!(RISKS as readonly string[]).includes(o.risk)) bad('risk', 'must be low, medium or high');
  if (!Number.isInteger(o.quorum) || o.quorum < 1 || o.quorum > 10)
    bad('quorum', 'must be a whole number from 1 to 10');
  if (o.approver_role !== 'responder' && o.approver_role !== 'admin')
    bad('approver_role', 'must be responder or admin');
  if (o.requested_by.trim() === '') bad('requested_by', 'is required');
  if (o.requested_by_id?.trim() === '') bad('requested_by_id', 'is empty');
  if (o.ttl_s !== undefined && (!Number.isInteger(o.ttl_s) || o.ttl_s < 1 || o.ttl_s > MAX_TTL_S))
    bad('ttl_s', `must be a whole number of seconds from 1 to ${String(MAX_TTL_S)}`);
}

export function createApprovalsService(deps: Deps) {
  const { store, ledger, writer, clock } = deps;
  const { personById, identify, onBehalfOf, fallen, requester } = approverRules(
    deps.people,
    deps.personById,
  );
  /** A request as the API shows it: with the requester's name as it is now. */
  const shown = (r: ApprovalRequest): ApprovalRequest => ({ ...r, ...requester(r) });
  const newId = deps.newId ?? newRequestId;
  const decided = new Map<ApprovalKind, ApprovalDecidedHandler[]>();
  /** Run inside the transaction that ends a request, so what it applies commits with it. */
  const decidedIn = new Map<ApprovalKind, ((request: ApprovalRequest) => void)[]>();
  const opened: ((request: ApprovalRequest) => void | Promise<void>)[] = [];

  function call(
    handler: (r: ApprovalRequest) => void | Promise<void>,
    request: ApprovalRequest,
  ): void {
    const failed = (err: unknown) => {
      deps.log?.error({ err, request_id: request.request_id }, 'approval handler failed');
    };
    try {
      const r = handler(request);
      if (r instanceof Promise) r.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  /** Inside a writer job: after the commit, the request as it then is goes to handlers. */
  function afterClose(id: string): void {
    writer.afterCommit(() => {
      const r = store.get(id);
      if (r === null) return;
      for (const h of decided.get(r.kind) ?? []) call(h, r);
    });
  }

  function find(id: string): ApprovalRequest {
    const r = store.get(id);
    if (r === null)
      throw new NotFoundError('approval_not_found', `no approval request ${id}`, {
        field: 'request_id',
      });
    return r;
  }

  /** Inside a writer job: end a pending request; `by_id` records who ended it by id. */
  function closeIn(
    r: ApprovalRequest,
    status: ApprovalStatus,
    actor: Actor,
    reason: string | null,
  ) {
    ledger.append({
      type: APPROVAL_CLOSED,
      actor: actor.name,
      data: { request_id: r.request_id, status, reason, by_id: actorId(actor) },
      reason,
      trace_id: r.episode_id,
    });
    const now = store.get(r.request_id);
    if (now !== null) for (const h of decidedIn.get(r.kind) ?? []) h(now);
    afterClose(r.request_id);
  }

  const expired = (r: ApprovalRequest): boolean => Date.parse(r.expires_at) <= clock.now();

  /** The two-person rule for one decider on a pending request; throws what refuses it. */
  function mayDecide(
    r: ApprovalRequest,
    id: string,
    decision: 'approve' | 'deny',
    by: string,
    behalf?: ApproverPerson,
  ): void {
    if (r.status !== 'pending')
      throw conflict('not_pending', `approval request ${r.request_id} is ${r.status}, not pending`);
    if (expired(r))
      throw conflict('not_pending', `approval request ${r.request_id} expired at ${r.expires_at}`);
    // A request opened without an id (before ids, or by name) is compared by that name.
    const byName = r.requested_by_id === r.requested_by && by === r.requested_by;
    if (id === r.requested_by_id || behalf?.id === r.requested_by_id || byName) {
      throw conflict(
        'own_request',
        decision === 'approve'
          ? `${by} asked for this and cannot approve it: another person must`
          : `${by} asked for this; withdraw it instead of denying it`,
      );
    }
    const before = r.decisions.find((d) => d.by_id === id);
    if (before !== undefined) {
      throw conflict(
        'already_decided',
        `${by} already decided on this request (${before.decision}, at ${before.at}); each approver counts once`,
      );
    }
  }

  /** Inside a writer job: one approve or deny, with every rule of the two-person rule. */
  function decideIn(
    id: string,
    decision: 'approve' | 'deny',
    who: Approver,
    reason: string | null,
    extra: { readonly channel?: string } = {},
  ): ApprovalRequest {
    const r = find(id);
    const me = identify(who);
    // The person's role now, not the one their session started with.
    const role = me.person?.role ?? who.role;
    if (role !== null && !roleAtLeast(role, r.approver_role)) {
      throw new ForbiddenError(
        'role_required',
        `deciding a ${r.kind} request needs the ${r.approver_role} role`,
        { role: r.approver_role },
      );
    }
    const behalf =
      who.onBehalfOf !== undefined && me.id === 'admin-token'
        ? onBehalfOf(who.onBehalfOf)
        : undefined;
    const by = me.name;
    mayDecide(r, me.id, decision, by, behalf);
    ledger.append({
      type: APPROVAL_DECIDED,
      actor: by,
      data: {
        request_id: id,
        decision,
        by,
        by_id: me.id,
        via: who.via ?? 'console',
        reason,
        subject_sha256: r.subject_sha256,
        ...(behalf !== undefined && { on_behalf_of: behalf.id }),
        ...viaOf(who.actor),
        ...extra,
      },
      reason,
      trace_id: r.episode_id,
    });
    const after = find(id);
    if (decision === 'deny') {
      closeIn(after, 'denied', { name: by, id: me.id }, reason ?? `denied by ${by}`);
    } else if (approversOf(after).length >= after.quorum) {
      closeIn(after, 'approved', { name: by, id: me.id }, null);
    }
    return find(id);
  }

  /** The link's request and channel, checked without using it. */
  function linkTarget(c: Extract<LinkCheck, { ok: true }>) {
    const r = find(c.payload.request_id);
    const via = store.linkOf(c.token_id);
    return { request: r, channel: via?.channel ?? null };
  }

  function refused(c: Extract<LinkCheck, { ok: false }>): never {
    if (c.reason === 'malformed' || c.reason === 'bad_signature')
      throw new InvalidInputError('bad_link', c.message, { field: 'token', why: c.reason });
    throw conflict(c.reason, c.message);
  }

  function signer(): LinkSigner {
    if (deps.links === undefined) throw new Error('approval links are not configured');
    return deps.links;
  }

  function open(o: OpenApproval): ApprovalRequest {
    checkOpen(o);
    const nowIso = clock.nowIso();
    const id = newId(nowIso);
    const expiresAt = new Date(clock.now() + (o.ttl_s ?? DEFAULT_TTL_S) * 1000).toISOString();
    const subject = JSON.parse(canonicalJson(o.subject)) as Record<string, unknown>;
    ledger.append({
      type: APPROVAL_REQUESTED,
      actor: o.requested_by,
      data: {
        request_id: id,
        kind: o.kind,
        title: o.title.trim(),
        summary: o.summary,
        service: o.service,
        risk: o.risk,
        episode_id: o.episode_id,
        subject,
        subject_sha256: subjectSha256(subject),
        quorum: o.quorum,
        approver_role: o.approver_role,
        requested_by: o.requested_by,
        requested_by_id: o.requested_by_id ?? o.requested_by,
        expires_at: expiresAt,
      },
      trace_id: o.episode_id,
    });
    writer.afterCommit(() => {
      const r = store.get(id);
      if (r !== null) for (const h of opened) call(h, r);
    });
    return find(id);
  }

  return {
    /**
     * Open a request in a writer transaction of its own; resolves after the commit.
     * onOpened handlers (escalation, lab approver) run after that commit.
     */
    open: (o: OpenApproval): Promise<ApprovalRequest> => writer.transact(() => open(o)),
    /**
     * Open a request inside the caller's writer job (writer.transact), so that it commits
     * with whatever asked for it.
     */
    openIn: open,
    /** GET /v1/approvals/<id>: 404 when unknown. */
    get: (id: string): ApprovalRequest => shown(find(id)),
    /** The request, or null. */
    find: (id: string): ApprovalRequest | null => store.get(id),
    /** Every pending request, oldest first. */
    pending: (): ApprovalRequest[] => store.pending(),
    /** GET /v1/approvals. */
    list(p: ApprovalListQuery): ApprovalList {
      const facets: Partial<Record<ApprovalFacet, readonly string[]>> = {};
      for (const f of FACETS) {
        const v = csv(f, p[f]);
        if (v !== undefined) facets[f] = v;
      }
      const since = p.since === undefined ? null : instant(p.since, 'since');
      const until = p.until === undefined ? null : instant(p.until, 'until');
      if (since !== null && until !== null && until <= since)
        throw new InvalidInputError('invalid_input', 'until must be later than since', {
          field: 'until',
        });
      const descending = p.sort.startsWith('-');
      const field = (descending ? p.sort.slice(1) : p.sort) as ApprovalSortField;
      const q = p.q?.trim() ?? '';
      const query = p.query?.trim() ?? '';
      const page = store.list(
        { facets, q: q === '' ? null : q, query: query === '' ? null : query, since, until },
        { sort: { field, descending }, limit: p.limit, offset: p.offset },
        clock.now(),
      );
      return {
        ...page,
        requests: page.requests.map(shown),
        limit: p.limit,
        offset: p.offset,
        sort: `${descending ? '-' : ''}${field}`,
      };
    },
    /** POST /v1/approvals/<id>/approve. */
    approve(id: string, who: Approver, reason: string | null = null): Promise<ApprovalRequest> {
      return writer.transact(() => shown(decideIn(id, 'approve', who, reason)));
    },
    /** POST /v1/approvals/<id>/deny: one deny ends the request. */
    deny(id: string, who: Approver, reason: string): Promise<ApprovalRequest> {
      return writer.transact(() => shown(decideIn(id, 'deny', who, reason)));
    },
    /** POST /v1/approvals/<id>/withdraw: 404 when nothing is pending under that id. */
    withdraw(id: string, who: Approver, reason: string | null = null): Promise<ApprovalRequest> {
      return writer.transact(() => {
        const r = store.get(id);
        if (r === null || r.status !== 'pending')
          throw new NotFoundError(
            'not_pending',
            r === null
              ? `no approval request ${id}`
              : `approval request ${id} is ${r.status}; only a pending request can be withdrawn`,
          );
        if (who.role !== null && !roleAtLeast(who.role, r.approver_role)) {
          throw new ForbiddenError(
            'role_required',
            `withdrawing a ${r.kind} request needs the ${r.approver_role} role`,
            { role: r.approver_role },
          );
        }
        const me = identify(who);
        closeIn(r, 'withdrawn', { name: me.name, id: me.id }, reason ?? `withdrawn by ${me.name}`);
        return shown(find(id));
      });
    },
    /** GET /v1/approvals/link: what the link would do now; nothing is used. */
    peekLink(token: string): LinkPreview {
      const c = signer().verify(token);
      if (!c.ok) refused(c);
      const { request, channel } = linkTarget(c);
      if (request.status !== 'pending' || expired(request))
        throw conflict(
          'not_pending',
          `approval request ${request.request_id} is ${request.status}`,
        );
      const to = c.payload.person === undefined ? null : personById(c.payload.person);
      return {
        decision: c.payload.decision,
        channel,
        counts_as:
          c.payload.person === undefined
            ? `channel:${channel ?? 'link'}`
            : to === null
              ? 'a person no longer here'
              : displayName(to),
        expires_at: c.payload.expires_at,
        request: shown(request),
      };
    },
    /**
     * POST /v1/approvals/link: use the link. It counts as the person it was sent to (checked
     * as they are now); a link sent to several people counts as `channel:<connector>`, and
     * approves only where one approver is enough. A used, expired or forged link, or a
     * decision the two-person rule refuses, is refused (409 or 400 with why) and changes
     * nothing: the link stays unused.
     */
    useLink(token: string, reason: string | null = null): Promise<LinkUsed> {
      const links = signer();
      return writer.transact(() => {
        const peek = links.verify(token);
        if (!peek.ok) refused(peek);
        const { request, channel } = linkTarget(peek);
        if (request.approver_role !== 'responder') {
          throw new ForbiddenError(
            'role_required',
            `a ${request.kind} request needs a person with the ${request.approver_role} role; decide it in the console`,
            { role: request.approver_role },
          );
        }
        const decision = peek.payload.decision;
        const sentTo = peek.payload.person;
        let who: Approver;
        if (sentTo === undefined) {
          const by = `channel:${channel ?? 'link'}`;
          if (decision === 'approve' && request.quorum > 1 && request.status === 'pending')
            throw conflict(
              'person_required',
              `this link went to ${channel ?? 'a channel'} for several people; this request needs ${String(request.quorum)} distinct people: approve it in the console`,
            );
          who = { actor: { name: by, id: by }, role: null, via: 'link' };
        } else {
          const p = personById(sentTo);
          if (p === null || p.disabled || !roleAtLeast(p.role, request.approver_role))
            throw conflict(
              'approver_gone',
              `the person this link was sent to ${p === null ? 'is no longer here' : p.disabled ? 'is disabled' : `no longer holds the ${request.approver_role} role`}`,
            );
          who = { actor: { name: displayName(p), id: p.id }, role: p.role, via: 'link' };
        }
        // Checked before the link is used: a refused decision leaves the link unused.
        mayDecide(request, actorId(who.actor), decision, who.actor.name);
        const used = links.redeem(token);
        if (!used.ok) refused(used);
        const after = decideIn(request.request_id, decision, who, reason, {
          channel: channel ?? 'link',
        });
        return { decision, by: who.actor.name, request: shown(after) };
      });
    },
    /** Inside a writer job: withdraw a pending request (what it relied on changed). */
    withdrawIn(id: string, actor: Actor, reason: string): void {
      const r = store.get(id);
      if (r !== null && r.status === 'pending') closeIn(r, 'withdrawn', actor, reason);
    },
    /**
     * Inside the writer job that changed a person (disabled, demoted, deleted): every pending
     * request whose approval by them no longer stands is withdrawn.
     */
    personChangedIn(personId: string, actor: Actor): void {
      for (const r of store.pending()) {
        for (const d of r.decisions) {
          if (d.by_id !== personId) continue;
          const why = fallen(r, d);
          if (why !== null) {
            closeIn(r, 'withdrawn', actor, `${why}: the approval no longer stands`);
            break;
          }
        }
      }
    },
    /**
     * Why an approved request no longer stands, or null: asked in the transaction that
     * starts its action. It must be approved, and every approver still enabled and holding
     * the role it needs.
     */
    standing(id: string): string | null {
      const r = store.get(id);
      if (r === null) return `no approval request ${id}`;
      if (r.status !== 'approved') return `approval request ${id} is ${r.status}`;
      for (const d of r.decisions) {
        const why = fallen(r, d);
        if (why !== null) return why;
      }
      return null;
    },
    /** Close every pending request past its expiry; returns those closed. */
    sweep(): Promise<ApprovalRequest[]> {
      if (store.expiring(clock.nowIso()).length === 0) return Promise.resolve([]);
      return writer.transact(() => {
        const due = store.expiring(clock.nowIso());
        for (const r of due)
          closeIn(
            r,
            'expired',
            { name: 'system' },
            `no decision before it expired at ${r.expires_at}`,
          );
        return due.map((r) => find(r.request_id));
      });
    },
    /** Record what a channel was sent (approval.sent). */
    recordSent(s: SentRecord): Promise<void> {
      return writer.transact(() => {
        const r = store.get(s.request_id);
        ledger.append({
          type: APPROVAL_SENT,
          actor: 'system',
          data: {
            request_id: s.request_id,
            channel: s.channel,
            step: s.step,
            ok: s.ok,
            detail: s.detail,
            ...(s.link_ids !== undefined && s.link_ids.length > 0 && { link_ids: [...s.link_ids] }),
          },
          trace_id: r?.episode_id ?? null,
        });
      });
    },
    /** Hear every request of `kind` that ends (approved, denied, withdrawn, expired), after its commit. */
    onDecided(kind: ApprovalKind, handler: ApprovalDecidedHandler): void {
      const list = decided.get(kind) ?? [];
      list.push(handler);
      decided.set(kind, list);
    },
    /**
     * Apply what a request of `kind` decides inside the same transaction that ends it: the
     * caller's answer then already shows the change (a raise of autonomy, fix mode draft).
     * A handler that throws undoes the decision with it.
     */
    onDecidedIn(kind: ApprovalKind, handler: (request: ApprovalRequest) => void): void {
      const list = decidedIn.get(kind) ?? [];
      list.push(handler);
      decidedIn.set(kind, list);
    },
    /** Hear every request that opens, after its commit. */
    onOpened(handler: (request: ApprovalRequest) => void | Promise<void>): void {
      opened.push(handler);
    },
  };
}
export type ApprovalsService = ReturnType<typeof createApprovalsService>;

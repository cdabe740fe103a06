// Autonomy levels (per service, and the default '*'), fix mode and halt.
//
// Lowering a level (or setting it to what it is) applies at once; so does shadow from off,
// since shadow only records. A raise to L1 or L2 opens an approval request (kind autonomy,
// quorum 2, approver role admin) and applies when it is approved; it is refused (409 with
// why) while fewer than two people besides the requester can approve (people holding admin
// or owner, enabled; the admin token is no person), or while a raise of that service waits.
// Fix mode draft is requested the same way; advise applies at once. Halt (responder) and
// resume (admin) are recorded with their reason. An approved raise is checked again when it
// is applied: a level already at or above the one approved is left alone. A raise approved
// just before a crash is applied at the next start. People are counted by id, never by name.
// Lowering a level withdraws the pending action requests that relied on the old one.
import { approversOf, type ApprovalRequest, type ApprovalsService } from '../approvals/index.js';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError, InvalidInputError } from '../shared/errors.js';
import { roleAtLeast, type Role } from '../shared/roles.js';
import { actorId, type Actor } from '../shared/types.js';
import {
  DRAFTED_QUORUM,
  LEVELS,
  RAISE_QUORUM,
  type AutonomyLevel,
  type AutonomyView,
  type FixMode,
  type Halted,
} from './autonomy.schemas.js';
import {
  AUTONOMY_RAISE_REQUESTED,
  AUTONOMY_SET,
  FIX_MODE_SET,
  SYSTEM_HALT,
  SYSTEM_RESUME,
  type AutonomyStore,
} from './autonomy.store.js';
import type { AutonomyEvents } from './autonomy.events.js';

/** The level of a service that has none of its own while no default is set. */
export const DEFAULT_LEVEL: AutonomyLevel = 'shadow';
export const DEFAULT_SERVICE = '*';

/** A person as the approver count sees them (people store users()). */
export interface PersonRef {
  readonly id?: string;
  readonly name: string;
  readonly email: string;
  readonly role: Role;
  readonly disabled: boolean;
}

interface Deps {
  readonly store: AutonomyStore;
  readonly ledger: DomainLedger<AutonomyEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly approvals: Pick<
    ApprovalsService,
    'openIn' | 'pending' | 'onDecidedIn' | 'list' | 'withdrawIn'
  >;
  /** Everyone who may sign in (peopleStore.users()). */
  readonly people: () => readonly PersonRef[];
  /** Hours a raise request stays open; 24 by default. */
  readonly ttlS?: number;
  readonly log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export type SetResult<T> =
  ({ readonly applied: true } & T) | { readonly applied: false; readonly request: ApprovalRequest };

const rank: Record<AutonomyLevel, number> = { off: 0, shadow: 1, L1: 2, L2: 3 };
const isLevel = (v: unknown): v is AutonomyLevel =>
  typeof v === 'string' && (LEVELS as readonly string[]).includes(v);

const viaOf = (actor: Actor) => (actor.via !== undefined ? { via: actor.via } : {});

/** Whether the person is the one meant: by id (names change), or a name or e-mail given. */
const isPerson = (p: PersonRef, who: string): boolean =>
  p.id === who || p.name === who || p.email === who;

/** Who an actor is: their id when the caller knows it, else their name. */

function checkService(service: string): string {
  const s = service.trim();
  if (s === '' || s.length > 200 || /[\u0000-\u001f]/.test(s))
    throw new InvalidInputError('invalid_input', 'service must be 1 to 200 characters, or *', {
      field: 'service',
    });
  return s;
}

export function createAutonomyService(deps: Deps) {
  const { store, ledger, writer, clock, approvals } = deps;

  const defaultLevel = (): AutonomyLevel => store.level(DEFAULT_SERVICE)?.level ?? DEFAULT_LEVEL;
  const levelOf = (service: string): AutonomyLevel =>
    service === DEFAULT_SERVICE ? defaultLevel() : (store.level(service)?.level ?? defaultLevel());

  /** People who could approve a raise asked for by `requester`. */
  function approversFor(requester: string | null): number {
    return deps
      .people()
      .filter(
        (p) =>
          !p.disabled &&
          roleAtLeast(p.role, 'admin') &&
          (requester === null || !isPerson(p, requester)),
      ).length;
  }

  /** Why a raise asked for by `requester` cannot be approved now, or null. */
  function impossible(requester: string | null): string | null {
    const n = approversFor(requester);
    if (n >= RAISE_QUORUM) return null;
    return `a raise needs ${String(RAISE_QUORUM)} approvers with the admin role besides the person who asks, and ${n === 0 ? 'nobody else holds' : `only ${String(n)} other ${n === 1 ? 'person holds' : 'people hold'}`} it (the admin token is no person); add admins under People`;
  }

  const pendingOf = (kind: 'autonomy' | 'fix_mode'): ApprovalRequest[] =>
    approvals.pending().filter((r) => r.kind === kind);

  function refuseRaise(requester: string, pendingWhy: ApprovalRequest | undefined): void {
    if (pendingWhy !== undefined) {
      throw new ConflictError(
        'raise_impossible',
        `${pendingWhy.request_id} already asks for this (${pendingWhy.title}); decide or withdraw it first`,
        { why: 'already_pending' },
      );
    }
    const why = impossible(requester);
    if (why !== null)
      throw new ConflictError('raise_impossible', why, { why: 'not_enough_approvers' });
  }

  const halted = (): Halted | null => {
    const s = store.state();
    return s.halted
      ? { reason: s.halt_reason ?? '', by: s.halted_by ?? '', at: s.halted_at ?? '' }
      : null;
  };

  const approvedBy = (r: ApprovalRequest) => ({
    approved_by: [...new Set(r.decisions.filter((d) => d.decision === 'approve').map((d) => d.by))],
    approved_by_ids: approversOf(r),
  });

  /**
   * Inside the job that lowers a level: `lower` records it; then every pending action
   * request whose service fell below L1 with it is withdrawn, as it was asked for under the
   * level that is gone.
   */
  function lowerIn(actor: Actor, from: AutonomyLevel, service: string, lower: () => void): void {
    const asking = approvals
      .pending()
      .filter((r) => r.kind === 'action' && r.service !== null)
      .filter((r) => rank[levelOf(r.service ?? '')] >= rank.L1);
    lower();
    for (const r of asking) {
      const now = levelOf(r.service ?? '');
      if (rank[now] >= rank.L1) continue;
      approvals.withdrawIn(
        r.request_id,
        actor,
        `autonomy of ${r.service ?? ''} is now ${now} (${service === DEFAULT_SERVICE ? 'the default' : service} lowered from ${from}): nothing is asked for below L1`,
      );
    }
  }

  /** Inside a writer job: apply an approved raise, checked again against the level now. */
  function applyRaiseIn(r: ApprovalRequest): void {
    const service = typeof r.subject['service'] === 'string' ? r.subject['service'] : '';
    const level = r.subject['level'];
    if (service === '' || !isLevel(level)) return;
    const from = levelOf(service);
    if (rank[level] <= rank[from]) {
      deps.log?.info(
        { request_id: r.request_id, service, level, now: from },
        'approved raise not applied: the level is already at or above it',
      );
      return;
    }
    ledger.append({
      type: AUTONOMY_SET,
      actor: 'system',
      data: {
        service,
        level,
        from,
        request_id: r.request_id,
        requested_by: r.requested_by,
        requested_by_id: r.requested_by_id,
        ...approvedBy(r),
      },
    });
  }

  function applyDraftIn(r: ApprovalRequest): void {
    if (r.subject['mode'] !== 'draft') return;
    const from = store.state().fix_mode;
    if (from === 'draft') return;
    ledger.append({
      type: FIX_MODE_SET,
      actor: 'system',
      data: {
        mode: 'draft',
        from,
        request_id: r.request_id,
        requested_by: r.requested_by,
        requested_by_id: r.requested_by_id,
        ...approvedBy(r),
      },
    });
  }

  // Applied in the transaction that approves, so the approver's answer already shows it.
  const whenApproved = (apply: (r: ApprovalRequest) => void) => (r: ApprovalRequest) => {
    if (r.status === 'approved') apply(r);
  };
  approvals.onDecidedIn('autonomy', whenApproved(applyRaiseIn));
  approvals.onDecidedIn('fix_mode', whenApproved(applyDraftIn));

  return {
    /** The level in force for a service: its own, else the default, else shadow. */
    levelOf,
    /** advise (default) or draft. */
    fixMode: (): FixMode => store.state().fix_mode,
    /** Whether every action is refused now. */
    halted: (): boolean => store.state().halted,
    /** The halt in force, or null. */
    haltState: halted,
    /** GET /v1/autonomy; `caller` is left out of the approver count. */
    view(caller: string | null = null): AutonomyView {
      return {
        default: defaultLevel(),
        services: store
          .levels()
          .filter((l) => l.service !== DEFAULT_SERVICE)
          .map((l) => ({ service: l.service, level: l.level })),
        halted: halted(),
        raise_quorum: RAISE_QUORUM,
        raise_impossible: impossible(caller),
        fix_mode: store.state().fix_mode,
        drafted_quorum: DRAFTED_QUORUM,
        requests: approvals.pending().filter((r) => r.kind === 'autonomy' || r.kind === 'fix_mode'),
      };
    },
    /**
     * POST /v1/autonomy: lower (or equal, or shadow from off) applies at once; a raise to L1
     * or L2 opens a request; 409 with why when it cannot be asked for.
     */
    async set(
      service: string,
      level: AutonomyLevel,
      actor: Actor,
    ): Promise<SetResult<{ service: string; level: AutonomyLevel }>> {
      const key = checkService(service);
      if (!isLevel(level))
        throw new InvalidInputError('invalid_input', `level must be one of ${LEVELS.join(', ')}`, {
          field: 'level',
        });
      return writer.transact(() => {
        const from = levelOf(key);
        if (level === from) return { applied: true as const, service: key, level };
        if (rank[level] < rank[from] || level === 'shadow') {
          lowerIn(actor, from, key, () =>
            ledger.append({
              type: AUTONOMY_SET,
              actor: actor.name,
              data: { service: key, level, from, actor_id: actorId(actor), ...viaOf(actor) },
            }),
          );
          return { applied: true as const, service: key, level };
        }
        refuseRaise(
          actorId(actor),
          pendingOf('autonomy').find((r) => r.subject['service'] === key),
        );
        const what = key === DEFAULT_SERVICE ? 'the default autonomy' : `the autonomy of ${key}`;
        const request = approvals.openIn({
          kind: 'autonomy',
          title: `Raise ${what} from ${from} to ${level}`,
          summary:
            level === 'L2'
              ? `At L2 the service acts without asking on fixes the policy lists as safe${key === DEFAULT_SERVICE ? ' for every service without a level of its own' : ` for ${key}`}, and asks before any other.`
              : `At L1 the service asks before every action${key === DEFAULT_SERVICE ? ' on every service without a level of its own' : ` on ${key}`}.`,
          service: key === DEFAULT_SERVICE ? null : key,
          risk: level === 'L2' ? 'high' : 'medium',
          episode_id: null,
          subject: { service: key, level, from },
          quorum: RAISE_QUORUM,
          approver_role: 'admin',
          requested_by: actor.name,
          requested_by_id: actorId(actor),
          ...(deps.ttlS !== undefined && { ttl_s: deps.ttlS }),
        });
        ledger.append({
          type: AUTONOMY_RAISE_REQUESTED,
          actor: actor.name,
          data: { service: key, level, from, request_id: request.request_id, ...viaOf(actor) },
        });
        return { applied: false as const, request };
      });
    },
    /** POST /v1/fix-mode: advise applies at once; draft opens a request (two approvers). */
    async setFixMode(mode: FixMode, actor: Actor): Promise<SetResult<{ mode: FixMode }>> {
      if (mode !== 'advise' && mode !== 'draft')
        throw new InvalidInputError('invalid_input', 'mode must be advise or draft', {
          field: 'mode',
        });
      return writer.transact(() => {
        const from = store.state().fix_mode;
        if (mode === from) return { applied: true as const, mode };
        if (mode === 'advise') {
          ledger.append({
            type: FIX_MODE_SET,
            actor: actor.name,
            data: { mode, from, ...viaOf(actor) },
          });
          return { applied: true as const, mode };
        }
        refuseRaise(actorId(actor), pendingOf('fix_mode')[0]);
        const request = approvals.openIn({
          kind: 'fix_mode',
          title: 'Set fix mode to draft',
          summary: `In draft, restore fixes (such as reverting a deploy) are drafted as approval requests that need ${String(DRAFTED_QUORUM)} approvers each, instead of handed over as advice.`,
          service: null,
          risk: 'high',
          episode_id: null,
          subject: { mode: 'draft', from },
          quorum: RAISE_QUORUM,
          approver_role: 'admin',
          requested_by: actor.name,
          requested_by_id: actorId(actor),
          ...(deps.ttlS !== undefined && { ttl_s: deps.ttlS }),
        });
        return { applied: false as const, request };
      });
    },
    /** POST /v1/halt: every action is refused from now on; diagnosis goes on. */
    async halt(reason: string, actor: Actor): Promise<{ halted: Halted }> {
      const why = reason.trim();
      if (why === '')
        throw new InvalidInputError('invalid_input', 'reason is required', { field: 'reason' });
      return writer.transact(() => {
        const now = halted();
        if (now !== null) return { halted: now };
        ledger.append({
          type: SYSTEM_HALT,
          actor: actor.name,
          data: { reason: why, ...viaOf(actor) },
          reason: why,
        });
        return { halted: halted() ?? { reason: why, by: actor.name, at: clock.nowIso() } };
      });
    },
    /** POST /v1/resume. */
    async resume(actor: Actor, reason: string | null = null): Promise<{ halted: null }> {
      return writer.transact(() => {
        if (halted() === null) return { halted: null };
        ledger.append({
          type: SYSTEM_RESUME,
          actor: actor.name,
          data: { ...(reason !== null && { reason }), ...viaOf(actor) },
          reason,
        });
        return { halted: null };
      });
    },
    /**
     * At start: apply a raise or draft approved after the last change but not applied (the
     * service stopped between the approval and its application).
     */
    async recover(): Promise<void> {
      const approved = approvals.list({
        kind: 'autonomy,fix_mode',
        status: 'approved',
        sort: '-closed_at',
        limit: 20,
        offset: 0,
      }).requests;
      const lastLevel = store.lastLevelChange() ?? '';
      const lastMode = store.state().fix_mode_set_at ?? '';
      const due = [...approved]
        .reverse()
        .filter((r) => (r.closed_at ?? '') > (r.kind === 'autonomy' ? lastLevel : lastMode));
      if (due.length === 0) return;
      await writer.transact(() => {
        for (const r of due) {
          if (r.kind === 'autonomy') applyRaiseIn(r);
          else applyDraftIn(r);
        }
      });
    },
    /** Why a raise asked for by `requester` cannot be approved now, or null. */
    raiseImpossible: impossible,
    /** How many people could approve a raise asked for by `requester`. */
    approversFor,
  };
}
export type AutonomyService = ReturnType<typeof createAutonomyService>;

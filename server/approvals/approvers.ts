// Who an approver is (issue 16): approvers and requesters are told apart by id, never by
// name. A person counts as their id (`usr-…`) and is checked as they are now; the admin token
// counts as `admin-token` whatever `by` says, and so does the first owner's session (signed
// in with it); `system`, `lab-approver` and `channel:<connector>` count as themselves.
import { InvalidInputError } from '../shared/errors.js';
import { roleAtLeast, type Role } from '../shared/roles.js';
import { actorId, type Actor } from '../shared/types.js';
import type { ApprovalDecisionEntry, ApprovalRequest } from './types.js';

/** Who decides: the actor the ledger records, the role they hold, and how they came. */
export interface Approver {
  /** `actor.id` is who counts (a person's id, `admin-token`, …); the name when absent */
  readonly actor: Actor;
  /** null: a signed link (the token is the credential) */
  readonly role: Role | null;
  /** `console` (the API), `link`, `lab-approver` */
  readonly via?: string;
  /** With the admin token: the person `by` names (an id, name or e-mail); recorded only. */
  readonly onBehalfOf?: string;
}

/** A person as approvals see them (people store users()). */
export interface ApproverPerson {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly role: Role;
  readonly disabled: boolean;
  /** team ids, for escalation steps that name teams */
  readonly teams?: readonly string[];
}

/** Ids that are no person: they count as themselves. */
const NOT_PEOPLE = /^(admin-token|system|lab-approver|channel:.*)$/;

/** A person's id (people.service newUserId): what a requester given by id looks like. */
const PERSON_ID = /^usr-[0-9a-f]+$/;

/** How a person is named in the ledger and the decisions: their name, else their e-mail. */
export const displayName = (p: Pick<ApproverPerson, 'name' | 'email'>): string =>
  p.name === '' ? p.email : p.name;

/** Distinct approvers so far, by id. */
export function approversOf(request: Pick<ApprovalRequest, 'decisions'>): string[] {
  return [
    ...new Set(request.decisions.filter((d) => d.decision === 'approve').map((d) => d.by_id)),
  ];
}

/**
 * The rules over everyone who may sign in (absent, in unit tests: ids are taken as given).
 * `byId` is the indexed lookup of one person (every decision asks it); without it, the list.
 */
export function approverRules(
  people?: () => readonly ApproverPerson[],
  byId?: (id: string) => ApproverPerson | null,
) {
  const personById = (id: string): ApproverPerson | null =>
    byId !== undefined ? byId(id) : (people?.().find((p) => p.id === id) ?? null);

  return {
    personById,
    /** Who an approver is now: who counts (id), the name recorded, and the person if one. */
    identify: (who: Approver): { id: string; name: string; person: ApproverPerson | null } => {
      const id = actorId(who.actor);
      if (people === undefined || NOT_PEOPLE.test(id))
        return { id, name: who.actor.name, person: null };
      const person = personById(id);
      if (person !== null) return { id, name: displayName(person), person };
      // A session that is no person is the first owner's, signed in with the admin token.
      return { id: 'admin-token', name: who.actor.name, person: null };
    },
    /**
     * The requester as a person now: their current name (a rename shows), or removed. The
     * person is the requester's id, else a person's id given as `by` with the admin token.
     */
    requester: (
      r: Pick<ApprovalRequest, 'requested_by' | 'requested_by_id'>,
    ): { requested_by_name: string | null; requested_by_removed: boolean } => {
      const id = [r.requested_by_id, r.requested_by].find((x) => PERSON_ID.test(x));
      if (id === undefined || (people === undefined && byId === undefined))
        return { requested_by_name: null, requested_by_removed: false };
      const p = personById(id);
      return p === null
        ? { requested_by_name: null, requested_by_removed: true }
        : { requested_by_name: displayName(p), requested_by_removed: false };
    },
    /** The person `by` names, for the admin token: an existing, enabled person, else 400. */
    onBehalfOf: (by: string): ApproverPerson => {
      const key = by.trim().toLowerCase();
      const p =
        people?.().find((x) => x.id === by || x.email === key || x.name.toLowerCase() === key) ??
        null;
      if (p === null || p.disabled)
        throw new InvalidInputError(
          'invalid_input',
          `by ${JSON.stringify(by)} names no enabled person; it is recorded only when it does, and the admin token counts as admin-token whatever it says`,
          { field: 'by' },
        );
      return p;
    },
    /**
     * Why an approve decision no longer stands, or null: the person who gave it is gone,
     * disabled, or no longer holds the role the request needs.
     */
    fallen: (
      r: Pick<ApprovalRequest, 'approver_role'>,
      d: ApprovalDecisionEntry,
    ): string | null => {
      if (d.decision !== 'approve' || people === undefined || NOT_PEOPLE.test(d.by_id)) return null;
      // A decision recorded before ids were names its person by name.
      const p =
        personById(d.by_id) ?? people().find((x) => x.name === d.by || x.email === d.by) ?? null;
      if (p === null) return `${d.by}, who approved it, is no longer a person here`;
      if (p.disabled) return `${d.by}, who approved it, is disabled`;
      if (!roleAtLeast(p.role, r.approver_role))
        return `${d.by}, who approved it, no longer holds the ${r.approver_role} role`;
      return null;
    },
  };
}

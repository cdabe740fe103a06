// The rules of people's fields: e-mail addresses, names, channel handles, access settings,
// directory group matching, free names. Pure functions; they throw InvalidInputError naming
// the field (ConflictError for a name someone has).
import { ConflictError, InvalidInputError } from '../shared/errors.js';
import {
  DEFAULT_ACCESS,
  HANDLE_KINDS,
  type AccessSettings,
  type AccessSettingsInput,
  type Handles,
  type HandlesInput,
} from './people.schemas.js';

export function invalid(field: string, message: string): never {
  throw new InvalidInputError('invalid_input', message, { field });
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const EMAIL =
  /^[^\s@"<>(),;:\\[\]]+@([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+)$/;
const DOMAIN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{3,30}$/;

/** An e-mail address trimmed and lower-cased; throws InvalidInputError naming `field`. */
export function checkEmail(value: string, field = 'email'): string {
  const email = value.trim().toLowerCase();
  if (email.length > 254 || CONTROL.test(email) || !EMAIL.test(email)) {
    invalid(field, `${field} is not an e-mail address (name@example.com)`);
  }
  return email;
}

export const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1);

export function checkName(value: string, field: string, max: number, blank: boolean): string {
  const name = value.trim();
  if (!blank && name === '') invalid(field, `${field} is blank`);
  if (name.length > max) invalid(field, `${field} is longer than ${String(max)} characters`);
  if (CONTROL.test(name)) invalid(field, `${field} contains a control character`);
  return name;
}

/**
 * Names that are no person's: the ledger and the approvals use them for the admin token,
 * the service itself, links and the lab approver, and the first owner's session.
 */
export function reservedName(name: string): boolean {
  const n = name.trim().toLowerCase();
  return (
    ['system', 'admin-token', 'ingest-token', 'lab-approver', 'owner'].includes(n) ||
    n.startsWith('channel:')
  );
}

/**
 * Why a name may not be a person's, or null: reserved (400), or another's already (ignoring
 * case, and against the e-mail others show as their name; 409 name_taken). An empty name is
 * always free (the e-mail shows).
 */
export function nameRefusal(
  name: string,
  people: readonly { id: string; name: string; email: string }[],
  except: string | null,
): 'reserved' | 'taken' | null {
  if (name === '') return null;
  if (reservedName(name)) return 'reserved';
  const key = name.toLowerCase();
  const taken = people.some(
    (u) => u.id !== except && (u.name.toLowerCase() === key || u.email === key),
  );
  return taken ? 'taken' : null;
}

/** The same as errors: the ledger and the approvals name actors by a person's name. */
export function checkNameFree(
  name: string,
  people: readonly { id: string; name: string; email: string }[],
  except: string | null,
): void {
  const refusal = nameRefusal(name, people, except);
  if (refusal === 'reserved')
    invalid(
      'name',
      `name ${JSON.stringify(name)} is reserved (system, admin-token, channel:…, lab-approver, owner)`,
    );
  if (refusal === 'taken')
    throw new ConflictError('name_taken', `someone is named ${name} already; pick another name`, {
      why: 'name_taken',
      field: 'name',
    });
}

function checkHandle(kind: string, value: string): string {
  const field = `handles.${kind}`;
  const h = checkName(value, field, 200, false);
  if (kind === 'phone' && !PHONE.test(h)) {
    invalid(field, `${field} is not a telephone number (+44 20 7946 0000)`);
  }
  return h;
}

/** Handles of a create: every given one checked. */
export function checkHandles(given: Handles | undefined): Handles {
  const out: Handles = {};
  for (const k of HANDLE_KINDS) {
    const v = given?.[k];
    if (v !== undefined) out[k] = checkHandle(k, v);
  }
  return out;
}

/** Handles after a change: given ones replace, null removes, missing ones stay. */
export function changeHandles(current: Handles, change: HandlesInput): Handles {
  const out: Handles = { ...current };
  for (const k of HANDLE_KINDS) {
    const v = change[k];
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = checkHandle(k, v);
  }
  return out;
}

export const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/** Validate an access settings document; missing fields take their defaults. */
export function checkAccess(input: Omit<AccessSettingsInput, 'by'>): AccessSettings {
  const domains = (input.domains ?? []).map((d, i) => {
    const domain = d.trim().toLowerCase().replace(/^@/, '');
    if (!DOMAIN.test(domain)) {
      invalid(`domains.${String(i)}`, `domains.${String(i)} is not a domain name (example.com)`);
    }
    return domain;
  });
  const groups = (field: string, xs: readonly string[] | undefined): string[] =>
    unique((xs ?? []).map((g, i) => checkName(g, `${field}.${String(i)}`, 500, false)));
  return {
    domains: unique(domains),
    directory_groups: groups('directory_groups', input.directory_groups),
    sso_groups: groups('sso_groups', input.sso_groups),
    default_role: input.default_role ?? DEFAULT_ACCESS.default_role,
  };
}

/** Whether a directory group (a DN or a cn) is one of the allowed ones (DN or cn, any case). */
export function groupAllowed(group: string, allowed: readonly string[]): boolean {
  const g = group.trim().toLowerCase();
  const cn = /^cn=([^,]+)/.exec(g)?.[1]?.trim();
  return allowed.some((a) => {
    const x = a.trim().toLowerCase();
    return x === g || (cn !== undefined && x === cn);
  });
}

/** Who is signing in, as far as admission needs to know. */
export interface Admission {
  readonly via: 'code' | 'password' | 'ldap' | 'sso';
  readonly groups?: readonly string[];
}

/** Why someone nobody has added may not sign in under these access settings; null: they may. */
export function refusalOf(email: string, who: Admission, access: AccessSettings): string | null {
  const groups = who.groups ?? [];
  switch (who.via) {
    case 'code':
    case 'password':
      return access.domains.includes(domainOf(email))
        ? null
        : `the domain ${domainOf(email)} is not one of the domains allowed to sign in, and nobody has added ${email}`;
    case 'ldap':
      return groups.some((g) => groupAllowed(g, access.directory_groups))
        ? null
        : 'none of their directory groups is allowed to sign in';
    case 'sso': {
      const allowed = new Set(access.sso_groups);
      return groups.some((g) => allowed.has(g))
        ? null
        : 'none of their single sign-on groups is allowed to sign in';
    }
  }
}

/** The recorded fields of a person, as changedFields compares them. */
interface PersonFields {
  readonly email: string;
  readonly name: string;
  readonly role: string;
  readonly handles: Handles;
  readonly disabled: boolean;
}

/** Which recorded fields differ between two versions of a person. */
export function changedFields(a: PersonFields, b: PersonFields): string[] {
  const out: string[] = [];
  if (a.email !== b.email) out.push('email');
  if (a.name !== b.name) out.push('name');
  if (a.role !== b.role) out.push('role');
  if (HANDLE_KINDS.some((k) => a.handles[k] !== b.handles[k])) out.push('handles');
  if (a.disabled !== b.disabled) out.push('disabled');
  return out;
}

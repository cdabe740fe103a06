// The one typed client of the /v1 API. Every call carries the session token; an answer that
// is not 2xx becomes an ApiError with the server's code, message and the field it names.
// Each call tells connection.ts whether the service answered at all.
import { reaching } from './connection.js';

const SESSION_KEY = 'svc.session';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly position: number | undefined;
  /** The role a 403 role_required needs. */
  readonly role: string | undefined;
  /** Seconds to wait after a 429 too_many_attempts. */
  readonly retryAfterS: number | undefined;
  /** The whole error body, for the fields one call adds (a refusal's check, a 409's losses). */
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    super(
      typeof body['message'] === 'string'
        ? body['message']
        : typeof body['mode'] === 'string'
          ? `not available while the service is in ${body['mode']} mode: finish the set-up first`
          : `HTTP ${String(status)}`,
    );
    this.status = status;
    this.code = typeof body['error'] === 'string' ? body['error'] : 'error';
    this.field = typeof body['field'] === 'string' ? body['field'] : undefined;
    this.position = typeof body['position'] === 'number' ? body['position'] : undefined;
    this.role = typeof body['role'] === 'string' ? body['role'] : undefined;
    this.retryAfterS =
      typeof body['retry_after_s'] === 'number' ? body['retry_after_s'] : undefined;
    this.body = body;
  }
}

const sessionListeners = new Set<() => void>();
const changed = (): void => {
  for (const l of sessionListeners) l();
};

/** The session token, kept across reloads; pages re-render when it changes. */
export const session = {
  get: (): string | null => localStorage.getItem(SESSION_KEY),
  set: (token: string): void => {
    localStorage.setItem(SESSION_KEY, token);
    changed();
  },
  clear: (): void => {
    if (localStorage.getItem(SESSION_KEY) === null) return;
    localStorage.removeItem(SESSION_KEY);
    changed();
  },
  subscribe: (listener: () => void): (() => void) => {
    sessionListeners.add(listener);
    return () => sessionListeners.delete(listener);
  },
};

/**
 * One call of the API with the session token: the parsed answer and its status (POST
 * /v1/autonomy says lowered with 200, requested with 202). Not 2xx: an ApiError; a 401 on a
 * held session ends it.
 */
export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = session.get();
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await reaching(path, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = {};
  let json = true;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    // A proxy's error page, say: the status still tells what happened.
    json = false;
  }
  if (!res.ok || !json) {
    if (res.status === 401 && token !== null) session.clear();
    throw new ApiError(
      res.ok ? 502 : res.status,
      json && typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, unknown>)
        : { message: `HTTP ${String(res.status)}: the answer was not JSON` },
    );
  }
  return { status: res.status, body: parsed as T };
}

/** One call of the API: the parsed answer of a 2xx (see `request`). */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await request<T>(method, path, body)).body;
}

/** A secret as stored and shown: a reference, never the value. */
export type SecretRef = { file: string } | { env: string };
/** A secret as sent: a reference, or a typed-in value the service writes to a 0600 file. */
export type SecretInput = SecretRef | { value: string };

export type Role = 'viewer' | 'responder' | 'admin' | 'owner';
export const ROLES: readonly Role[] = ['viewer', 'responder', 'admin', 'owner'];
/** Roles are ordered; each includes the ones below it. */
export const roleAtLeast = (role: string | undefined, needed: Role): boolean =>
  role !== undefined &&
  ROLES.indexOf(role as Role) >= 0 &&
  ROLES.indexOf(role as Role) >= ROLES.indexOf(needed);

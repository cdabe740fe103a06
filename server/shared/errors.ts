// The one error family of the service; server/http/errors.ts maps it to HTTP statuses.
export type ErrorKind =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'not_operating'
  | 'unavailable';

export abstract class ServiceError extends Error {
  abstract readonly kind: ErrorKind;
  readonly code: string;
  /** Safe to show to the caller: field, role, why, mode. */
  readonly details: Readonly<Record<string, unknown>>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

export class InvalidInputError extends ServiceError {
  override readonly kind = 'invalid_input';
}
export class UnauthenticatedError extends ServiceError {
  override readonly kind = 'unauthenticated';
}
export class ForbiddenError extends ServiceError {
  override readonly kind = 'forbidden';
}
export class NotFoundError extends ServiceError {
  override readonly kind = 'not_found';
}
export class ConflictError extends ServiceError {
  override readonly kind = 'conflict';
}
export class NotOperatingError extends ServiceError {
  override readonly kind = 'not_operating';
}
/** The store cannot commit (disk full, read-only file system): 503 so that senders retry. */
export class StorageUnavailableError extends ServiceError {
  override readonly kind = 'unavailable';
}

/**
 * On a keychain member, a write to a part its home carries (409 keychain_managed, naming the
 * part and where to change it). `carrier` says where ("the home DC A (ABCD…)"), null when the
 * part is this install's to change.
 */
export function refuseIfCarried(carrier: string | null, part: string, what: string): void {
  if (carrier === null) return;
  throw new ConflictError(
    'keychain_managed',
    `${what} carried by the keychain: change it on ${carrier}`,
    { part, why: `${carrier} carries ${part} to this install` },
  );
}

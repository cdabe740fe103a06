// The worker side of the read pool (server/db/read-pool.ts): answers one job at a time, in
// order, and says `ready` once its warm-up (loading what it caches) is done. An error the
// service means (a ServiceError: a bad query is a 400) goes back as itself and the worker
// stays; any other error marks the worker as suspect, and the pool replaces it.
import { parentPort } from 'node:worker_threads';
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  NotOperatingError,
  ServiceError,
  StorageUnavailableError,
  UnauthenticatedError,
  type ErrorKind,
} from '../shared/errors.js';

export interface WireError {
  readonly kind: ErrorKind | null;
  readonly code: string;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

export type ToWorker = { readonly id: number; readonly job: unknown };
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly id: number; readonly value: unknown }
  | { readonly type: 'failed'; readonly id: number; readonly error: WireError };

const KINDS: Record<
  ErrorKind,
  new (code: string, message: string, details: Record<string, unknown>) => ServiceError
> = {
  invalid_input: InvalidInputError,
  unauthenticated: UnauthenticatedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  conflict: ConflictError,
  not_operating: NotOperatingError,
  unavailable: StorageUnavailableError,
};

export function toWire(err: unknown): WireError {
  if (err instanceof ServiceError)
    return { kind: err.kind, code: err.code, message: err.message, details: err.details };
  return {
    kind: null,
    code: 'internal',
    message: err instanceof Error ? err.message : String(err),
    details: {},
  };
}

/** The ServiceError as thrown in the worker, or null for any other error. */
export function fromWire(e: WireError): ServiceError | null {
  return e.kind === null ? null : new KINDS[e.kind](e.code, e.message, { ...e.details });
}

/** Run in a worker: warm up, say ready, then answer each job with `handle`. */
export function serveReads<J>(warm: () => void, handle: (job: J) => unknown): void {
  const port = parentPort;
  if (port === null) throw new Error('serveReads runs in a worker thread');
  warm();
  port.postMessage({ type: 'ready' } satisfies FromWorker);
  port.on('message', ({ id, job }: ToWorker) => {
    let reply: FromWorker;
    try {
      reply = { type: 'done', id, value: handle(job as J) };
    } catch (err) {
      reply = { type: 'failed', id, error: toWire(err) };
    }
    port.postMessage(reply);
  });
}

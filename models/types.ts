// The one shape of a model call, shared by System 1 (fast gates) and System 2 (investigator,
// note). Every answer is JSON constrained by a schema, so callers never parse free text.

/** A JSON schema object; only the subset checked by validate.ts is enforced locally. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface ModelRequest {
  /** What the call is for ('note', 'next_check', 's1.enough'): named in errors and cassettes. */
  purpose: string;
  system: string;
  user: string;
  /** Schema of the answer; sent to the endpoint and checked again here. */
  schema: JsonSchema;
  max_tokens: number;
}

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ModelAnswer {
  /** Parsed JSON, already checked against the request's schema. */
  value: unknown;
  usage: ModelUsage;
  /** The model that answered, as the endpoint named it. */
  model: string;
  /** Wall time of the call, seconds (as recorded, when replayed). */
  seconds: number;
  /** True when the answer came from a cassette and cost nothing. */
  cached: boolean;
}

export interface ModelClient {
  call(request: ModelRequest, signal?: AbortSignal): Promise<ModelAnswer>;
}

/** Injected time, so ceilings and durations are testable (milliseconds since the epoch). */
export interface ModelClock {
  now(): number;
}

export const systemClock: ModelClock = { now: () => Date.now() };

export type ModelErrorKind =
  'timeout' | 'ceiling_spent' | 'refused' | 'invalid_answer' | 'cassette_miss';

interface ModelErrorDetails {
  purpose: string;
  /** HTTP status for 'refused'; null when no HTTP answer came (connection failed). */
  status?: number | null;
  /** ISO time (next 00:00 UTC) when a spent ceiling resets. */
  until?: string;
  /** Cassette key for 'cassette_miss'. */
  cassetteKey?: string;
}

/**
 * Every failure of a model call. Callers branch on `kind`: a timeout or spent ceiling means
 * "go on without the model" (template note, unverified gate), never "stall the episode".
 * Messages never contain the bearer key (see scrub in openai.ts).
 */
export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly purpose: string;
  readonly status: number | null;
  readonly until: string | null;
  /** Cassette key for 'cassette_miss' (never the bearer key). */
  readonly cassetteKey: string | null;

  constructor(kind: ModelErrorKind, message: string, details: ModelErrorDetails) {
    super(message);
    this.name = 'ModelError';
    this.kind = kind;
    this.purpose = details.purpose;
    this.status = details.status ?? null;
    this.until = details.until ?? null;
    this.cassetteKey = details.cassetteKey ?? null;
  }
}

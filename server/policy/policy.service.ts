// The policy document: managed in the SVC_POLICY file when that file exists (read and
// checked once, at start), otherwise through PUT /v1/policy. Intake reads it for every
// alert, so `current()` answers from memory.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError, InvalidInputError, refuseIfCarried } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import {
  checkPolicy,
  DEFAULT_POLICY,
  PolicySource,
  type Policy,
  type PolicyInput,
  type PolicyView,
} from './policy.schemas.js';
import { POLICY_LOADED, POLICY_SET, type PolicyStore } from './policy.store.js';
import { maintenanceFor, type SignalFacts } from './suppression.js';
import type { PolicyEvents } from './policy.events.js';

interface Deps {
  readonly store: PolicyStore;
  readonly ledger: DomainLedger<PolicyEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  /** config.files.policy (SVC_POLICY): manages the policy when it exists. */
  readonly file: string;
  /** Where the policy is changed when a keychain home carries it to this install, else null. */
  readonly carriedBy?: () => string | null;
}

/** The policy file cannot be read or is not a valid policy: the service refuses to start. */
export class PolicyFileError extends Error {
  override readonly name = 'PolicyFileError';
  readonly file: string;
  /** The dotted path of the offending field; null when the file cannot be read at all. */
  readonly field: string | null;
  constructor(file: string, field: string | null, why: string) {
    super(`policy file ${file}: ${why}`);
    this.file = file;
    this.field = field;
  }
}

export const sha256Of = (policy: Policy): string =>
  createHash('sha256').update(canonicalJson(policy), 'utf8').digest('hex');

/** Freeze the whole document: it is shared by every caller of current(). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

deepFreeze(DEFAULT_POLICY);

/** Read and check the policy file; null when there is no such file. */
export function readPolicyFile(file: string): { policy: Policy; sha256: string } | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new PolicyFileError(file, null, `cannot be read: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new PolicyFileError(file, null, `is not valid JSON: ${(err as Error).message}`);
  }
  try {
    const policy = checkPolicy(parsed);
    return { policy, sha256: sha256Of(policy) };
  } catch (err) {
    if (!(err instanceof InvalidInputError)) throw err;
    const field = typeof err.details['field'] === 'string' ? err.details['field'] : null;
    throw new PolicyFileError(file, field, err.message);
  }
}

/** A stored document, with sections added since it was stored taking their defaults. */
const withDefaults = (document: Record<string, unknown>): Policy => ({
  ...DEFAULT_POLICY,
  ...(document as Partial<Policy>),
});

/**
 * Build the service. When `file` exists it is read and checked here: a file that cannot be
 * read or is not a valid policy throws a PolicyFileError naming the file and the field.
 */
export function createPolicyService(deps: Deps) {
  const { store, ledger, writer, clock, file } = deps;
  const fromFile = readPolicyFile(file);
  if (fromFile !== null) deepFreeze(fromFile.policy);

  function view(): PolicyView {
    if (fromFile !== null) {
      const row = store.get('file');
      const recorded = row !== null && row.file === file && row.sha256 === fromFile.sha256;
      return {
        policy: fromFile.policy,
        source: PolicySource.File,
        file,
        sha256: fromFile.sha256,
        set_by: recorded ? row.set_by : null,
        set_at: recorded ? row.set_at : null,
      };
    }
    const row = store.get('api');
    const policy = row === null ? DEFAULT_POLICY : withDefaults(row.document);
    return deepFreeze({
      policy,
      source: row === null ? PolicySource.Default : PolicySource.Api,
      file: null,
      sha256: sha256Of(policy),
      set_by: row?.set_by ?? null,
      set_at: row?.set_at ?? null,
    });
  }

  let cached = view();

  return {
    /** The file that manages the policy, or null when it is managed through the API. */
    managedBy: (): string | null => (fromFile === null ? null : file),
    /** The policy in force, from memory: cheap enough for every alert. */
    current: (): Policy => cached.policy,
    /** GET /v1/policy. */
    get: (): PolicyView => cached,
    /**
     * Record the file's policy when the ledger last recorded something else (another
     * document, another file, or a PUT since). Call at start inside a writer transaction
     * (`writer.transactNow(() => policy.load())`); returns whether it appended.
     */
    load(): boolean {
      if (fromFile === null) return false;
      const last = store.last();
      if (
        last !== null &&
        last.source === 'file' &&
        last.file === file &&
        last.sha256 === fromFile.sha256
      ) {
        return false;
      }
      ledger.append({
        type: POLICY_LOADED,
        actor: 'system',
        data: { policy: fromFile.policy, file, sha256: fromFile.sha256 },
      });
      writer.afterCommit(() => {
        cached = view();
      });
      return true;
    },
    /** PUT /v1/policy: replace the whole document; 409 while the file manages it. */
    async put(input: PolicyInput, actor: Actor): Promise<PolicyView> {
      refuseIfCarried(deps.carriedBy?.() ?? null, 'policy', 'the policy is');
      if (fromFile !== null) {
        throw new ConflictError('policy_in_file', `the policy is managed in ${file}`, {
          why: `the policy is managed in ${file}; edit that file and restart`,
        });
      }
      const policy = checkPolicy(input);
      await writer.transact(() =>
        ledger.append({
          type: POLICY_SET,
          actor: actor.name,
          data: {
            policy,
            sha256: sha256Of(policy),
            ...(actor.via !== undefined && { via: actor.via }),
          },
        }),
      );
      cached = view();
      return cached;
    },
    /** The document in force and its SHA-256, as a keychain home carries it. */
    document: (): { doc: Policy; sha256: string } => ({
      doc: cached.policy,
      sha256: sha256Of(cached.policy),
    }),
    /**
     * Inside a writer job: record a policy a keychain home carried here (checked as a PUT
     * is). Refused while a file manages the policy, which would win again at the next start.
     */
    applyCarried(input: unknown, actor: string): void {
      if (fromFile !== null)
        throw new ConflictError('policy_in_file', `the policy is managed in ${file} here`, {
          why: `the policy is managed in ${file} on this install`,
        });
      const policy = checkPolicy(input);
      ledger.append({ type: POLICY_SET, actor, data: { policy, sha256: sha256Of(policy) } });
      writer.afterCommit(() => {
        cached = view();
      });
    },
    /** The maintenance window a signal falls in now, if any. */
    maintenanceNow: (s: SignalFacts) => maintenanceFor(cached.policy, s, clock.now()),
  };
}
export type PolicyService = ReturnType<typeof createPolicyService>;

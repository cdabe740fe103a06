// Connectors: managed in the SVC_CONNECTORS file when that file exists (read and checked
// once, at start; the API's changes answer 409), otherwise through PUT/DELETE, every change
// a ledger event. The runtime is rebuilt after every change, without a restart.
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Logger } from 'pino';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import {
  ConflictError,
  InvalidInputError,
  NotFoundError,
  refuseIfCarried,
} from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { checkDocument, isConnectorName, type SecretRef } from './document.js';
import type { Registry } from './registry.js';
import { createConnectorRuntime, type ConnectorEntry } from './runtime.js';
import {
  NO_SECRET_DIRS,
  readSecretFile,
  removeFiles,
  secretRefProblem,
  writeSecretFile,
  type SecretRefRules,
} from '../secrets/index.js';
import {
  carriedSecretFileOf,
  ownSecretFiles,
  secretFileOf,
  unusedCarriedFiles,
  unusedSecretFiles,
} from './secret-files.js';
import {
  CONNECTOR_KEYPAIR,
  createKeypair,
  scanHost,
  type HostKeyScan,
  type HostkeyInput,
  type Keypair,
  type KeypairInput,
} from './ssh-keys.js';
import { CONNECTOR_REMOVED, CONNECTOR_SET, type ConnectorsStore } from './connectors.store.js';
import type {
  Catalogue,
  ConnectorDocument,
  ConnectorList,
  ConnectorView,
  HealthView,
} from './connectors.schemas.js';
import type { ConnectorEvents } from './connectors.events.js';
import { isRecord } from '../shared/values.js';

export interface ConnectorsServiceDeps {
  readonly registry: Registry;
  readonly store: ConnectorsStore;
  readonly ledger: DomainLedger<ConnectorEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where {env} references are resolved (the process environment, from the app). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `<SVC_DATA>/secrets`: typed-in secrets are written here, 0600 in a 0700 folder. */
  readonly secretsDir: string;
  /**
   * What {file}/{env} references may name (config.secretRefs); absent: no folder, so only
   * typed-in secrets and variables other than SVC_*.
   */
  readonly secretRefs?: SecretRefRules;
  /** config.files.connectors (SVC_CONNECTORS): manages the connectors when it exists. */
  readonly file: string;
  /** Where connections are changed when a keychain home carries them here, or null. */
  readonly carriedBy?: () => string | null;
  /** config.connectorConcurrency (SVC_CONNECTOR_CONCURRENCY). */
  readonly defaultConcurrency: number;
  readonly queueLimit?: number;
}

/** The connectors file cannot be read or is not valid: the service refuses to start. */
export class ConnectorsFileError extends Error {
  override readonly name = 'ConnectorsFileError';
  readonly file: string;
  /** The dotted path of the offending field; null when the file cannot be read at all. */
  readonly field: string | null;
  constructor(file: string, field: string | null, why: string) {
    super(`connectors file ${file}: ${why}`);
    this.file = file;
    this.field = field;
  }
}

/**
 * Read and check the connectors file `{connectors: {<name>: {kind, settings, …}}}`; null when
 * there is no such file. Secrets in it must be {file} or {env} references, never values.
 */
export function readConnectorsFile(file: string, registry: Registry): ConnectorEntry[] | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConnectorsFileError(file, null, `cannot be read: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConnectorsFileError(file, null, `is not valid JSON: ${(err as Error).message}`);
  }
  if (!isRecord(parsed)) throw new ConnectorsFileError(file, 'document', 'must be an object');
  for (const key of Object.keys(parsed)) {
    if (key !== 'connectors')
      throw new ConnectorsFileError(file, key, `${key} is not a known field`);
  }
  const connectors = parsed['connectors'];
  if (!isRecord(connectors)) {
    throw new ConnectorsFileError(
      file,
      'connectors',
      'connectors must be an object of name → connector',
    );
  }
  return Object.entries(connectors)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, doc]) => {
      const field = `connectors.${name}`;
      if (!isConnectorName(name)) {
        throw new ConnectorsFileError(
          file,
          field,
          `${field}: a name is lower case letters, digits and -, starting with a letter`,
        );
      }
      try {
        const checked = checkDocument(doc, registry, {
          allowValue: false,
          fieldPrefix: `${field}.`,
        });
        return { name, document: checked.document, set_by: null, set_at: null };
      } catch (err) {
        if (!(err instanceof InvalidInputError)) throw err;
        const f = typeof err.details['field'] === 'string' ? err.details['field'] : field;
        throw new ConnectorsFileError(file, f, err.message);
      }
    });
}

const viaOf = (actor: Actor) => (actor.via !== undefined ? { via: actor.via } : {});

/**
 * Build the service. When `file` exists it is read and checked here: a file that cannot be
 * read or is not valid throws a ConnectorsFileError naming the file and the field.
 * Call `start()` once to build the connectors (their health checks run in the background).
 */
export function createConnectorsService(deps: ConnectorsServiceDeps) {
  const { registry, store, ledger, writer, log, secretsDir, file } = deps;
  const fromFile = readConnectorsFile(file, registry);
  const rules = deps.secretRefs ?? NO_SECRET_DIRS;
  const refProblem = (name: string, setting: string, ref: SecretRef): string | null =>
    secretRefProblem(ref, ownSecretFiles(secretsDir, name, setting), rules);
  const runtime = createConnectorRuntime({
    refProblem,
    registry,
    source: (): readonly ConnectorEntry[] =>
      fromFile ??
      store.all().map((r) => ({
        name: r.name,
        document: r.document,
        set_by: r.set_by,
        set_at: r.set_at,
      })),
    env: deps.env,
    defaultConcurrency: deps.defaultConcurrency,
    log,
    clock: deps.clock,
    ...(deps.queueLimit !== undefined && { queueLimit: deps.queueLimit }),
  });

  function refuseInFile(): void {
    refuseIfCarried(deps.carriedBy?.() ?? null, 'connections', 'connections are');
    if (fromFile !== null) {
      throw new ConflictError('connectors_in_file', `connectors are managed in ${file}`, {
        why: `connectors are managed in ${file}; edit that file and restart`,
      });
    }
  }
  /** A connector's document with the secrets this service wrote (typed in, key pairs) inlined. */
  function withOwnSecrets(name: string, document: ConnectorDocument): ConnectorDocument {
    const settings: Record<string, unknown> = {};
    for (const [setting, v] of Object.entries(document.settings)) {
      const f = (v as { file?: unknown } | null)?.file;
      let value: unknown = v;
      if (typeof f === 'string' && ownSecretFiles(secretsDir, name, setting).includes(f))
        try {
          value = { value: readSecretFile(f).reveal() };
        } catch {
          value = { missing_file: f }; // members refuse it, naming the setting
        }
      settings[setting] = value;
    }
    return { ...document, settings };
  }
  function checkName(name: string): void {
    if (!isConnectorName(name)) {
      throw new InvalidInputError(
        'invalid_input',
        'name must be lower case letters, digits and -, starting with a letter (at most 63)',
        { field: 'name' },
      );
    }
  }

  return {
    runtime,
    /** The file that manages the connectors, or null when they are managed through the API. */
    managedBy: (): string | null => (fromFile === null ? null : file),
    /** Build the configured connectors; health checks run in the background. */
    start(): void {
      runtime.rebuild();
      log.info(
        { connectors: runtime.list().length, file: fromFile === null ? null : file },
        'connectors built',
      );
    },
    catalogue: (): Catalogue => registry.catalogue(),
    list: (): ConnectorList => ({
      connectors: runtime.list(),
      file: fromFile === null ? null : file,
    }),
    /** PUT /v1/connectors/<name>: typed-in secrets go to 0600 files first, then the event. */
    async put(name: string, input: unknown, actor: Actor): Promise<ConnectorView> {
      refuseInFile();
      checkName(name);
      const checked = checkDocument(input, registry, {
        allowValue: true,
        refProblem: (setting, ref) => refProblem(name, setting, ref),
      });
      const settings: Record<string, unknown> = { ...checked.document.settings };
      for (const t of checked.typed) {
        const path = secretFileOf(secretsDir, name, t.setting);
        writeSecretFile(path, t.value);
        settings[t.setting] = { file: path };
      }
      const document: ConnectorDocument = { ...checked.document, settings };
      const previous = store.get(name);
      await writer.transact(() =>
        ledger.append({
          type: CONNECTOR_SET,
          actor: actor.name,
          data: { name, connector: document, ...viaOf(actor) },
        }),
      );
      removeFiles(unusedSecretFiles(secretsDir, name, previous?.document.settings ?? {}, settings));
      runtime.rebuild();
      log.info({ connector: name, kind: document.kind, actor: actor.name }, 'connector saved');
      const view = runtime.get(name);
      if (view === null) throw new Error(`connector ${name} missing after rebuild`);
      return view;
    },
    /**
     * The connections as a keychain home carries them: every connector, a secret typed in
     * here (or a key pair made here) as its value, since the part travels sealed to each
     * member; a {file} or {env} reference as itself.
     */
    document(): { connectors: Record<string, unknown> } {
      const entries = fromFile ?? store.all();
      return {
        connectors: Object.fromEntries(
          entries.map((e) => [e.name, withOwnSecrets(e.name, e.document)]),
        ),
      };
    },
    /**
     * Inside a writer job: take the connections a keychain home carried (each checked as a
     * PUT is, all before anything is written): set what changed, remove what is gone.
     */
    applyCarried(doc: unknown, actor: string): void {
      if (fromFile !== null) throw new Error(`connectors are managed in ${file} on this install`);
      const given = isRecord(doc) && isRecord(doc['connectors']) ? doc['connectors'] : null;
      if (given === null) throw new Error('the connections document has no connectors object');
      const checked = Object.entries(given).map(([name, d]) => {
        checkName(name);
        return {
          name,
          checked: checkDocument(d, registry, {
            allowValue: true,
            fieldPrefix: `connectors.${name}.`,
            refProblem: (setting, ref) => refProblem(name, setting, ref),
          }),
        };
      });
      // Secrets the home carried go to files of their own; the install's own secret files
      // are left as they are, so what it had before (its documents are in its ledger) can
      // be taken back after `own`.
      // The files are written once the documents are committed: one that fails to be written
      // is missing, so the document differs and the next pull writes it again.
      const files: { path: string; value: string }[] = [];
      for (const { name, checked: c } of checked) {
        const settings: Record<string, unknown> = { ...c.document.settings };
        for (const t of c.typed) {
          const path = carriedSecretFileOf(secretsDir, name, t.setting);
          files.push({ path, value: t.value });
          settings[t.setting] = { file: path };
        }
        const document: ConnectorDocument = { ...c.document, settings };
        const previous = store.get(name);
        if (previous !== null && canonicalJson(previous.document) === canonicalJson(document))
          continue;
        ledger.append({ type: CONNECTOR_SET, actor, data: { name, connector: document } });
      }
      for (const gone of store.all().filter((r) => !Object.hasOwn(given, r.name)))
        ledger.append({ type: CONNECTOR_REMOVED, actor, data: { name: gone.name } });
      writer.afterCommit(() => {
        try {
          for (const f of files) writeSecretFile(f.path, f.value);
          removeFiles(
            unusedCarriedFiles(
              secretsDir,
              store.all().map((r) => r.document),
            ),
          );
        } catch (err) {
          log.warn(
            { err: (err as Error).message },
            'a carried connection secret could not be written',
          );
        }
        runtime.rebuild();
      });
    },
    /** DELETE /v1/connectors/<name>: 404 when there is none. */
    async remove(name: string, actor: Actor): Promise<{ name: string; removed: true }> {
      refuseInFile();
      const previous = store.get(name);
      if (previous === null) {
        throw new NotFoundError('connector_not_found', `no connector named ${name}`);
      }
      await writer.transact(() =>
        ledger.append({
          type: CONNECTOR_REMOVED,
          actor: actor.name,
          data: { name, ...viaOf(actor) },
        }),
      );
      removeFiles(unusedSecretFiles(secretsDir, name, previous.document.settings, null));
      runtime.rebuild();
      log.info({ connector: name, actor: actor.name }, 'connector removed');
      return { name, removed: true };
    },
    /**
     * POST /v1/connectors/test: health of a throwaway client; a typed-in secret is used in
     * memory only. A failed check is an answer (ok false), not an error.
     */
    async test(input: unknown): Promise<HealthView> {
      const name = isRecord(input) && typeof input['name'] === 'string' ? input['name'] : 'test';
      const checked = checkDocument(input, registry, {
        allowValue: true,
        allowName: true,
        refProblem: (setting, ref) => refProblem(name, setting, ref),
      });
      return runtime.probe(name, checked.document);
    },
    /**
     * POST /v1/connectors/ssh/keypair: the private key goes to a 0600 file (also in file
     * mode: the file's private_key references it); the event names the file, not the key.
     */
    async sshKeypair(input: KeypairInput, actor: Actor): Promise<Keypair> {
      const pair = createKeypair(secretsDir, input);
      await writer.transact(() =>
        ledger.append({
          type: CONNECTOR_KEYPAIR,
          actor: actor.name,
          data: {
            name: pair.name,
            fingerprint: pair.fingerprint,
            private_key: pair.private_key,
            ...viaOf(actor),
          },
        }),
      );
      log.info({ connector: pair.name, fingerprint: pair.fingerprint }, 'ssh key pair made');
      return pair;
    },
    /** POST /v1/connectors/ssh/hostkey: the key a host offers, for pinning. */
    sshHostkey: (input: HostkeyInput): Promise<HostKeyScan> => scanHost(input),
    hasWorkingConnection: (): boolean => runtime.hasWorkingConnection(),
    /** One operation of a connector, within its limit and timeout (ConnectorCallError). */
    call: (name: string, op: string, args: Readonly<Record<string, unknown>> = {}) =>
      runtime.call(name, op, args),
    /** A health check of a configured connector; records it as its last_health. */
    health: (name: string): Promise<HealthView> => runtime.health(name),
    close: (): Promise<void> => runtime.close(),
  };
}
export type ConnectorsService = ReturnType<typeof createConnectorsService>;

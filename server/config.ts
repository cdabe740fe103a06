// The only reader of process.env (lint enforces it). Every SVC_* variable of the
// specification is declared here with its default and what it accepts; a bad value stops
// the start with one message listing every problem.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism, hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { Secret } from './shared/secret.js';
import { VERSION } from './version.js';

type Env = Readonly<Record<string, string | undefined>>;

interface VarSpec<T> {
  readonly doc: string;
  readonly accepts: string;
  readonly secret?: boolean;
  parse(raw: string): T | undefined;
}

const str = (doc: string): VarSpec<string> => ({
  doc,
  accepts: 'a non-empty text',
  parse: (raw) => (raw.trim() === '' ? undefined : raw),
});
const secret = (doc: string): VarSpec<Secret> => ({
  doc,
  accepts: 'a non-empty secret (the _FILE form, a path to a file holding it, is preferred)',
  secret: true,
  parse: (raw) => (raw.trim() === '' ? undefined : new Secret(raw.trim())),
});
/** Operator-set tokens: as long as a guess must never be short enough to try. */
export const MIN_TOKEN_LENGTH = 24;
const token = (doc: string): VarSpec<Secret> => ({
  doc,
  accepts: `a secret of at least ${String(MIN_TOKEN_LENGTH)} characters (the _FILE form, a path to a file holding it, is preferred)`,
  secret: true,
  parse: (raw) => (raw.trim().length < MIN_TOKEN_LENGTH ? undefined : new Secret(raw.trim())),
});
const int = (doc: string, min: number, max: number): VarSpec<number> => ({
  doc,
  accepts: `an integer from ${min} to ${max}`,
  parse: (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) return undefined;
    const n = Number(raw);
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
  },
});
const oneOf = <const T extends string>(doc: string, values: readonly T[]): VarSpec<T> => ({
  doc,
  accepts: `one of ${values.join(', ')}`,
  parse: (raw) => values.find((v) => v === raw.trim()),
});
const flag = (doc: string): VarSpec<boolean> => ({
  doc,
  accepts: '0 or 1',
  parse: (raw) => (raw.trim() === '1' ? true : raw.trim() === '0' ? false : undefined),
});
const url = (doc: string, schemes: readonly string[] = ['http:', 'https:']): VarSpec<string> => ({
  doc,
  accepts: `a URL (${schemes.map((s) => s.replace(':', '://')).join(', ')})`,
  parse: (raw) => {
    try {
      return schemes.includes(new URL(raw.trim()).protocol) ? raw.trim() : undefined;
    } catch {
      return undefined;
    }
  },
});
const jsonObject = (doc: string): VarSpec<Record<string, unknown>> => ({
  doc,
  accepts: 'a JSON object',
  parse: (raw) => {
    try {
      const v: unknown = JSON.parse(raw);
      return v !== null && typeof v === 'object' && !Array.isArray(v)
        ? (v as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  },
});
const syslogDestination: VarSpec<string> = {
  doc: 'where security and licence events are forwarded',
  accepts:
    'auto, off, stdout, /dev/log (or another socket path), udp://host[:port], tcp://host[:port] or tls://host[:port]',
  parse: (raw) => {
    const v = raw.trim();
    if (v === 'auto' || v === 'off' || v === 'stdout' || v.startsWith('/')) return v;
    try {
      const u = new URL(v);
      return ['udp:', 'tcp:', 'tls:'].includes(u.protocol) && u.hostname !== '' ? v : undefined;
    } catch {
      return undefined;
    }
  },
};
const syslogEvents: VarSpec<readonly string[]> = {
  doc: 'which events go to syslog: security (default), all, or a comma list of security and event-type prefixes',
  accepts: 'security, all, or a comma-separated list such as security,licence.,config.',
  parse: (raw) => {
    const parts = raw
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const ok = parts.every(
      (p) => p === 'security' || p === 'all' || /^[a-z_]+\.?[a-z_.]*$/.test(p),
    );
    return parts.length > 0 && ok ? parts : undefined;
  },
};
const FACILITIES = [
  'kern',
  'user',
  'mail',
  'daemon',
  'auth',
  'syslog',
  'lpr',
  'news',
  'uucp',
  'cron',
  'authpriv',
  'ftp',
  'ntp',
  'security',
  'console',
  'solaris-cron',
  'local0',
  'local1',
  'local2',
  'local3',
  'local4',
  'local5',
  'local6',
  'local7',
] as const;
const folders = (doc: string): VarSpec<readonly string[]> => ({
  doc,
  accepts: 'absolute folder paths separated by commas',
  parse: (raw) => {
    const parts = raw
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    return parts.length > 0 && parts.every((p) => isAbsolute(p))
      ? parts.map((p) => resolve(p))
      : undefined;
  },
});
const pins: VarSpec<readonly string[]> = {
  doc: 'SPKI pins of the licence authority',
  accepts: 'a comma-separated list of sha256/<base64>',
  parse: (raw) => {
    const parts = raw.split(',').map((p) => p.trim());
    return parts.every((p) => /^sha256\/[A-Za-z0-9+/]{43}=$/.test(p)) ? parts : undefined;
  },
};

const trustProxy: VarSpec<readonly string[]> = {
  doc: 'proxies whose X-Forwarded-For names the client (sign-in throttling, the ledger); none: the socket address counts',
  accepts: 'a comma-separated list of IP addresses or networks (10.0.0.0/8)',
  parse: (raw) => {
    const parts = raw.split(',').map((p) => p.trim());
    const ok = parts.every((p) => {
      const [ip = '', bits, ...more] = p.split('/');
      const family = isIP(ip);
      if (family === 0 || more.length > 0) return false;
      if (bits === undefined) return true;
      const n = /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
      return n >= 0 && n <= (family === 4 ? 32 : 128);
    });
    return ok ? parts : undefined;
  },
};

/** Every variable, in the order of the specification's table. */
export const VARIABLES = {
  SVC_DATA: str('data directory (ledger, incidents, settings, secrets)'),
  SVC_PORT: int('port of the API and console', 1, 65535),
  SVC_BIND: str('address to listen on'),
  SVC_CONSOLE_URL: url('console address as people reach it'),
  SVC_ADMIN_TOKEN: token('admin token (generated into SVC_DATA/admin-token when unset)'),
  SVC_INGEST_TOKEN: token('ingest token; ingestion is off without it'),
  SVC_ORCHESTRATE: flag('0 turns incident handling off'),
  SVC_LICENCE: str('licence file'),
  SVC_PACKS: str('sealed check packs folder'),
  SVC_CONNECTORS: str('connectors file'),
  // Not in the specification's table (issue 16); see docs/decisions.md.
  SVC_SECRETS_DIRS: folders(
    "folders whose files connectors' {file} secret references may name; never the data folder or a file another SVC_* variable names",
  ),
  SVC_POLICY: str('policy file'),
  SVC_INSTANCE: str('instance name'),
  SVC_POLL_S: int('poll interval for alert sources and approval channels, seconds', 1, 86400),
  SVC_POLL_WORKERS: int('simultaneous polls', 1, 256),
  SVC_MAX_CONCURRENT: int('simultaneous investigations', 1, 256),
  SVC_READ_WORKERS: int(
    'threads answering the episode list, each with its own read-only connection and in-memory index (about 150 MB at a million episodes)',
    1,
    16,
  ),
  SVC_CONNECTOR_CONCURRENCY: int('calls in flight per connector', 1, 256),
  SVC_SNAPSHOT_S: int('setup snapshot interval, seconds', 10, 86400),
  SVC_DISCOVER_TIMEOUT_S: int('discovery limit per connector, seconds', 1, 3600),
  SVC_MODEL_URL: url('OpenAI-compatible endpoint for investigator and note'),
  SVC_MODEL: str('model name at the endpoint'),
  SVC_SYSTEM2: str('System 2 profile; SVC_MODEL wins'),
  SVC_MODEL_KEY: secret('bearer token of the model endpoint'),
  SVC_MODEL_EXTRA: jsonObject('JSON merged into each model request'),
  SVC_MODEL_TIMEOUT_S: int('model call abandoned after this many seconds', 1, 3600),
  SVC_MODEL_CONCURRENCY: int('simultaneous model calls', 1, 256),
  SVC_MODEL_DAILY_TOKENS: int('daily token ceiling (0: none)', 0, Number.MAX_SAFE_INTEGER),
  SVC_MODEL_LOCAL: flag(
    '1: the model runs on this host (SVC_MODEL_URL there, or without it SVC_MODEL as a .gguf file, absolute or in <SVC_DATA>/models/; a GPU is required)',
  ),
  SVC_S1_URL: url('System 1 decisions endpoint'),
  SVC_S1_MODEL: str('System 1 model'),
  SVC_S1_KEY: secret('System 1 key'),
  SVC_S1_TIMEOUT_S: int('System 1 call abandoned after this many seconds', 1, 3600),
  SVC_S1_CONCURRENCY: int('simultaneous System 1 calls', 1, 256),
  SVC_S1_DAILY_TOKENS: int('System 1 daily ceiling (0: none)', 0, Number.MAX_SAFE_INTEGER),
  SVC_MODEL_CASSETTE: str('cassette directory of recorded model calls'),
  SVC_MODEL_REPLAY: oneOf('cassette mode', ['record', 'replay', 'auto'] as const),
  SVC_INVESTIGATOR: oneOf('investigator', ['loop', 'mcts'] as const),
  SVC_MCTS_S2_CALLS: int('tree search: System 2 calls', 1, 1024),
  SVC_MCTS_READS: int('tree search: reads', 1, 4096),
  SVC_MCTS_DEPTH: int('tree search: depth', 1, 64),
  SVC_ML_DIR: str('verified ML artifacts folder'),
  SVC_ML_TRUST: str(
    "Ed25519 public key (PEM, or a PEM file's path) that ML artefacts must also be signed by",
  ),
  SVC_CAUSAL_URL: url('causal discovery service'),
  SVC_CAUSAL_TOKEN: secret('causal discovery bearer token'),
  SVC_CAUSAL_TAU: int('causal discovery maximum lag', 1, 1000),
  SVC_CAUSAL_TIMEOUT_S: int('causal discovery call limit, seconds', 1, 3600),
  SVC_MAIL_PROVIDER: oneOf('mail provider', ['api', 'smtp'] as const),
  SVC_MAIL_FROM: str('sender address'),
  SVC_MAIL_API_KEY: secret('mail API key'),
  SVC_MAIL_API_URL: url('mail API endpoint'),
  SVC_SMTP_HOST: str('SMTP server'),
  SVC_SMTP_PORT: int('SMTP port', 1, 65535),
  SVC_SMTP_USER: str('SMTP account'),
  SVC_SMTP_PASSWORD: secret('SMTP password'),
  SVC_SMTP_SECURITY: oneOf('SMTP security', ['starttls', 'ssl', 'none'] as const),
  SVC_LICENCE_CHECK: oneOf('licence check mode', ['auto', 'strict', 'offline'] as const),
  SVC_AUTHORITY_URL: url('licence authority', ['https:', 'http:']),
  SVC_AUTHORITY_PINS: pins,
  SVC_CA_BUNDLE: str('CA bundle for TLS-inspecting proxies'),
  SVC_REVOCATION_FILE: str('signed revocation list'),
  SVC_CLOCK_TOLERANCE_S: int('backwards clock movement tolerated, seconds', 0, 31_536_000),
  SVC_MACHINE_ID_FILE: str('single-host fingerprint source'),
  SVC_HARDWARE_ID_FILE: str('hardware id file'),
  SVC_CLUSTER_UID: str('cluster uid; the fingerprint follows the cluster'),
  SVC_KEYCHAIN_JOIN: url('home install to join'),
  SVC_KEYCHAIN_SITE_KEY: secret('site key for joining'),
  SVC_KEYCHAIN_FILE: str('sealed keychain file'),
  SVC_KEYCHAIN_PASSPHRASE: secret('passphrase of the sealed keychain file'),
  SVC_SYSLOG: syslogDestination,
  SVC_SYSLOG_EVENTS: syslogEvents,
  SVC_SYSLOG_FACILITY: oneOf('syslog facility', FACILITIES),
  SVC_FIPS: flag('1 selects ECDSA P-256 ledger seals'),
  SVC_ANTIDEBUG: flag('anti-debugging in the compiled build'),
  SVC_LAB_APPROVER: flag('1 offers the auto-approving connection (doctor fails while on)'),
  // Not in the specification's table; see docs/decisions.md.
  SVC_TRIAL: flag('1 starts the offline trial at first start (npm start sets it)'),
  SVC_TRUST_PROXY: trustProxy,
  SVC_LOG_LEVEL: oneOf('log level', [
    'fatal',
    'error',
    'warn',
    'info',
    'debug',
    'trace',
    'silent',
  ] as const),
} as const;

type Vars = typeof VARIABLES;
type VarName = keyof Vars;

/**
 * Variables of the specification that are read and checked but that nothing acts on yet:
 * docs/configuration.md says so plainly, and config-use.test.ts fails when one is described
 * as working but used nowhere (or is flagged here but used). Drop a name once it takes effect.
 */
export const NOT_YET: ReadonlySet<VarName> = new Set<VarName>(['SVC_ANTIDEBUG']);
type Parsed<K extends VarName> = Vars[K] extends VarSpec<infer T> ? T : never;

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`The configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface Config {
  readonly dataDir: string;
  readonly version: string;
  readonly instance: string;
  readonly trial: boolean;
  readonly logLevel: string;
  readonly http: {
    readonly port: number;
    readonly bind: string;
    readonly consoleUrl: string | null;
    /** Proxies (addresses, networks) whose X-Forwarded-For counts; empty: none. */
    readonly trustProxy: readonly string[];
  };
  readonly tokens: { readonly admin: Secret | null; readonly ingest: Secret | null };
  readonly orchestrate: boolean;
  readonly files: {
    readonly licence: string;
    readonly packs: string;
    readonly connectors: string;
    readonly policy: string;
  };
  /** What connectors' secret references may name (SVC_SECRETS_DIRS) and never name. */
  readonly secretRefs: {
    readonly dirs: readonly string[];
    /**
     * The service's own files and folders (the data folder, the _FILE secrets, the licence,
     * …): a reference to one of them, or into one, is refused.
     */
    readonly ownPaths: readonly string[];
  };
  readonly poll: { readonly intervalS: number; readonly workers: number };
  readonly maxConcurrent: number;
  /** Worker threads of the episode list's reads (docs/decisions.md: its default). */
  readonly reads: { readonly workers: number };
  readonly connectorConcurrency: number;
  readonly snapshotS: number;
  readonly discoverTimeoutS: number;
  readonly model: {
    readonly url: string | null;
    readonly name: string | null;
    readonly system2: string | null;
    readonly key: Secret | null;
    readonly extra: Readonly<Record<string, unknown>> | null;
    readonly timeoutS: number;
    readonly concurrency: number;
    readonly dailyTokens: number;
    readonly local: boolean;
    readonly cassetteDir: string | null;
    readonly replay: 'record' | 'replay' | 'auto' | null;
  };
  readonly s1: {
    readonly url: string | null;
    readonly model: string | null;
    readonly key: Secret | null;
    readonly timeoutS: number;
    readonly concurrency: number;
    readonly dailyTokens: number;
  };
  readonly investigator: {
    readonly kind: 'loop' | 'mcts';
    readonly mctsS2Calls: number;
    readonly mctsReads: number;
    readonly mctsDepth: number;
  };
  readonly ml: { readonly dir: string; readonly trust: string | null };
  readonly causal: {
    readonly url: string | null;
    readonly token: Secret | null;
    readonly tau: number;
    readonly timeoutS: number;
  };
  readonly mail: {
    readonly provider: 'api' | 'smtp';
    readonly from: string | null;
    readonly apiKey: Secret | null;
    readonly apiUrl: string | null;
    readonly smtpHost: string | null;
    readonly smtpPort: number;
    readonly smtpUser: string | null;
    readonly smtpPassword: Secret | null;
    readonly smtpSecurity: 'starttls' | 'ssl' | 'none';
  };
  readonly licence: {
    readonly check: 'auto' | 'strict' | 'offline';
    readonly authorityUrl: string | null;
    readonly authorityPins: readonly string[];
    readonly caBundle: string | null;
    readonly revocationFile: string | null;
    readonly clockToleranceS: number;
    /** HTTPS_PROXY (https_proxy first): the licence checks' proxy; a secret, as it may hold a password. */
    readonly httpsProxy: Secret | null;
    /** NO_PROXY (no_proxy first): hosts the licence checks reach directly, as undici reads it. */
    readonly noProxy: string | null;
  };
  readonly identity: {
    readonly clusterUid: string | null;
    readonly machineIdFile: string;
    readonly hardwareIdFile: string | null;
  };
  readonly keychain: {
    readonly join: string | null;
    readonly siteKey: Secret | null;
    readonly file: string | null;
    readonly passphrase: Secret | null;
  };
  readonly syslog: {
    readonly destination: string;
    readonly events: readonly string[];
    readonly facility: (typeof FACILITIES)[number];
  };
  readonly fips: boolean;
  readonly antidebug: boolean;
  readonly labApprover: boolean;
}

/** Values that a caller (npm start, the Electron main process, tests) sets instead of env. */
export interface ConfigOverrides {
  readonly dataDir?: string;
  readonly bind?: string;
  readonly port?: number;
  readonly version?: string;
  /** The vCPUs the concurrency defaults are sized for; the machine's own when absent. */
  readonly cpus?: number;
}

export function loadConfig(env: Env, overrides: ConfigOverrides = {}): Config {
  const problems: string[] = [];

  function read<K extends VarName>(name: K): Parsed<K> | undefined {
    const spec = VARIABLES[name] as VarSpec<Parsed<K>>;
    let raw = env[name];
    let source: string = name;
    const fileVar = `${name}_FILE`;
    const file = env[fileVar];
    if (spec.secret === true && file !== undefined && file !== '') {
      // The _FILE form is preferred: it keeps the secret out of the process environment.
      try {
        raw = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
        source = fileVar;
      } catch (err) {
        problems.push(
          `${fileVar}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}); accepts a readable file holding the secret`,
        );
        return undefined;
      }
    }
    if (raw === undefined || raw === '') return undefined;
    const value = spec.parse(raw);
    if (value === undefined) {
      const shown = spec.secret === true ? '(hidden)' : JSON.stringify(raw.slice(0, 80));
      problems.push(`${source}: ${shown} is not valid; accepts ${spec.accepts}`);
    }
    return value;
  }
  const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

  const dataDir = resolve(overrides.dataDir ?? read('SVC_DATA') ?? '/var/lib/svc');
  const fipsFromOpenssl = env['OPENSSL_FIPS'] === '1';
  const smtpHost = orNull(read('SVC_SMTP_HOST'));
  const cpus = overrides.cpus ?? availableParallelism();

  const config: Config = {
    dataDir,
    version: overrides.version ?? VERSION,
    instance: read('SVC_INSTANCE') ?? hostname(),
    trial: read('SVC_TRIAL') ?? false,
    logLevel: read('SVC_LOG_LEVEL') ?? 'info',
    http: {
      port: overrides.port ?? read('SVC_PORT') ?? 8700,
      bind: overrides.bind ?? read('SVC_BIND') ?? '0.0.0.0',
      consoleUrl: orNull(read('SVC_CONSOLE_URL')),
      trustProxy: read('SVC_TRUST_PROXY') ?? [],
    },
    tokens: { admin: orNull(read('SVC_ADMIN_TOKEN')), ingest: orNull(read('SVC_INGEST_TOKEN')) },
    orchestrate: read('SVC_ORCHESTRATE') ?? true,
    files: {
      licence: read('SVC_LICENCE') ?? '/etc/svc/licence.json',
      packs: read('SVC_PACKS') ?? '/etc/svc/packs',
      connectors: read('SVC_CONNECTORS') ?? '/etc/svc/connectors.json',
      policy: read('SVC_POLICY') ?? '/etc/svc/policy.json',
    },
    secretRefs: {
      dirs: read('SVC_SECRETS_DIRS') ?? ['/run/secrets'],
      ownPaths: [],
    },
    poll: { intervalS: read('SVC_POLL_S') ?? 15, workers: read('SVC_POLL_WORKERS') ?? 16 },
    maxConcurrent: read('SVC_MAX_CONCURRENT') ?? Math.min(32, Math.max(4, 2 * cpus)),
    // One on two cores (the event loop and the writer need the other), two from three up.
    reads: { workers: read('SVC_READ_WORKERS') ?? Math.max(1, Math.min(2, cpus - 1)) },
    connectorConcurrency: read('SVC_CONNECTOR_CONCURRENCY') ?? 4,
    snapshotS: read('SVC_SNAPSHOT_S') ?? 600,
    discoverTimeoutS: read('SVC_DISCOVER_TIMEOUT_S') ?? 45,
    model: {
      url: orNull(read('SVC_MODEL_URL')),
      name: orNull(read('SVC_MODEL')),
      system2: orNull(read('SVC_SYSTEM2')),
      key: orNull(read('SVC_MODEL_KEY')),
      extra: orNull(read('SVC_MODEL_EXTRA')),
      timeoutS: read('SVC_MODEL_TIMEOUT_S') ?? 60,
      concurrency: read('SVC_MODEL_CONCURRENCY') ?? 8,
      dailyTokens: read('SVC_MODEL_DAILY_TOKENS') ?? 0,
      local: read('SVC_MODEL_LOCAL') ?? false,
      cassetteDir: orNull(read('SVC_MODEL_CASSETTE')),
      replay: orNull(read('SVC_MODEL_REPLAY')),
    },
    s1: {
      url: orNull(read('SVC_S1_URL')),
      model: orNull(read('SVC_S1_MODEL')),
      key: orNull(read('SVC_S1_KEY')),
      timeoutS: read('SVC_S1_TIMEOUT_S') ?? 20,
      concurrency: read('SVC_S1_CONCURRENCY') ?? 16,
      dailyTokens: read('SVC_S1_DAILY_TOKENS') ?? 0,
    },
    investigator: {
      kind: read('SVC_INVESTIGATOR') ?? 'loop',
      mctsS2Calls: read('SVC_MCTS_S2_CALLS') ?? 16,
      mctsReads: read('SVC_MCTS_READS') ?? 24,
      mctsDepth: read('SVC_MCTS_DEPTH') ?? 4,
    },
    ml: { dir: read('SVC_ML_DIR') ?? resolve(dataDir, 'ml'), trust: orNull(read('SVC_ML_TRUST')) },
    causal: {
      url: orNull(read('SVC_CAUSAL_URL')),
      token: orNull(read('SVC_CAUSAL_TOKEN')),
      tau: read('SVC_CAUSAL_TAU') ?? 6,
      timeoutS: read('SVC_CAUSAL_TIMEOUT_S') ?? 20,
    },
    mail: {
      provider: read('SVC_MAIL_PROVIDER') ?? (smtpHost !== null ? 'smtp' : 'api'),
      from: orNull(read('SVC_MAIL_FROM')),
      apiKey: orNull(read('SVC_MAIL_API_KEY')),
      apiUrl: orNull(read('SVC_MAIL_API_URL')),
      smtpHost,
      smtpPort: read('SVC_SMTP_PORT') ?? 587,
      smtpUser: orNull(read('SVC_SMTP_USER')),
      smtpPassword: orNull(read('SVC_SMTP_PASSWORD')),
      smtpSecurity: read('SVC_SMTP_SECURITY') ?? 'starttls',
    },
    licence: {
      check: read('SVC_LICENCE_CHECK') ?? 'auto',
      authorityUrl: orNull(read('SVC_AUTHORITY_URL')),
      authorityPins: read('SVC_AUTHORITY_PINS') ?? [],
      caBundle: orNull(read('SVC_CA_BUNDLE')),
      revocationFile: orNull(read('SVC_REVOCATION_FILE')),
      clockToleranceS: read('SVC_CLOCK_TOLERANCE_S') ?? 3600,
      httpsProxy: readProxy(env, problems),
      noProxy: orNull(firstSet(env, ['no_proxy', 'NO_PROXY'])?.value),
    },
    identity: {
      clusterUid: orNull(read('SVC_CLUSTER_UID')),
      machineIdFile: read('SVC_MACHINE_ID_FILE') ?? '/etc/machine-id',
      hardwareIdFile: orNull(read('SVC_HARDWARE_ID_FILE')),
    },
    keychain: {
      join: orNull(read('SVC_KEYCHAIN_JOIN')),
      siteKey: orNull(read('SVC_KEYCHAIN_SITE_KEY')),
      file: orNull(read('SVC_KEYCHAIN_FILE')),
      passphrase: orNull(read('SVC_KEYCHAIN_PASSPHRASE')),
    },
    syslog: {
      destination: read('SVC_SYSLOG') ?? 'auto',
      events: read('SVC_SYSLOG_EVENTS') ?? ['security'],
      facility: read('SVC_SYSLOG_FACILITY') ?? 'authpriv',
    },
    fips: read('SVC_FIPS') ?? fipsFromOpenssl,
    antidebug: read('SVC_ANTIDEBUG') ?? false,
    labApprover: read('SVC_LAB_APPROVER') ?? false,
  };

  problems.push(...mailProblems(config.mail, env['SVC_MAIL_PROVIDER'] !== undefined));
  if (fipsFromOpenssl && env['SVC_FIPS'] === '0') {
    problems.push(
      'SVC_FIPS: 0 conflicts with OPENSSL_FIPS=1; accepts 1 (or unset) while OpenSSL runs in FIPS mode',
    );
  }
  for (const name of Object.keys(env)) {
    if (
      name.startsWith('SVC_') &&
      !(name in VARIABLES) &&
      !(name.endsWith('_FILE') && isSecretVar(name.slice(0, -5)))
    ) {
      problems.push(
        `${name}: unknown variable; accepts only the SVC_* variables listed in docs/configuration.md`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const ownPaths = [
    ...new Set([
      dataDir,
      ...Object.values(config.files).map((f) => resolve(f)),
      resolve(config.identity.machineIdFile),
      ...pathsNamedIn(env),
    ]),
  ];
  return deepFreeze({ ...config, secretRefs: { ...config.secretRefs, ownPaths } });
}

/** The first of `names` set to a non-blank value, with the name that set it. */
function firstSet(env: Env, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/**
 * HTTPS_PROXY for the licence checks, read in either case (the lower-case form first, as curl
 * and undici do); a bare host:port is http:// as curl takes it. Not an SVC_* variable, but a
 * bad one is a problem like any other: a check must not quietly go around the proxy.
 */
function readProxy(env: Env, problems: string[]): Secret | null {
  const set = firstSet(env, ['https_proxy', 'HTTPS_PROXY']);
  if (set === undefined) return null;
  const value = set.value.includes('://') ? set.value : `http://${set.value}`;
  try {
    const u = new URL(value);
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '')
      return new Secret(value);
  } catch {
    // reported below
  }
  const shown = set.value.includes('@') ? '(hidden)' : JSON.stringify(set.value.slice(0, 80));
  problems.push(
    `${set.name}: ${shown} is not valid; accepts a proxy URL (http://host:port or https://host:port)`,
  );
  return null;
}

/** Every absolute path an SVC_* variable names (the _FILE forms of secrets among them). */
function pathsNamedIn(env: Env): string[] {
  return Object.entries(env)
    .filter(([name]) => name.startsWith('SVC_') && name !== 'SVC_SECRETS_DIRS')
    .map(([, v]) => (v ?? '').trim())
    .filter((v) => isAbsolute(v))
    .map((v) => resolve(v));
}

/** Mail variables that set only half of what sending needs would fail at the first code. */
function mailProblems(m: Config['mail'], providerSet: boolean): string[] {
  const out: string[] = [];
  if (m.provider === 'smtp' && m.smtpHost === null)
    out.push('SVC_SMTP_HOST: not set; SVC_MAIL_PROVIDER=smtp needs the SMTP server');
  if (m.provider === 'api' && providerSet && m.apiUrl === null)
    out.push('SVC_MAIL_API_URL: not set; SVC_MAIL_PROVIDER=api needs the mail API endpoint');
  if (m.provider === 'api' && m.apiUrl !== null && m.apiKey === null)
    out.push('SVC_MAIL_API_KEY: not set; SVC_MAIL_API_URL needs it (or SVC_MAIL_API_KEY_FILE)');
  if (m.smtpPassword !== null && m.smtpUser === null)
    out.push('SVC_SMTP_USER: not set; SVC_SMTP_PASSWORD needs the account it belongs to');
  if (m.smtpPassword !== null && m.smtpSecurity === 'none')
    out.push(
      'SVC_SMTP_SECURITY: none would send SVC_SMTP_PASSWORD in clear; accepts starttls or ssl',
    );
  return out;
}

function isSecretVar(name: string): boolean {
  return name in VARIABLES && (VARIABLES[name as VarName] as VarSpec<unknown>).secret === true;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !(value instanceof Secret)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Every variable with its effective value, secrets masked: for doctor and the start log. */
export function describeConfig(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(VARIABLES) as [VarName, VarSpec<unknown>][]) {
    const set = env[name] ?? env[`${name}_FILE`];
    out[name] = set === undefined ? '(default)' : spec.secret === true ? '***' : set;
    if (set !== undefined && NOT_YET.has(name)) out[name] += ' (not yet: no effect)';
  }
  return out;
}

/** The documentation table of every variable (docs/configuration.md is generated from it). */
export function variableTable(): {
  name: string;
  accepts: string;
  doc: string;
  secret: boolean;
  notYet: boolean;
}[] {
  return (Object.entries(VARIABLES) as [VarName, VarSpec<unknown>][]).map(([name, spec]) => ({
    name,
    accepts: spec.accepts,
    doc: spec.doc,
    secret: spec.secret === true,
    notYet: NOT_YET.has(name),
  }));
}

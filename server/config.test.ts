// The configuration: defaults, what a bad value says, _FILE secrets, masking, freezing, and
// that every variable of the specification's "Runtime settings" table exists.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, loadConfig, VARIABLES, variableTable } from './config.js';
import { Secret } from './shared/secret.js';

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.name).toBe('ConfigError');
    for (const p of e.problems) expect(e.message).toContain(p);
    return e.problems;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'svc-config-'));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('defaults', () => {
  it('every group, from an empty environment', () => {
    // availableParallelism() sizes SVC_MAX_CONCURRENT's default: six vCPUs here.
    const c = loadConfig({}, { cpus: 6 });
    expect(JSON.parse(JSON.stringify(c))).toStrictEqual({
      dataDir: '/var/lib/svc',
      version: '0.1.0',
      instance: hostname(),
      trial: false,
      logLevel: 'info',
      http: { port: 8700, bind: '0.0.0.0', consoleUrl: null, trustProxy: [] },
      tokens: { admin: null, ingest: null },
      orchestrate: true,
      files: {
        licence: '/etc/svc/licence.json',
        packs: '/etc/svc/packs',
        connectors: '/etc/svc/connectors.json',
        policy: '/etc/svc/policy.json',
      },
      secretRefs: {
        dirs: ['/run/secrets'],
        ownPaths: [
          '/var/lib/svc',
          '/etc/svc/licence.json',
          '/etc/svc/packs',
          '/etc/svc/connectors.json',
          '/etc/svc/policy.json',
          '/etc/machine-id',
        ],
      },
      poll: { intervalS: 15, workers: 16 },
      maxConcurrent: 12,
      reads: { workers: 2 },
      connectorConcurrency: 4,
      snapshotS: 600,
      discoverTimeoutS: 45,
      model: {
        url: null,
        name: null,
        system2: null,
        key: null,
        extra: null,
        timeoutS: 60,
        concurrency: 8,
        dailyTokens: 0,
        local: false,
        cassetteDir: null,
        replay: null,
      },
      s1: { url: null, model: null, key: null, timeoutS: 20, concurrency: 16, dailyTokens: 0 },
      investigator: { kind: 'loop', mctsS2Calls: 16, mctsReads: 24, mctsDepth: 4 },
      ml: { dir: '/var/lib/svc/ml', trust: null },
      causal: { url: null, token: null, tau: 6, timeoutS: 20 },
      mail: {
        provider: 'api',
        from: null,
        apiKey: null,
        apiUrl: null,
        smtpHost: null,
        smtpPort: 587,
        smtpUser: null,
        smtpPassword: null,
        smtpSecurity: 'starttls',
      },
      licence: {
        check: 'auto',
        authorityUrl: null,
        authorityPins: [],
        caBundle: null,
        revocationFile: null,
        clockToleranceS: 3600,
        httpsProxy: null,
        noProxy: null,
      },
      identity: { clusterUid: null, machineIdFile: '/etc/machine-id', hardwareIdFile: null },
      keychain: { join: null, siteKey: null, file: null, passphrase: null },
      syslog: { destination: 'auto', events: ['security'], facility: 'authpriv' },
      fips: false,
      antidebug: false,
      labApprover: false,
    });
  });

  it.each([
    [1, 4],
    [2, 4],
    [3, 6],
    [8, 16],
    [16, 32],
    [64, 32],
  ])('SVC_MAX_CONCURRENT: %i vCPUs give %i (2 per vCPU, 4 to 32)', (n, expected) => {
    expect(loadConfig({}, { cpus: n }).maxConcurrent).toBe(expected);
    expect(loadConfig({ SVC_MAX_CONCURRENT: '5' }).maxConcurrent).toBe(5);
  });

  it.each([
    [1, 1],
    [2, 1],
    [3, 2],
    [16, 2],
  ])(
    'SVC_READ_WORKERS: %i vCPUs give %i (a core left to the event loop, at most 2)',
    (n, expected) => {
      expect(loadConfig({}, { cpus: n }).reads.workers).toBe(expected);
      expect(loadConfig({ SVC_READ_WORKERS: '3' }).reads.workers).toBe(3);
      expect(() => loadConfig({ SVC_READ_WORKERS: '0' })).toThrow(/SVC_READ_WORKERS/);
    },
  );

  it('the ML folder follows the data folder; mail is smtp when SVC_SMTP_HOST is set', () => {
    const c = loadConfig({ SVC_DATA: '/srv/svc', SVC_SMTP_HOST: 'mail.example.org' });
    expect(c.dataDir).toBe('/srv/svc');
    expect(c.ml.dir).toBe('/srv/svc/ml');
    expect(c.mail).toMatchObject({
      provider: 'smtp',
      smtpHost: 'mail.example.org',
      smtpPort: 587,
      smtpSecurity: 'starttls',
    });
    const api = { SVC_MAIL_API_URL: 'https://mail.test/send', SVC_MAIL_API_KEY: 'k' };
    expect(loadConfig({ SVC_SMTP_HOST: 'm', SVC_MAIL_PROVIDER: 'api', ...api }).mail.provider).toBe(
      'api',
    );
  });

  it('overrides (npm start, Electron, tests) win over the environment', () => {
    const c = loadConfig(
      { SVC_PORT: '9000', SVC_BIND: '10.0.0.1', SVC_DATA: '/a' },
      { port: 0, bind: '127.0.0.1', dataDir: '/b', version: '9.9.9' },
    );
    expect([c.http.port, c.http.bind, c.dataDir, c.version]).toEqual([
      0,
      '127.0.0.1',
      '/b',
      '9.9.9',
    ]);
  });

  it('values are parsed to their types', () => {
    const c = loadConfig({
      SVC_PORT: '8080',
      SVC_ORCHESTRATE: '0',
      SVC_MODEL_EXTRA: '{"temperature":0,"top_p":1}',
      SVC_MODEL_REPLAY: 'replay',
      SVC_INVESTIGATOR: 'mcts',
      SVC_SYSLOG: 'udp://loghost:514',
      SVC_SYSLOG_EVENTS: 'security,licence.,config.',
      SVC_SYSLOG_FACILITY: 'local3',
      SVC_AUTHORITY_PINS: `sha256/${'A'.repeat(43)}=,sha256/${'b'.repeat(43)}=`,
      SVC_TRIAL: '1',
    });
    expect(c.http.port).toBe(8080);
    expect(c.orchestrate).toBe(false);
    expect(c.model.extra).toStrictEqual({ temperature: 0, top_p: 1 });
    expect(c.model.replay).toBe('replay');
    expect(c.investigator.kind).toBe('mcts');
    expect(c.syslog).toStrictEqual({
      destination: 'udp://loghost:514',
      events: ['security', 'licence.', 'config.'],
      facility: 'local3',
    });
    expect(c.licence.authorityPins).toHaveLength(2);
    expect(c.trial).toBe(true);
  });
});

describe('bad values', () => {
  it.each([
    ['SVC_PORT', 'abc', 'an integer from 1 to 65535'],
    ['SVC_PORT', '70000', 'an integer from 1 to 65535'],
    ['SVC_PORT', '80.5', 'an integer from 1 to 65535'],
    ['SVC_ORCHESTRATE', '2', '0 or 1'],
    ['SVC_ORCHESTRATE', 'yes', '0 or 1'],
    ['SVC_MODEL_REPLAY', 'bogus', 'one of record, replay, auto'],
    ['SVC_SYSLOG', 'ftp://x', 'udp://host[:port]'],
    ['SVC_MODEL_EXTRA', '[1]', 'a JSON object'],
    ['SVC_MODEL_EXTRA', '{not json', 'a JSON object'],
    ['SVC_INVESTIGATOR', 'tree', 'one of loop, mcts'],
    ['SVC_MODEL_URL', 'not a url', 'a URL (http://, https://)'],
    ['SVC_SMTP_SECURITY', 'tls', 'one of starttls, ssl, none'],
    ['SVC_LICENCE_CHECK', 'never', 'one of auto, strict, offline'],
    ['SVC_AUTHORITY_PINS', 'sha1/abc', 'sha256/<base64>'],
    ['SVC_POLL_S', '0', 'an integer from 1 to 86400'],
  ])('%s=%s is refused, naming the variable and what it accepts', (name, value, accepts) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    const spec = (VARIABLES as Record<string, { accepts: string }>)[name];
    expect(problems[0]).toBe(
      `${name}: ${JSON.stringify(value)} is not valid; accepts ${spec?.accepts ?? '?'}`,
    );
    expect(spec?.accepts).toContain(accepts);
  });

  it('SVC_TRUST_PROXY takes addresses and networks whose X-Forwarded-For counts', () => {
    expect(loadConfig({ SVC_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }).http.trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
    ]);
    for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.example', '1', '10.0.0.1,'])
      expect(problemsOf({ SVC_TRUST_PROXY: bad })[0]).toMatch(/^SVC_TRUST_PROXY: /);
  });

  it('operator-set tokens are at least 24 characters, and the problem never shows them', () => {
    for (const name of ['SVC_ADMIN_TOKEN', 'SVC_INGEST_TOKEN']) {
      const [problem] = problemsOf({ [name]: 'short-token-23-chars-xx' });
      expect(problem).toMatch(
        new RegExp(`^${name}: \\(hidden\\) is not valid; accepts .*24 characters`),
      );
      expect(problem).not.toContain('short-token');
      expect(() => loadConfig({ [name]: 'long-enough-token-24-chr' })).not.toThrow();
    }
  });

  it('every problem is listed at once', () => {
    const problems = problemsOf({
      SVC_PORT: 'abc',
      SVC_ORCHESTRATE: '2',
      SVC_MODEL_REPLAY: 'bogus',
      SVC_SYSLOG: 'ftp://x',
      SVC_MODEL_EXTRA: '[1]',
      SVC_BOGUS: '1',
    });
    expect(problems).toHaveLength(6);
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'SVC_BOGUS',
      'SVC_MODEL_EXTRA',
      'SVC_MODEL_REPLAY',
      'SVC_ORCHESTRATE',
      'SVC_PORT',
      'SVC_SYSLOG',
    ]);
    let message = '';
    try {
      loadConfig({ SVC_PORT: '70000', SVC_ORCHESTRATE: '2' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      'The configuration is not valid:\n' +
        '  - SVC_PORT: "70000" is not valid; accepts an integer from 1 to 65535\n' +
        '  - SVC_ORCHESTRATE: "2" is not valid; accepts 0 or 1',
    );
  });

  it('a bad secret is refused without showing it', () => {
    const problems = problemsOf({ SVC_INGEST_TOKEN: '   ' });
    expect(problems).toEqual([
      expect.stringMatching(/^SVC_INGEST_TOKEN: \(hidden\) is not valid; accepts /) as unknown,
    ]);
  });

  it('unknown SVC_ variables are refused; others are left alone', () => {
    expect(problemsOf({ SVC_PROT: '8700' })).toEqual([
      expect.stringMatching(/^SVC_PROT: unknown variable/) as unknown,
    ]);
    // _FILE exists only for secrets.
    expect(problemsOf({ SVC_PORT_FILE: '/tmp/x' })).toEqual([
      expect.stringMatching(/^SVC_PORT_FILE: unknown variable/) as unknown,
    ]);
    expect(() =>
      loadConfig({ PATH: '/usr/bin', HOME: '/root', SVCX: '1', NODE_ENV: 'test' }),
    ).not.toThrow();
  });

  it('SVC_FIPS=0 with OPENSSL_FIPS=1 is a conflict', () => {
    expect(problemsOf({ SVC_FIPS: '0', OPENSSL_FIPS: '1' })).toEqual([
      expect.stringMatching(/^SVC_FIPS: 0 conflicts with OPENSSL_FIPS=1/) as unknown,
    ]);
  });
});

describe('HTTPS_PROXY and NO_PROXY (licence checks; not SVC_* variables)', () => {
  it('are read in either case, the lower-case form first (as curl and undici do)', () => {
    const c = loadConfig({ HTTPS_PROXY: 'http://upper.test:3128', NO_PROXY: 'upper.test' });
    expect(c.licence.httpsProxy?.reveal()).toBe('http://upper.test:3128');
    expect(c.licence.noProxy).toBe('upper.test');
    const both = loadConfig({
      HTTPS_PROXY: 'http://upper.test:3128',
      https_proxy: 'http://lower.test:8080',
      NO_PROXY: 'upper.test',
      no_proxy: '.lower.test,10.0.0.1',
    });
    expect(both.licence.httpsProxy?.reveal()).toBe('http://lower.test:8080');
    expect(both.licence.noProxy).toBe('.lower.test,10.0.0.1');
  });

  it('a proxy without a scheme is http:// (curl reads it so); empty is unset', () => {
    expect(loadConfig({ https_proxy: 'proxy.test:3128' }).licence.httpsProxy?.reveal()).toBe(
      'http://proxy.test:3128',
    );
    const empty = loadConfig({ HTTPS_PROXY: ' ', NO_PROXY: '' });
    expect([empty.licence.httpsProxy, empty.licence.noProxy]).toEqual([null, null]);
  });

  it('the proxy is a secret (it may carry a password): never printed', () => {
    const c = loadConfig({ HTTPS_PROXY: 'http://user:pw-planted@proxy.test:3128' });
    expect(c.licence.httpsProxy).toBeInstanceOf(Secret);
    expect(JSON.stringify(c)).not.toContain('pw-planted');
  });

  it('a proxy that is not an http(s) URL is a problem, without showing a password', () => {
    expect(problemsOf({ HTTPS_PROXY: 'socks5://proxy.test:1080' })).toEqual([
      expect.stringMatching(
        /^HTTPS_PROXY: "socks5:\/\/proxy.test:1080" is not valid; accepts /,
      ) as unknown,
    ]);
    const hidden = problemsOf({ https_proxy: 'ftp://u:pw-planted@proxy.test' });
    expect(hidden).toEqual([
      expect.stringMatching(/^https_proxy: \(hidden\) is not valid/) as unknown,
    ]);
    expect(hidden.join()).not.toContain('pw-planted');
  });
});

describe('secrets', () => {
  it('the _FILE form is preferred, without its trailing newline', () => {
    const file = join(tmp, 'model-key');
    writeFileSync(file, 'key-from-file\n', { mode: 0o600 });
    const c = loadConfig({
      SVC_MODEL_KEY_FILE: file,
      SVC_MODEL_KEY: 'key-from-env',
      SVC_INGEST_TOKEN: 'ingest-from-env-0123456789',
    });
    expect(c.model.key).toBeInstanceOf(Secret);
    expect(c.model.key?.reveal()).toBe('key-from-file');
    expect(c.tokens.ingest?.reveal()).toBe('ingest-from-env-0123456789');
  });

  it('every secret has a _FILE form', () => {
    for (const [name, spec] of Object.entries(VARIABLES)) {
      if (!('secret' in spec) || spec.secret !== true) continue;
      const file = join(tmp, `${name}.secret`);
      writeFileSync(file, `value-of-${name}\n`);
      // SVC_SMTP_PASSWORD needs its account beside it.
      expect(() => loadConfig({ SVC_SMTP_USER: 'u', [`${name}_FILE`]: file }), name).not.toThrow();
    }
  });

  it('an unreadable _FILE is a problem naming it', () => {
    const missing = join(tmp, 'no-such-file');
    const problems = problemsOf({
      SVC_ADMIN_TOKEN_FILE: missing,
      SVC_ADMIN_TOKEN: 'fallback-is-not-used-0000',
      SVC_SMTP_PASSWORD_FILE: tmp,
    });
    expect(problems).toEqual([
      `SVC_ADMIN_TOKEN_FILE: cannot read ${missing} (ENOENT); accepts a readable file holding the secret`,
      `SVC_SMTP_PASSWORD_FILE: cannot read ${tmp} (EISDIR); accepts a readable file holding the secret`,
    ]);
  });

  it('print as *** in JSON.stringify(config) and describeConfig', () => {
    const file = join(tmp, 'smtp-password');
    writeFileSync(file, 'smtp-pass-from-file\n');
    const env = {
      SVC_ADMIN_TOKEN: 'admin-secret-value-123456',
      SVC_INGEST_TOKEN: 'ingest-secret-value-456789',
      SVC_MODEL_KEY: 'model-secret-value-789',
      SVC_SMTP_PASSWORD_FILE: file,
      SVC_SMTP_USER: 'mailer',
      SVC_PORT: '8701',
    };
    const c = loadConfig(env);
    const json = JSON.stringify(c);
    for (const v of [
      'admin-secret-value-123',
      'ingest-secret-value-456',
      'model-secret-value-789',
      'smtp-pass-from-file',
    ]) {
      expect(json).not.toContain(v);
      expect(String(c.tokens.admin)).not.toContain(v);
    }
    const parsed = JSON.parse(json) as {
      tokens: unknown;
      model: { key: unknown };
      mail: { smtpPassword: unknown; smtpUser: unknown };
    };
    expect(parsed.tokens).toStrictEqual({ admin: '***', ingest: '***' });
    expect(parsed.model.key).toBe('***');
    expect(parsed.mail.smtpPassword).toBe('***');
    expect(parsed.mail.smtpUser).toBe('mailer');

    const described = describeConfig(env);
    expect(described['SVC_ADMIN_TOKEN']).toBe('***');
    expect(described['SVC_INGEST_TOKEN']).toBe('***');
    expect(described['SVC_MODEL_KEY']).toBe('***');
    expect(described['SVC_SMTP_PASSWORD']).toBe('***');
    expect(described['SVC_SMTP_USER']).toBe('mailer');
    expect(described['SVC_PORT']).toBe('8701');
    expect(described['SVC_BIND']).toBe('(default)');
    expect(Object.keys(described).sort()).toEqual(Object.keys(VARIABLES).sort());
    expect(JSON.stringify(described)).not.toMatch(/secret-value|smtp-pass-from-file/);
  });

  it('the variable table marks the secrets', () => {
    const secrets = variableTable()
      .filter((v) => v.secret)
      .map((v) => v.name)
      .sort();
    expect(secrets).toEqual([
      'SVC_ADMIN_TOKEN',
      'SVC_CAUSAL_TOKEN',
      'SVC_INGEST_TOKEN',
      'SVC_KEYCHAIN_PASSPHRASE',
      'SVC_KEYCHAIN_SITE_KEY',
      'SVC_MAIL_API_KEY',
      'SVC_MODEL_KEY',
      'SVC_S1_KEY',
      'SVC_SMTP_PASSWORD',
    ]);
  });
});

const SELF = fileURLToPath(import.meta.url);

describe('secret references (SVC_SECRETS_DIRS)', () => {
  it("declares folders; every path an SVC_* variable names is the service's own", () => {
    const c = loadConfig({
      SVC_SECRETS_DIRS: '/run/secrets, /etc/svc/secrets/../keys',
      SVC_DATA: '/srv/svc',
      SVC_ADMIN_TOKEN_FILE: SELF,
      SVC_CA_BUNDLE: '/etc/ssl/proxy.pem',
    });
    expect(c.secretRefs.dirs).toEqual(['/run/secrets', '/etc/svc/keys']);
    expect(c.secretRefs.ownPaths).toEqual(
      expect.arrayContaining(['/srv/svc', SELF, '/etc/ssl/proxy.pem', '/etc/machine-id']),
    );
    expect(c.secretRefs.ownPaths).not.toContain('/run/secrets');
  });

  it('a relative folder is refused, naming the variable', () => {
    expect(() => loadConfig({ SVC_SECRETS_DIRS: 'secrets' })).toThrow(
      /SVC_SECRETS_DIRS: "secrets" is not valid; accepts absolute folder paths separated by commas/,
    );
  });
});

describe('fips', () => {
  it('OPENSSL_FIPS=1 turns fips on; SVC_FIPS=1 does too; off by default', () => {
    expect(loadConfig({ OPENSSL_FIPS: '1' }).fips).toBe(true);
    expect(loadConfig({ SVC_FIPS: '1' }).fips).toBe(true);
    expect(loadConfig({ OPENSSL_FIPS: '0' }).fips).toBe(false);
    expect(loadConfig({}).fips).toBe(false);
  });
});

describe('the config object', () => {
  it('is frozen, all the way down', () => {
    const c = loadConfig({
      SVC_MODEL_EXTRA: '{"a":{"b":1}}',
      SVC_ADMIN_TOKEN: 'admin-token-value-000000',
    });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.http)).toBe(true);
    expect(Object.isFrozen(c.syslog.events)).toBe(true);
    expect(Object.isFrozen(c.model.extra)).toBe(true);
    expect(() => {
      (c.http as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (c as { dataDir: string }).dataDir = '/tmp';
    }).toThrow(TypeError);
    expect(() => {
      (c.syslog.events as string[]).push('all');
    }).toThrow(TypeError);
    expect(c.http.port).toBe(8700);
    // A Secret is left as it is (its value is a private field), and still usable.
    expect(c.tokens.admin?.reveal()).toBe('admin-token-value-000000');
  });
});

describe('every variable of the specification exists', () => {
  // The table of "Runtime settings" in the HTTP API specification; hard-coded here so that
  // a clone without the shared specification still checks it.
  const SPEC_VARIABLES = [
    'SVC_DATA',
    'SVC_PORT',
    'SVC_BIND',
    'SVC_CONSOLE_URL',
    'SVC_ADMIN_TOKEN',
    'SVC_INGEST_TOKEN',
    'SVC_ORCHESTRATE',
    'SVC_LICENCE',
    'SVC_PACKS',
    'SVC_CONNECTORS',
    'SVC_POLICY',
    'SVC_INSTANCE',
    'SVC_POLL_S',
    'SVC_POLL_WORKERS',
    'SVC_MAX_CONCURRENT',
    'SVC_CONNECTOR_CONCURRENCY',
    'SVC_SNAPSHOT_S',
    'SVC_DISCOVER_TIMEOUT_S',
    'SVC_MODEL_URL',
    'SVC_MODEL',
    'SVC_SYSTEM2',
    'SVC_MODEL_KEY_FILE',
    'SVC_MODEL_KEY',
    'SVC_MODEL_EXTRA',
    'SVC_MODEL_TIMEOUT_S',
    'SVC_MODEL_CONCURRENCY',
    'SVC_MODEL_DAILY_TOKENS',
    'SVC_MODEL_LOCAL',
    'SVC_S1_URL',
    'SVC_S1_MODEL',
    'SVC_S1_KEY_FILE',
    'SVC_S1_KEY',
    'SVC_S1_TIMEOUT_S',
    'SVC_S1_CONCURRENCY',
    'SVC_S1_DAILY_TOKENS',
    'SVC_MODEL_CASSETTE',
    'SVC_MODEL_REPLAY',
    'SVC_INVESTIGATOR',
    'SVC_MCTS_S2_CALLS',
    'SVC_MCTS_READS',
    'SVC_MCTS_DEPTH',
    'SVC_ML_DIR',
    'SVC_ML_TRUST',
    'SVC_CAUSAL_URL',
    'SVC_CAUSAL_TOKEN_FILE',
    'SVC_CAUSAL_TOKEN',
    'SVC_CAUSAL_TAU',
    'SVC_CAUSAL_TIMEOUT_S',
    'SVC_MAIL_PROVIDER',
    'SVC_MAIL_FROM',
    'SVC_MAIL_API_KEY_FILE',
    'SVC_MAIL_API_KEY',
    'SVC_MAIL_API_URL',
    'SVC_SMTP_HOST',
    'SVC_SMTP_PORT',
    'SVC_SMTP_USER',
    'SVC_SMTP_PASSWORD_FILE',
    'SVC_SMTP_PASSWORD',
    'SVC_SMTP_SECURITY',
    'SVC_LICENCE_CHECK',
    'SVC_AUTHORITY_URL',
    'SVC_AUTHORITY_PINS',
    'SVC_CA_BUNDLE',
    'SVC_REVOCATION_FILE',
    'SVC_CLOCK_TOLERANCE_S',
    'SVC_MACHINE_ID_FILE',
    'SVC_HARDWARE_ID_FILE',
    'SVC_CLUSTER_UID',
    'SVC_KEYCHAIN_JOIN',
    'SVC_KEYCHAIN_SITE_KEY',
    'SVC_KEYCHAIN_FILE',
    'SVC_KEYCHAIN_PASSPHRASE_FILE',
    'SVC_KEYCHAIN_PASSPHRASE',
    'SVC_SYSLOG',
    'SVC_SYSLOG_EVENTS',
    'SVC_SYSLOG_FACILITY',
    'SVC_FIPS',
    'SVC_ANTIDEBUG',
    'SVC_LAB_APPROVER',
  ];
  const SPEC = fileURLToPath(new URL('../../shared/spec/http-api.md', import.meta.url));

  /** A name of the table: a variable, or the _FILE form of a secret variable. */
  function missing(names: readonly string[]): string[] {
    const vars: Record<string, { secret?: boolean }> = VARIABLES;
    return names.filter((n) => {
      if (n in vars) return false;
      return !(n.endsWith('_FILE') && vars[n.slice(0, -'_FILE'.length)]?.secret === true);
    });
  }

  it('the hard-coded list', () => {
    expect(missing(SPEC_VARIABLES)).toEqual([]);
  });

  it.skipIf(!existsSync(SPEC))('the table of the specification itself', () => {
    const text = readFileSync(SPEC, 'utf8');
    const start = text.indexOf('### Runtime settings');
    expect(start).toBeGreaterThan(-1);
    const section = text.slice(start, text.indexOf('\n#', start + 1));
    const names = section
      .split('\n')
      .filter((l) => l.startsWith('| SVC_'))
      .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/SVC_[A-Z0-9_]+/g)].map((m) => m[0]));
    expect(names.length).toBeGreaterThanOrEqual(SPEC_VARIABLES.length);
    expect(missing(names)).toEqual([]);
    expect(new Set(names)).toEqual(new Set(SPEC_VARIABLES));
  });
});

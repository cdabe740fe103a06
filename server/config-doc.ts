// docs/configuration.md is generated from the config module, so it cannot drift from it
// (a unit test compares them; `npm run docs:config` rewrites it).
import { variableTable } from './config.js';

const DEFAULTS: Readonly<Record<string, string>> = {
  SVC_DATA: '/var/lib/svc (npm start: ./data)',
  SVC_PORT: '8700',
  SVC_BIND: '0.0.0.0 (desktop: 127.0.0.1)',
  SVC_ADMIN_TOKEN: 'generated into SVC_DATA/admin-token',
  SVC_ORCHESTRATE: '1',
  SVC_LICENCE: '/etc/svc/licence.json',
  SVC_PACKS: '/etc/svc/packs',
  SVC_CONNECTORS: '/etc/svc/connectors.json',
  SVC_SECRETS_DIRS: '/run/secrets',
  SVC_POLICY: '/etc/svc/policy.json',
  SVC_INSTANCE: 'host name',
  SVC_POLL_S: '15',
  SVC_POLL_WORKERS: '16',
  SVC_MAX_CONCURRENT: '2 per vCPU, 4 to 32',
  SVC_CONNECTOR_CONCURRENCY: '4',
  SVC_SNAPSHOT_S: '600',
  SVC_DISCOVER_TIMEOUT_S: '45',
  SVC_MODEL_TIMEOUT_S: '60',
  SVC_MODEL_CONCURRENCY: '8',
  SVC_MODEL_DAILY_TOKENS: '0 (no ceiling)',
  SVC_S1_TIMEOUT_S: '20',
  SVC_S1_CONCURRENCY: '16',
  SVC_S1_DAILY_TOKENS: '0 (no ceiling)',
  SVC_INVESTIGATOR: 'loop',
  SVC_MCTS_S2_CALLS: '16',
  SVC_MCTS_READS: '24',
  SVC_MCTS_DEPTH: '4',
  SVC_ML_DIR: 'SVC_DATA/ml',
  SVC_CAUSAL_TAU: '6',
  SVC_CAUSAL_TIMEOUT_S: '20',
  SVC_MAIL_PROVIDER: 'api, or smtp when SVC_SMTP_HOST is set',
  SVC_MAIL_FROM: 'svc@SVC_INSTANCE',
  SVC_SMTP_PORT: '587',
  SVC_SMTP_SECURITY: 'starttls',
  SVC_LICENCE_CHECK: 'auto',
  SVC_CLOCK_TOLERANCE_S: '3600',
  SVC_MACHINE_ID_FILE: '/etc/machine-id',
  SVC_SYSLOG: 'auto (/dev/log when present, else stdout)',
  SVC_SYSLOG_EVENTS: 'security',
  SVC_SYSLOG_FACILITY: 'authpriv',
  SVC_FIPS: 'auto (1 when OPENSSL_FIPS=1)',
  SVC_TRIAL: '0 (npm start: 1)',
  SVC_LOG_LEVEL: 'info',
};

const NOT_YET = '**not yet**: read and checked, no effect yet.';

export function configurationMarkdown(): string {
  const rows = variableTable().map(
    (v) =>
      `| \`${v.name}\`${v.secret ? ` / \`${v.name}_FILE\`` : ''} | ${DEFAULTS[v.name] ?? 'none'} | ${v.accepts} | ${v.notYet ? `${NOT_YET} ` : ''}${v.doc} |`,
  );
  return [
    '# Configuration',
    '',
    'Every setting is an environment variable read once, at start, by `server/config.ts`. A bad',
    'value stops the start with one message that names every bad variable and what it accepts;',
    'an unknown `SVC_*` variable is refused too (a typo must not pass silently). Secrets have a',
    '`_FILE` form (a path to a file holding the secret), which is preferred: it keeps the secret',
    'out of the process environment. Secrets are never logged; `svc-core doctor` and the start',
    'log show them as `***`.',
    '',
    'A variable marked **not yet** is read and checked as the specification describes it, but',
    'nothing in this version acts on it yet: setting it changes nothing.',
    '',
    'This page is generated from the config module (`npm run docs:config`); a test keeps it in step.',
    '',
    '| variable | default | accepts | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

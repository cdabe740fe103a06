// Mail set by the environment (SVC_MAIL_*, SVC_SMTP_*): the settings document the variables
// make, in place of the stored one. Secrets show as references to the variable or to its
// _FILE; the values come from the config, which already read them.
import type { Config } from '../config.js';
import { DEFAULT_TIMEOUT_S, type MailSettings, type SecretRef } from './mail.settings.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface EnvironmentMail {
  readonly settings: MailSettings;
  /** The mail variables that are set, sorted: what the settings endpoint names. */
  readonly variables: readonly string[];
  /** What the settings' {env} references read when sending (the secrets, revealed late). */
  secretsEnv(): Env;
}

const MAIL_VARIABLE = /^SVC_(MAIL|SMTP)_/;

/**
 * The mail the variables set, or null when they set none (the stored settings apply then).
 * loadConfig has refused incomplete variables already. Without SVC_MAIL_FROM the sender is
 * svc@<instance> (docs/decisions.md).
 */
export function environmentMail(
  mail: Config['mail'],
  env: Env,
  instance: string,
): EnvironmentMail | null {
  const ref = (name: string): SecretRef => {
    const file = env[`${name}_FILE`];
    return file !== undefined && file !== '' ? { file } : { env: name };
  };
  const from = mail.from ?? `svc@${instance}`;
  let settings: MailSettings;
  if (mail.provider === 'smtp' && mail.smtpHost !== null) {
    settings = {
      transport: 'smtp',
      timeout_s: DEFAULT_TIMEOUT_S,
      smtp: {
        host: mail.smtpHost,
        port: mail.smtpPort,
        security: mail.smtpSecurity,
        from,
        ...(mail.smtpUser !== null && { username: mail.smtpUser }),
        ...(mail.smtpPassword !== null && { password: ref('SVC_SMTP_PASSWORD') }),
      },
    };
  } else if (mail.provider === 'api' && mail.apiUrl !== null && mail.apiKey !== null) {
    settings = {
      transport: 'api',
      timeout_s: DEFAULT_TIMEOUT_S,
      api: { url: mail.apiUrl, token: ref('SVC_MAIL_API_KEY'), from },
    };
  } else {
    return null;
  }
  const variables = Object.keys(env)
    .filter((k) => MAIL_VARIABLE.test(k) && env[k] !== undefined && env[k] !== '')
    .sort();
  return {
    settings,
    variables,
    secretsEnv: () => ({
      SVC_SMTP_PASSWORD: mail.smtpPassword?.reveal(),
      SVC_MAIL_API_KEY: mail.apiKey?.reveal(),
    }),
  };
}

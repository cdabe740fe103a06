// Mail settings (GET/PUT, admin), the test mail, and `send` for sign-in codes.
import { rmSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import {
  NO_SECRET_DIRS,
  readSecretFile,
  secretRefProblem,
  writeSecretFile,
  type SecretRefRules,
} from '../secrets/index.js';
import { ConflictError, InvalidInputError, refuseIfCarried } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import type { EnvironmentMail } from './mail.environment.js';
import { carriedMailSecretFile, mailSecretFile } from './mail.secrets.js';
import { sendMail, type SendResult } from './mail.send.js';
import {
  isAddress,
  maskSettings,
  parseMailSettings,
  type MailSettings,
  type SecretRef,
} from './mail.settings.js';
import type { MailSettingsView, MailTestReply } from './mail.schemas.js';
import type { MailStore } from './mail.store.js';
import type { MailEvents } from './mail.events.js';

export const MAIL_SET = 'config.mail_set';
export const MAIL_TESTED = 'config.mail_tested';

export interface MailDeps {
  readonly store: MailStore;
  readonly ledger: DomainLedger<MailEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  /** Where typed-in secrets are written (SVC_DATA/secrets). */
  readonly secretsDir: string;
  /** The environment {env} references read (process.env in production). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * What {file}/{env} references may name (config.secretRefs, as for connectors); absent:
   * no folder, so only typed-in secrets and variables other than SVC_*.
   */
  readonly secretRefs?: SecretRefRules;
  readonly log?: Pick<Logger, 'info' | 'warn'>;
  /** Mail set by SVC_MAIL_* / SVC_SMTP_* (environmentMail): wins over the stored settings. */
  readonly environment?: EnvironmentMail | null;
  /** Where the settings are changed when a keychain home carries them here, or null. */
  readonly carriedBy?: () => string | null;
}

const SECRET_SETTINGS = ['smtp.password', 'api.token'] as const;
type SecretSetting = (typeof SECRET_SETTINGS)[number];

/** GET /v1/settings/mail: the schema's type, so a change on either side fails tsc. */
export type { MailSettingsView };

/** Who the mail comes to, as the ledger may show it: the domain only. */
const domainOf = (to: string): string => to.slice(to.lastIndexOf('@') + 1);

export function createMailService({
  store,
  ledger,
  writer,
  clock,
  secretsDir,
  env,
  secretRefs,
  log,
  environment = null,
  carriedBy,
}: MailDeps) {
  const rules = secretRefs ?? NO_SECRET_DIRS;
  /** The files a setting's secret may be in without a SVC_SECRETS_DIRS folder: typed in here, or carried. */
  const ownFiles = (setting: SecretSetting): string[] => [
    mailSecretFile(secretsDir, setting),
    carriedMailSecretFile(secretsDir, setting),
  ];
  /** The first secret reference of `settings` that may not be used: its field and why. */
  function refused(settings: MailSettings): { field: string; why: string } | null {
    const refs = [
      ['smtp.password', settings.smtp?.password],
      ['api.token', settings.api?.token],
    ] as const;
    for (const [field, ref] of refs) {
      if (ref === undefined) continue;
      const why = secretRefProblem(ref, ownFiles(field), rules);
      if (why !== null) return { field, why };
    }
    return null;
  }
  /** The settings mail is sent with, and what their {env} references read. */
  function current(): { settings: MailSettings; env: MailDeps['env'] } | null {
    if (environment !== null)
      return { settings: environment.settings, env: environment.secretsEnv() };
    const stored = store.get();
    return stored === null ? null : { settings: stored.settings, env };
  }

  /**
   * Sends with the settings in use. Stored settings whose reference is refused are never
   * read; mail set by the environment is the operator's own (its SVC_* secrets are meant).
   */
  async function deliver(
    using: NonNullable<ReturnType<typeof current>>,
    mail: { to: string; subject: string; text: string },
  ): Promise<SendResult> {
    const no = environment === null ? refused(using.settings) : null;
    if (no !== null) return { ok: false, detail: `${no.field}: ${no.why}`, duration_ms: 0 };
    return sendMail(using.settings, using.env, mail, () => clock.now());
  }

  /** A body checked as a PUT is (400 naming the field): the settings and the typed-in secrets. */
  function check(given: unknown, fileFor: (setting: SecretSetting) => string) {
    const { settings, typed } = parseMailSettings(given, fileFor);
    const no = refused(settings);
    if (no !== null)
      throw new InvalidInputError('invalid_input', `${no.field}: ${no.why}`, { field: no.field });
    return { settings, typed };
  }

  /** A PUT body checked (400 naming the field), its typed-in secrets written (0600). */
  function checkAndWrite(given: unknown) {
    const fileFor = (setting: SecretSetting): string => mailSecretFile(secretsDir, setting);
    const { settings, typed } = check(given, fileFor);
    const previous = store.get()?.settings ?? null;
    for (const t of typed) writeSecretFile(fileFor(t.setting), t.value);
    return { settings, previous };
  }

  /** Inside a writer job: store the settings and record them, secrets masked. */
  function record(settings: MailSettings, actor: string, via?: string): void {
    store.put(settings, clock.nowIso());
    ledger.append({
      type: MAIL_SET,
      actor,
      data: { ...maskSettings(settings), ...(via !== undefined && { via }) },
    });
  }

  /** Files this service wrote that the new settings no longer point at. */
  function forgetUnused({ settings, previous }: ReturnType<typeof checkAndWrite>): void {
    const used = new Set(
      [settings.smtp?.password, settings.api?.token].map((r) =>
        r !== undefined && 'file' in r ? r.file : null,
      ),
    );
    for (const setting of SECRET_SETTINGS) {
      const own = mailSecretFile(secretsDir, setting);
      const was = setting === 'smtp.password' ? previous?.smtp?.password : previous?.api?.token;
      if (was !== undefined && 'file' in was && was.file === own && !used.has(own))
        rmSync(own, { force: true });
    }
  }

  function view(): MailSettingsView {
    if (environment !== null)
      return {
        configured: true,
        settings: maskSettings(environment.settings),
        updated_at: null,
        environment: [...environment.variables],
      };
    const current = store.get();
    return current === null
      ? { configured: false, settings: null, updated_at: null }
      : {
          configured: true,
          settings: maskSettings(current.settings),
          updated_at: current.updated_at,
        };
  }

  return {
    get: view,

    /** Whether sign-in codes can be sent at all (without revealing the secrets to know it). */
    isConfigured: (): boolean => environment !== null || store.get() !== null,

    /** PUT: validate (400 naming the field), write typed-in secrets (0600), store, record. */
    async set(given: unknown, actor: Actor): Promise<MailSettingsView> {
      refuseIfCarried(carriedBy?.() ?? null, 'mail', 'the mail settings are');
      if (environment !== null) {
        const names = environment.variables.join(', ');
        throw new ConflictError('mail_in_environment', `mail is set by ${names}`, {
          variables: [...environment.variables],
          why: `mail is set by the environment (${names}); change those variables and restart`,
        });
      }
      const checked = checkAndWrite(given);
      await writer.transact(() => {
        record(checked.settings, actor.name, actor.via);
      });
      forgetUnused(checked);
      return view();
    },

    /**
     * The settings as a keychain home carries them (the "mail" part): a secret typed in here
     * travels as its value (the part is sealed to each member), a reference as itself.
     */
    document(): unknown {
      const stored = store.get()?.settings ?? null;
      if (stored === null) return null;
      const inline = (ref: SecretRef | undefined, setting: SecretSetting) => {
        if (ref === undefined || !('file' in ref) || !ownFiles(setting).includes(ref.file))
          return ref;
        try {
          return { value: readSecretFile(ref.file).reveal() };
        } catch {
          // A lost file travels as what it is: members refuse it, naming the setting.
          return { missing_file: ref.file };
        }
      };
      return {
        ...stored,
        ...(stored.smtp !== undefined && {
          smtp: { ...stored.smtp, password: inline(stored.smtp.password, 'smtp.password') },
        }),
        ...(stored.api !== undefined && {
          api: { ...stored.api, token: inline(stored.api.token, 'api.token') },
        }),
      };
    },

    /**
     * Inside a writer job: take the settings a keychain home carried (checked as a PUT is;
     * secrets written to files of their own, apart from those typed in here). Refused while the environment
     * sets mail here.
     */
    applyCarried(doc: unknown, actor: string): void {
      if (environment !== null)
        throw new Error(
          `mail is set by the environment here (${environment.variables.join(', ')})`,
        );
      if (doc === null) {
        if (store.get() === null) return;
        throw new Error(
          'the home has no mail settings; this install keeps its own (own the mail part to change them here)',
        );
      }
      // The home's secrets go to files of their own (this install's own are left as they
      // are), written once the settings are committed: a write that fails leaves the file
      // missing, so the document differs and the next pull writes it again.
      const fileFor = (setting: SecretSetting) => carriedMailSecretFile(secretsDir, setting);
      const { settings, typed } = check(doc, fileFor);
      record(settings, actor);
      writer.afterCommit(() => {
        try {
          for (const t of typed) writeSecretFile(fileFor(t.setting), t.value);
          // A carried secret the home no longer sends must not linger here.
          const used = [settings.smtp?.password, settings.api?.token].map((r) =>
            r !== undefined && 'file' in r ? r.file : null,
          );
          for (const setting of SECRET_SETTINGS)
            if (!used.includes(fileFor(setting))) rmSync(fileFor(setting), { force: true });
        } catch (err) {
          log?.warn({ err: (err as Error).message }, 'mail: a carried secret could not be written');
        }
      });
    },

    /** Send one mail with the stored settings; never throws, never reveals a secret. */
    async send(to: string, subject: string, text: string): Promise<SendResult> {
      const using = current();
      if (using === null)
        return {
          ok: false,
          detail: 'mail is not configured (PUT /v1/settings/mail)',
          duration_ms: 0,
        };
      const result = await deliver(using, { to, subject, text });
      if (!result.ok)
        log?.warn({ to_domain: domainOf(to), detail: result.detail }, 'mail not sent');
      return result;
    },

    /** POST /v1/settings/mail/test {to}: a test mail, recorded with its outcome. */
    async test(to: string, actor: Actor): Promise<MailTestReply> {
      if (!isAddress(to))
        throw new InvalidInputError('invalid_input', 'to must be an e-mail address', {
          field: 'to',
        });
      const using = current();
      if (using === null)
        throw new InvalidInputError(
          'invalid_input',
          'mail is not configured yet: PUT /v1/settings/mail first',
          { field: 'settings' },
        );
      const result = await deliver(using, {
        to,
        subject: 'Test mail from the incident response service',
        text: 'This is a test mail. Sign-in codes will be sent the same way.\n',
      });
      await writer.transact(() => {
        ledger.append({
          type: MAIL_TESTED,
          actor: actor.name,
          data: { to, ok: result.ok, detail: result.detail, duration_ms: result.duration_ms },
        });
      });
      return result;
    },
  };
}
export type MailService = ReturnType<typeof createMailService>;

// Single sign-on with OpenID Connect (openid-client): the authorization code flow with PKCE
// (S256), state and nonce. start() keeps the state, nonce and code verifier in memory for
// 10 minutes, single use; callback() exchanges the code, lets openid-client validate the ID
// token (signature, issuer, audience, expiry, nonce), reads the groups claim (from the ID
// token, else from the userinfo answer), has people admit the person, and hands out a
// one-time redeem code (60 s) for the console — never the session token in a URL.
// redeem() turns that code into a session. Settings are a ledger event (config.sso_set)
// holding the client secret only as a {file}/{env} reference; a typed secret goes to a
// 0600 file first. Provider errors are shown as the provider's own error code and text.
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import * as oidc from 'openid-client';
import {
  NO_SECRET_DIRS,
  readSecretFile,
  removeFiles,
  secretRefProblem,
  writeSecretFile,
  type SecretRefRules,
} from '../../secrets/index.js';
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import type { Clock } from '../../shared/clock.js';
import { canonicalJson } from '../../shared/canonical-json.js';
import {
  ForbiddenError,
  InvalidInputError,
  refuseIfCarried,
  ServiceError,
  UnauthenticatedError,
} from '../../shared/errors.js';
import type { Actor } from '../../shared/types.js';
import {
  notSetUp,
  openSession,
  recordFailure,
  SignInUnavailableError,
  type PeopleForSignIn,
  type SessionOpener,
  type SignedIn,
} from '../ldap/shared.js';
import { addressFor, bindIdentity, type IdentitiesStore } from '../identities.js';
import type { SignInGuard } from '../throttle.js';
import type {
  DiscoverReply,
  GroupsReply,
  SsoSettings,
  SsoSettingsInput,
  SsoSettingsView,
  SyncReply,
  TestReply,
} from './sso.schemas.js';
import { SSO_SET, type SsoStore } from './sso.store.js';
import type { AccessEvents } from '../access.events.js';

/** How long a started sign-in may take at the provider. */
export const SSO_STATE_TTL_MS = 10 * 60 * 1000;
/** How long the console has to redeem the code the callback hands it. */
export const SSO_REDEEM_TTL_MS = 60 * 1000;
/** Discovered provider metadata is reused this long (sync drops it at once). */
const METADATA_TTL_MS = 10 * 60 * 1000;
/** Sign-ins in flight / codes waiting, at most: the oldest go first. */
const MAX_PENDING = 10_000;
const PROVIDER_TIMEOUT_S = 10;
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

export const SSO_SECRET_FILE = 'sso-client_secret';
/** Where a client secret a keychain home carried is written (never over the install's own). */
export const SSO_CARRIED_SECRET_FILE = 'keychain-sso-client_secret';

export interface SsoDeps<U> {
  readonly store: SsoStore;
  readonly ledger: DomainLedger<AccessEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly people: PeopleForSignIn<U>;
  readonly sessions: SessionOpener;
  readonly guard: SignInGuard;
  /** Each person's (issuer, subject), bound at their first sign-in. */
  readonly identities: IdentitiesStore;
  /** `<SVC_DATA>/secrets`: a typed-in client secret is written here (0600). */
  readonly secretsDir: string;
  /** Where {env} references are resolved (the process environment, from the app). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * What a client_secret {file}/{env} reference may name (config.secretRefs, as for
   * connectors): never the service's own files or SVC_* variables.
   */
  readonly secretRefs?: SecretRefRules;
  readonly log?: Pick<Logger, 'info' | 'warn'>;
  /** Where the settings are changed when a keychain home carries sign-in here, or null. */
  readonly carriedBy?: () => string | null;
  /** This install's callback from its own address (SVC_CONSOLE_URL), for carried settings. */
  readonly ownCallback?: string | null;
}

const NOT_SET: SsoSettings = {
  issuer: '',
  client_id: '',
  client_secret: null,
  redirect_uri: '',
  scopes: DEFAULT_SCOPES,
  groups_claim: 'groups',
  enabled: false,
};

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The provider's own words for an error: its OAuth error code and description, or the cause. */
export function providerErrorText(err: unknown): string {
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError) {
    return err.error_description === undefined
      ? err.error
      : `${err.error}: ${err.error_description}`;
  }
  if (err instanceof oidc.WWWAuthenticateChallengeError) {
    const p = err.cause[0]?.parameters;
    const error = p?.error ?? `HTTP ${String(err.status)}`;
    return p?.error_description === undefined ? error : `${error}: ${p.error_description}`;
  }
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  const why = cause instanceof Error ? ` (${cause.message})` : '';
  return `${err.message}${why}`;
}

/** An issuer must be https:// (http:// on loopback); `anyHttp` lets a redirect_uri be http://. */
function checkUrl(field: string, value: string, what: string, anyHttp = false): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError('invalid_input', `${field} is not a URL`, { field });
  }
  if (url.username !== '' || url.password !== '')
    throw new InvalidInputError('invalid_input', `${field} must not carry credentials`, { field });
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && (anyHttp || LOOPBACK.has(url.hostname))) return url;
  throw new InvalidInputError(
    'invalid_input',
    `${field} must be an https:// URL (${what}); http:// only on loopback`,
    { field },
  );
}

interface Pending {
  readonly nonce: string;
  readonly verifier: string;
  readonly at: number;
  /** The settings the flow started with: a change of settings ends flows in progress. */
  readonly key: string;
  /** SHA-256 of the browser's binding cookie: the callback must come from that browser. */
  readonly browser: string;
}

interface Redeemable<U> {
  readonly user: U;
  readonly at: number;
  readonly email: string;
  /** The same browser's cookie hash: the redeem must come from it too. */
  readonly browser: string;
}

/** The fields that say which provider and client sign people in: only the owner changes them. */
const PROVIDER_FIELDS = ['issuer', 'client_id', 'client_secret', 'redirect_uri'] as const;

/** The settings a keychain carries: all but the callback, which is each install's own address. */
const carriedFields = ({ redirect_uri: _own, ...rest }: SsoSettings) => rest;

/** The email_verified claim as providers send it: true, or the text "true" (some do). */
const isVerified = (v: unknown): boolean => v === true || v === 'true';

/** A map that forgets its oldest entries past `max`. */
function bounded<V>(max: number): Map<string, V> & { put(k: string, v: V): void } {
  const m = new Map<string, V>() as Map<string, V> & { put(k: string, v: V): void };
  m.put = (k, v) => {
    m.set(k, v);
    while (m.size > max) {
      const oldest = m.keys().next().value;
      if (oldest === undefined) break;
      m.delete(oldest);
    }
  };
  return m;
}

export function createSsoService<U>(deps: SsoDeps<U>) {
  const { store, ledger, writer, clock, people, sessions, guard, identities, log } = deps;
  const secretFile = join(deps.secretsDir, SSO_SECRET_FILE);
  const carriedFile = join(deps.secretsDir, SSO_CARRIED_SECRET_FILE);
  const pending = bounded<Pending>(MAX_PENDING);
  const redeemable = bounded<Redeemable<U>>(MAX_PENDING);
  let cached: { key: string; at: number; config: Promise<oidc.Configuration> } | null = null;

  const fail = (account: string, address: string, why: string) =>
    recordFailure({ ledger, writer }, { method: 'sso', account, address, why });

  function current(): SsoSettings {
    const row = store.get();
    return row === null ? NOT_SET : { ...NOT_SET, ...(row.settings as Partial<SsoSettings>) };
  }

  function view(): SsoSettingsView {
    const row = store.get();
    const s = current();
    return {
      ...s,
      scopes: [...s.scopes],
      set_by: row?.set_by ?? null,
      set_at: row?.set_at ?? null,
    };
  }

  function enabled(): SsoSettings {
    const s = current();
    if (!s.enabled || s.issuer === '' || s.client_id === '') {
      throw notSetUp(
        'sso_not_configured',
        'single sign-on is not set up: PUT /v1/settings/sso with enabled true',
        'sso_disabled',
      );
    }
    return s;
  }

  /** Why a client_secret reference may not be used, or null (the typed secret's file may). */
  const refused = (ref: NonNullable<SsoSettings['client_secret']>): string | null =>
    secretRefProblem(ref, [secretFile, carriedFile], deps.secretRefs ?? NO_SECRET_DIRS);

  function secretOf(s: Pick<SsoSettings, 'client_secret'>, typed?: string): string | null {
    if (typed !== undefined) return typed;
    const ref = s.client_secret;
    if (ref === null) return null;
    // A stored reference the rules no longer allow is never read.
    const no = refused(ref);
    if (no !== null)
      throw new SignInUnavailableError('sso_secret_unreadable', `client_secret: ${no}`);
    if ('file' in ref) {
      try {
        return readSecretFile(ref.file).reveal();
      } catch (err) {
        throw new SignInUnavailableError('sso_secret_unreadable', (err as Error).message);
      }
    }
    const v = deps.env[ref.env];
    if (v === undefined || v === '') {
      throw new SignInUnavailableError(
        'sso_secret_unreadable',
        `environment variable ${ref.env} (client_secret) is not set`,
      );
    }
    return v;
  }

  /** openid-client's configuration from the provider's metadata (discovery), by issuer. */
  async function discover(
    issuer: string,
    clientId: string,
    secret: string | null,
  ): Promise<oidc.Configuration> {
    const url = checkUrl('issuer', issuer, "the provider's issuer");
    const options: oidc.DiscoveryRequestOptions = {
      timeout: PROVIDER_TIMEOUT_S,
      ...(url.protocol === 'http:' && { execute: [oidc.allowInsecureRequests] }),
    };
    // Basic unless the provider lists only post (RFC 8414's default is basic).
    let config = await oidc.discovery(url, clientId, undefined, oidc.None(), options);
    if (secret !== null) {
      const methods = config.serverMetadata().token_endpoint_auth_methods_supported;
      const auth =
        methods !== undefined &&
        !methods.includes('client_secret_basic') &&
        methods.includes('client_secret_post')
          ? oidc.ClientSecretPost(secret)
          : oidc.ClientSecretBasic(secret);
      config = new oidc.Configuration(config.serverMetadata(), clientId, undefined, auth);
      if (url.protocol === 'http:') oidc.allowInsecureRequests(config);
      config.timeout = PROVIDER_TIMEOUT_S;
    }
    return config;
  }

  /** The configuration for the saved settings, reused for METADATA_TTL_MS. */
  function configuration(s: SsoSettings): Promise<oidc.Configuration> {
    const key = canonicalJson(s);
    const now = clock.now();
    if (cached !== null && cached.key === key && now - cached.at < METADATA_TTL_MS) {
      return cached.config;
    }
    const config = discover(s.issuer, s.client_id, secretOf(s));
    cached = { key, at: now, config };
    config.catch(() => {
      if (cached?.config === config) cached = null;
    });
    return config;
  }

  async function configurationOrUnavailable(s: SsoSettings): Promise<oidc.Configuration> {
    try {
      return await configuration(s);
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      throw new SignInUnavailableError(
        'sso_provider_unreachable',
        `cannot read the metadata of ${s.issuer}: ${providerErrorText(err)}`,
      );
    }
  }

  function prune(now: number): void {
    for (const [k, p] of pending) if (now - p.at > SSO_STATE_TTL_MS) pending.delete(k);
    for (const [k, r] of redeemable) if (now - r.at > SSO_REDEEM_TTL_MS) redeemable.delete(k);
  }

  /** Whether a provider is set here at all (a callback alone, set ahead, is none). */
  const providerSet = (): boolean => {
    const s = current();
    return store.get() !== null && (s.enabled || s.issuer !== '' || s.client_id !== '');
  };

  /** The settings a PUT or a test body describes (a typed secret kept apart). */
  function checkInput(
    input: SsoSettingsInput,
    typedFile = secretFile,
  ): { settings: SsoSettings; typed?: string } {
    const scopes = [...new Set(['openid', ...(input.scopes ?? DEFAULT_SCOPES)])];
    const previous = current();
    let secret: SsoSettings['client_secret'];
    let typed: string | undefined;
    const given = input.client_secret;
    if (given === undefined) secret = previous.client_secret;
    else if (given === null) secret = null;
    else if ('value' in given) {
      typed = given.value;
      secret = { file: typedFile };
    } else if ('file' in given) {
      if (!given.file.startsWith('/'))
        throw new InvalidInputError(
          'invalid_input',
          'client_secret.file must be an absolute path',
          {
            field: 'client_secret.file',
          },
        );
      secret = { file: given.file };
    } else secret = { env: given.env };
    const no = secret === null ? null : refused(secret);
    if (no !== null)
      throw new InvalidInputError('invalid_input', `client_secret: ${no}`, {
        field: 'client_secret',
      });
    const settings: SsoSettings = {
      issuer: input.issuer.trim().replace(/\/$/, ''),
      client_id: input.client_id.trim(),
      client_secret: secret,
      redirect_uri: input.redirect_uri.trim(),
      scopes,
      groups_claim: (input.groups_claim ?? 'groups').trim(),
      enabled: input.enabled,
    };
    if (settings.enabled || settings.issuer !== '')
      checkUrl('issuer', settings.issuer, "the provider's issuer");
    if (settings.enabled || settings.redirect_uri !== '')
      checkUrl('redirect_uri', settings.redirect_uri, "this service's callback", true);
    if (settings.enabled && settings.client_id === '')
      throw new InvalidInputError(
        'invalid_input',
        'client_id is required to enable single sign-on',
        {
          field: 'client_id',
        },
      );
    return typed === undefined ? { settings } : { settings, typed };
  }

  /** Groups from a claim value: a list of strings, or one string. */
  function groupsFrom(value: unknown): string[] | null {
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
    return null;
  }

  return {
    /** GET /v1/status: whether the console should offer single sign-on. */
    publicInfo: (): { enabled: boolean; issuer: string | null } => {
      const s = current();
      const on = s.enabled && s.issuer !== '' && s.client_id !== '';
      return { enabled: on, issuer: on ? s.issuer : null };
    },

    /** GET /v1/settings/sso */
    get: view,

    /** PUT /v1/settings/sso: a typed secret to its 0600 file, then config.sso_set (refs only). */
    async put(input: SsoSettingsInput, actor: Actor, isOwner: boolean): Promise<SsoSettingsView> {
      const { settings, typed } = checkInput(input);
      const before = current();
      // On a member whose home carries sign-in, only its own callback may change here.
      if (
        typed !== undefined ||
        canonicalJson(carriedFields(settings)) !== canonicalJson(carriedFields(before))
      )
        refuseIfCarried(deps.carriedBy?.() ?? null, 'signin', 'the single sign-on settings are');
      // Whoever names the provider decides who can sign in as anyone: the owner only.
      const changed = PROVIDER_FIELDS.filter((f) =>
        f === 'client_secret' && typed !== undefined
          ? true
          : canonicalJson(settings[f]) !== canonicalJson(before[f]),
      );
      if (changed.length > 0 && !isOwner)
        throw new ForbiddenError(
          'role_required',
          `changing the identity provider (${changed.join(', ')}) needs the owner role`,
          { role: 'owner' },
        );
      if (typed !== undefined) writeSecretFile(secretFile, typed);
      await writer.transact(() =>
        ledger.append({
          type: SSO_SET,
          actor: actor.name,
          data: { settings, ...(actor.via !== undefined && { via: actor.via }) },
        }),
      );
      const was = before.client_secret;
      const now = settings.client_secret;
      if (
        was !== null &&
        'file' in was &&
        was.file === secretFile &&
        (now === null || !('file' in now) || now.file !== secretFile)
      ) {
        removeFiles([secretFile]);
      }
      cached = null;
      pending.clear();
      log?.info(
        { issuer: settings.issuer, enabled: settings.enabled, actor: actor.name },
        'single sign-on settings saved',
      );
      return view();
    },

    /**
     * The settings as a keychain home carries them (part of "signin"): all but the callback;
     * a secret typed in here travels as its value (the part is sealed to each member).
     */
    document(): unknown {
      if (!providerSet()) return null;
      const s = carriedFields(current());
      const ref = s.client_secret;
      if (ref === null || !('file' in ref) || ![secretFile, carriedFile].includes(ref.file))
        return s;
      try {
        return { ...s, client_secret: { value: readSecretFile(ref.file).reveal() } };
      } catch {
        // A lost file travels as what it is: members refuse it, naming the setting.
        return { ...s, client_secret: { missing_file: ref.file } };
      }
    },

    /**
     * Inside a writer job: take the settings a keychain home carried, checked as a PUT is,
     * keeping this install's own callback; a carried secret goes to a file of its own once
     * the settings are committed.
     */
    applyCarried(doc: unknown, actor: string): void {
      if (doc === null) {
        if (!providerSet()) return;
        throw new Error(
          'the home has no single sign-on settings; this install keeps its own (own the signin part to change them here)',
        );
      }
      const given = doc as SsoSettingsInput & { client_secret?: { missing_file?: string } };
      if (given.client_secret?.missing_file !== undefined)
        throw new Error('client_secret: the home cannot read its own secret file');
      const own = current().redirect_uri || (deps.ownCallback ?? '');
      if (given.enabled && own === '')
        throw new Error(
          'redirect_uri: this install has no callback of its own yet (set SVC_CONSOLE_URL, or PUT /v1/settings/sso with its redirect_uri; the callback never travels)',
        );
      const { settings, typed } = checkInput({ ...given, redirect_uri: own }, carriedFile);
      ledger.append({ type: SSO_SET, actor, data: { settings } });
      writer.afterCommit(() => {
        try {
          if (typed !== undefined) writeSecretFile(carriedFile, typed);
          else removeFiles([carriedFile]);
        } catch (err) {
          log?.warn({ err: (err as Error).message }, 'sso: a carried secret could not be written');
        }
        cached = null;
        pending.clear();
      });
    },

    /** POST /v1/settings/sso/discover: what the provider's metadata offers. */
    async discover(input: { issuer: string; groups_claim?: string }): Promise<DiscoverReply> {
      const empty: DiscoverReply = {
        ok: false,
        detail: '',
        issuer: null,
        authorization_endpoint: null,
        token_endpoint: null,
        userinfo_endpoint: null,
        jwks_uri: null,
        scopes_supported: [],
        claims_supported: [],
        code_challenge_methods_supported: [],
        token_endpoint_auth_methods_supported: [],
        pkce_s256: false,
        groups_claim_offered: null,
      };
      checkUrl('issuer', input.issuer.trim(), "the provider's issuer");
      let m: oidc.ServerMetadata;
      try {
        m = (
          await discover(input.issuer.trim().replace(/\/$/, ''), 'svc-discover', null)
        ).serverMetadata();
      } catch (err) {
        return {
          ...empty,
          detail: `cannot read the metadata of ${input.issuer}: ${providerErrorText(err)}`,
        };
      }
      const claim = input.groups_claim ?? current().groups_claim;
      const pkce = m.code_challenge_methods_supported?.includes('S256') ?? false;
      const offered = m.claims_supported === undefined ? null : m.claims_supported.includes(claim);
      const notes = [
        pkce ? 'PKCE S256 offered' : 'PKCE S256 not listed (sent all the same)',
        offered === null
          ? 'claims not listed'
          : offered
            ? `${claim} claim offered`
            : `${claim} claim not listed`,
        m.userinfo_endpoint === undefined ? 'no userinfo endpoint' : 'userinfo endpoint present',
      ];
      return {
        ok: true,
        detail: `${m.issuer}: ${notes.join(', ')}`,
        issuer: m.issuer,
        authorization_endpoint: m.authorization_endpoint ?? null,
        token_endpoint: m.token_endpoint ?? null,
        userinfo_endpoint: m.userinfo_endpoint ?? null,
        jwks_uri: m.jwks_uri ?? null,
        scopes_supported: m.scopes_supported ?? [],
        claims_supported: m.claims_supported ?? [],
        code_challenge_methods_supported: m.code_challenge_methods_supported ?? [],
        token_endpoint_auth_methods_supported: m.token_endpoint_auth_methods_supported ?? [],
        pkce_s256: pkce,
        groups_claim_offered: offered,
      };
    },

    /**
     * POST /v1/settings/sso/test: discovery, then the client's credentials at the token
     * endpoint — a code grant with a made-up code, so that the provider checks the client
     * first: invalid_grant means the client was accepted, invalid_client that it was not.
     * The redirect_uri can only be proved by a real sign-in.
     */
    async test(input?: SsoSettingsInput): Promise<TestReply> {
      const { settings: s, typed } =
        input === undefined ? { settings: current(), typed: undefined } : checkInput(input);
      const checks: TestReply['checks'] = [];
      const done = (): TestReply => ({
        ok: checks.every((c) => c.ok),
        detail: checks.map((c) => `${c.name}: ${c.detail}`).join('; '),
        checks,
      });
      if (s.issuer === '' || s.client_id === '') {
        checks.push({ name: 'settings', ok: false, detail: 'issuer and client_id are not set' });
        return done();
      }
      let config: oidc.Configuration;
      try {
        config = await discover(s.issuer, s.client_id, secretOf(s, typed));
        checks.push({
          name: 'discovery',
          ok: true,
          detail: `metadata of ${config.serverMetadata().issuer} read`,
        });
      } catch (err) {
        const text = err instanceof ServiceError ? err.message : providerErrorText(err);
        checks.push({ name: 'discovery', ok: false, detail: text });
        return done();
      }
      try {
        await oidc.genericGrantRequest(config, 'authorization_code', {
          code: `svc-test-${randomBytes(8).toString('hex')}`,
          redirect_uri: s.redirect_uri,
          code_verifier: oidc.randomPKCECodeVerifier(),
        });
        checks.push({
          name: 'client',
          ok: false,
          detail: 'the provider accepted a made-up code: it is not checking codes',
        });
      } catch (err) {
        const refusal =
          err instanceof oidc.ResponseBodyError
            ? err.error
            : err instanceof oidc.WWWAuthenticateChallengeError
              ? (err.cause[0]?.parameters.error ?? 'invalid_client')
              : null;
        if (refusal !== null) {
          const accepted = refusal === 'invalid_grant';
          checks.push({
            name: 'client',
            ok: accepted,
            detail: accepted
              ? `client ${s.client_id} accepted (the made-up code was refused: ${providerErrorText(err)})`
              : `client ${s.client_id} refused: ${providerErrorText(err)}`,
          });
        } else {
          checks.push({
            name: 'client',
            ok: false,
            detail: `the token endpoint did not answer: ${providerErrorText(err)}`,
          });
        }
      }
      return done();
    },

    /** GET /v1/settings/sso/groups?q=: groups seen in SSO sign-ins (OIDC has no group listing). */
    groups(q: string): GroupsReply {
      return {
        source: 'sign_ins',
        detail:
          'groups the provider sent in sign-ins so far (refused ones included); OpenID Connect has no standard way to list groups',
        groups: store.searchGroups(q.trim(), 50),
      };
    },

    /**
     * POST /v1/settings/sso/sync: reads the provider's metadata and keys again. Groups of people
     * are not re-read: the service keeps no refresh or access tokens, so a person's groups are
     * read again at their next sign-in.
     */
    async sync(): Promise<SyncReply> {
      cached = null;
      const s = current();
      const explain =
        "people's groups are not re-read: the service keeps no provider tokens, so groups are read again at each person's next sign-in; to take access away now, disable the person (their sessions end)";
      if (!s.enabled || s.issuer === '') {
        return {
          metadata_refreshed: false,
          groups_reread: false,
          detail: `single sign-on is off; ${explain}`,
        };
      }
      try {
        await configuration(s);
        return {
          metadata_refreshed: true,
          groups_reread: false,
          detail: `metadata and keys of ${s.issuer} read again; ${explain}`,
        };
      } catch (err) {
        const text = err instanceof ServiceError ? err.message : providerErrorText(err);
        return {
          metadata_refreshed: false,
          groups_reread: false,
          detail: `cannot read the metadata of ${s.issuer}: ${text}; ${explain}`,
        };
      }
    },

    /**
     * GET /v1/auth/sso/start: the provider's authorization URL (PKCE S256, state, nonce), for
     * the browser whose binding cookie is `browser` (the route sets it).
     */
    async start(browser: string): Promise<string> {
      const s = enabled();
      const config = await configurationOrUnavailable(s);
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const verifier = oidc.randomPKCECodeVerifier();
      const now = clock.now();
      prune(now);
      pending.put(state, {
        nonce,
        verifier,
        at: now,
        key: canonicalJson(s),
        browser: sha256(browser),
      });
      return oidc
        .buildAuthorizationUrl(config, {
          redirect_uri: s.redirect_uri,
          scope: s.scopes.join(' '),
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        })
        .toString();
    },

    /**
     * GET /v1/auth/sso/callback: answers where the console goes next, `/sign-in?sso=<code>`.
     * Throws for a refused or failed sign-in (each one an auth.sign_in_failed event).
     */
    async callback(
      query: Readonly<Record<string, string | undefined>>,
      address: string,
      browser: string,
    ): Promise<string> {
      await guard.check(address, '');
      const state = query['state'] ?? '';
      const p = state === '' ? undefined : pending.get(state);
      if (p !== undefined) pending.delete(state);
      if (query['error'] !== undefined) {
        const why = `${query['error']}${query['error_description'] === undefined ? '' : `: ${query['error_description']}`}`;
        await fail('', address, `provider_error: ${query['error']}`.slice(0, 200));
        throw new UnauthenticatedError(
          'sso_provider_refused',
          `the identity provider did not sign you in: ${why}`,
        );
      }
      const s = enabled();
      if (
        p === undefined ||
        clock.now() - p.at > SSO_STATE_TTL_MS ||
        p.key !== canonicalJson(s) ||
        // Another browser than the one that started (a lured victim's callback): refused.
        p.browser !== sha256(browser)
      ) {
        await fail('', address, 'bad_state');
        return guard.failed(
          address,
          '',
          new UnauthenticatedError(
            'sso_bad_state',
            'this sign-in is unknown, used or expired; start again',
          ),
        );
      }
      const config = await configurationOrUnavailable(s);
      const here = new URL(s.redirect_uri);
      here.search = '';
      for (const [k, v] of Object.entries(query)) if (v !== undefined) here.searchParams.set(k, v);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, here, {
          pkceCodeVerifier: p.verifier,
          expectedState: state,
          expectedNonce: p.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        const text = providerErrorText(err);
        await fail('', address, 'code_exchange_failed');
        if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError)
          throw new UnauthenticatedError(
            'sso_exchange_refused',
            `the identity provider refused the sign-in: ${text}`,
          );
        throw new SignInUnavailableError(
          'sso_exchange_failed',
          `the sign-in could not be completed with ${s.issuer}: ${text}`,
        );
      }
      const claims = tokens.claims();
      if (claims === undefined) {
        await fail('', address, 'no_id_token');
        throw new SignInUnavailableError('sso_no_id_token', `${s.issuer} sent no ID token`);
      }
      let email = typeof claims['email'] === 'string' ? claims['email'] : '';
      let name = typeof claims['name'] === 'string' ? claims['name'] : '';
      let groups = groupsFrom(claims[s.groups_claim]);
      let verified = claims['email_verified'];
      if (
        (groups === null || email === '') &&
        config.serverMetadata().userinfo_endpoint !== undefined
      ) {
        try {
          const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
          groups ??= groupsFrom(info[s.groups_claim]);
          if (email === '' && typeof info.email === 'string') email = info.email;
          if (name === '' && typeof info.name === 'string') name = info.name;
          verified ??= info.email_verified;
        } catch (err) {
          log?.warn(
            { issuer: s.issuer, err: providerErrorText(err) },
            'single sign-on userinfo failed',
          );
        }
      }
      if (email === '') {
        await fail('', address, 'no_email');
        throw new ForbiddenError(
          'sso_no_email',
          `the identity provider sent no e-mail address (add the email scope)`,
        );
      }
      if (!isVerified(verified)) {
        await fail(email, address, 'email_unverified');
        throw new ForbiddenError(
          'sso_email_unverified',
          `the identity provider says ${email} is not verified`,
        );
      }
      const seen = groups ?? [];
      await writer.transact(() => {
        store.sawGroups(seen.slice(0, 200), clock.nowIso());
      });
      // Matched by (issuer, subject) once bound; by the verified address only the first time.
      const binding = {
        provider: `oidc:${s.issuer}`,
        subject: claims.sub,
        mismatch: 'sso_identity_mismatch',
      };
      let user: U;
      try {
        const admitted = addressFor({ identities, people }, { ...binding, email });
        user = await people.admit({
          email: admitted,
          ...(name !== '' && { name }),
          groups: seen,
          via: 'sso',
        });
        await bindIdentity(
          { identities, people, ledger, writer, clock },
          { ...binding, userId: people.identity(user).userId },
        );
      } catch (err) {
        if (err instanceof ServiceError) await fail(email, address, err.code);
        throw err;
      }
      guard.succeeded(address, email);
      const code = randomBytes(32).toString('base64url');
      prune(clock.now());
      redeemable.put(sha256(code), { user, at: clock.now(), email, browser: sha256(browser) });
      return `/sign-in?sso=${code}`;
    },

    /** POST /v1/auth/sso/redeem: the callback's one-time code → a session (method 'sso'). */
    async redeem(code: string, address: string, browser: string): Promise<SignedIn> {
      await guard.check(address, '');
      const key = sha256(code);
      const r = redeemable.get(key);
      redeemable.delete(key);
      if (
        r === undefined ||
        clock.now() - r.at > SSO_REDEEM_TTL_MS ||
        r.browser !== sha256(browser)
      ) {
        await fail('', address, 'bad_redeem_code');
        return guard.failed(
          address,
          '',
          new UnauthenticatedError(
            'sso_bad_code',
            'this sign-in code is unknown, used or expired; sign in again',
          ),
        );
      }
      return openSession(people, sessions, r.user, 'sso');
    },
  };
}
export type SsoService = ReturnType<typeof createSsoService>;

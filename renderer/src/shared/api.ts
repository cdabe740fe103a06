// The one typed client of the /v1 API. Every call carries the session token; an answer that
// is not 2xx becomes an ApiError with the server's code, message and the field it names.
// Each call tells connection.ts whether the service answered at all.
import { reaching } from '../shell/connection.js';

const SESSION_KEY = 'svc.session';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly position: number | undefined;
  /** The role a 403 role_required needs. */
  readonly role: string | undefined;
  /** Seconds to wait after a 429 too_many_attempts. */
  readonly retryAfterS: number | undefined;
  /** The whole error body, for the fields one call adds (a refusal's check, a 409's losses). */
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    super(
      typeof body['message'] === 'string'
        ? body['message']
        : typeof body['mode'] === 'string'
          ? `not available while the service is in ${body['mode']} mode: finish the set-up first`
          : `HTTP ${String(status)}`,
    );
    this.status = status;
    this.code = typeof body['error'] === 'string' ? body['error'] : 'error';
    this.field = typeof body['field'] === 'string' ? body['field'] : undefined;
    this.position = typeof body['position'] === 'number' ? body['position'] : undefined;
    this.role = typeof body['role'] === 'string' ? body['role'] : undefined;
    this.retryAfterS =
      typeof body['retry_after_s'] === 'number' ? body['retry_after_s'] : undefined;
    this.body = body;
  }
}

const sessionListeners = new Set<() => void>();
const changed = (): void => {
  for (const l of sessionListeners) l();
};

/** The session token, kept across reloads; pages re-render when it changes. */
export const session = {
  get: (): string | null => localStorage.getItem(SESSION_KEY),
  set: (token: string): void => {
    localStorage.setItem(SESSION_KEY, token);
    changed();
  },
  clear: (): void => {
    if (localStorage.getItem(SESSION_KEY) === null) return;
    localStorage.removeItem(SESSION_KEY);
    changed();
  },
  subscribe: (listener: () => void): (() => void) => {
    sessionListeners.add(listener);
    return () => sessionListeners.delete(listener);
  },
};

/**
 * One call of the API with the session token: the parsed answer and its status (POST
 * /v1/autonomy says lowered with 200, requested with 202). Not 2xx: an ApiError; a 401 on a
 * held session ends it.
 */
export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = session.get();
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await reaching(path, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = {};
  let json = true;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    // A proxy's error page, say: the status still tells what happened.
    json = false;
  }
  if (!res.ok || !json) {
    if (res.status === 401 && token !== null) session.clear();
    throw new ApiError(
      res.ok ? 502 : res.status,
      json && typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, unknown>)
        : { message: `HTTP ${String(res.status)}: the answer was not JSON` },
    );
  }
  return { status: res.status, body: parsed as T };
}

// The last live view with its ETag, per session token: GET /v1/live asks If-None-Match and
// a 304 gives this same object back (so nothing re-renders).
let liveCache: { token: string | null; etag: string; body: Live } | null = null;

/** GET /v1/live, revalidated: a few hundred bytes when seq has not moved. */
async function liveView(): Promise<Live> {
  const token = session.get();
  const cached = liveCache?.token === token ? liveCache : null;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (cached !== null) headers['if-none-match'] = cached.etag;
  // no-store: the browser's own cache would answer the revalidation itself, unseen.
  const res = await reaching('/v1/live', { headers, cache: 'no-store' });
  if (res.status === 304 && cached !== null) return cached.body;
  if (!res.ok) {
    if (res.status === 401 && token !== null) session.clear();
    const parsed: unknown = await res.json().catch(() => ({}));
    throw new ApiError(
      res.status,
      typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {},
    );
  }
  const body = (await res.json()) as Live;
  const etag = res.headers.get('etag');
  liveCache = etag === null ? null : { token, etag, body };
  return body;
}

/** One call of the API: the parsed answer of a 2xx (see `request`). */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await request<T>(method, path, body)).body;
}

/** GET /v1/doctor: each check's result, the worst of them as the report's status. */
export interface DoctorCheck {
  area: string;
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  hint: string;
  duration_ms: number;
}
export interface DoctorReport {
  status: 'ok' | 'warn' | 'fail';
  checked_at: string;
  cached: boolean;
  checks: DoctorCheck[];
}

export interface Status {
  version: string;
  instance: string;
  mode: 'setup' | 'configuring' | 'operating';
  /** This install's fingerprint (six groups of four), null when the host gives none. */
  fingerprint?: string | null;
  licence: StatusLicence | null;
  setup: {
    steps: { id: string; title: string; done: boolean; hint: string }[];
    done: number;
    of: number;
  };
  orchestrate: boolean;
  impact_set: boolean;
  ledger: { seq: number; segments: number };
  /** The sign-in methods offered now: token, password, code, ldap, sso. */
  auth?: { sso: boolean; methods: string[] };
}

/** Where a licence stands (server/licence/stages.ts). */
export type LicenceStage = 'not_yet' | 'valid' | 'expiring' | 'in_grace' | 'lapsed';

/** GET /v1/status `licence`: the licence in force (the offline trial or a signed licence). */
export interface StatusLicence {
  tier: string;
  /** trial: the offline trial; licence: a signed licence */
  kind: 'trial' | 'licence';
  customer: string | null;
  /** the licensed number of services; null = unlimited */
  services: number | null;
  /** services counted against the limit (null when there is nothing to count against) */
  services_used?: number | null;
  /** installs listed on the licence */
  installs: number;
  /** null = unlimited (a site licence) */
  install_limit: number | null;
  /** null = perpetual */
  expires_at: string | null;
  grace_ends_at: string | null;
  in_grace: boolean;
  stage: LicenceStage;
  valid: boolean;
  /** why the licence does not let the service operate */
  why: string | null;
  /** whole days until expires_at; null for a perpetual licence */
  days_left: number | null;
  /** SVC_LICENCE_CHECK in force: auto, strict or offline */
  check: string;
  /** the last confirmation by the licence authority, where the service reports it */
  confirmed_at?: string | null;
  /** false for the offline trial: nobody vouched for it */
  verified: boolean;
  /** the mounted licence file (SVC_LICENCE) when the licence is managed as a file */
  file_mounted: string | null;
}

export interface RunningEpisode {
  episode_id: string;
  service: string;
  alerts: string[];
  status: string;
  step: string;
  t_open: string;
  /** The worst severity of its signals (critical, high, warning, info, unknown). */
  severity: string;
  incident_id: string | null;
}

export interface Live {
  seq: number;
  running: RunningEpisode[];
}

export interface EpisodeRow {
  episode_id: string;
  service: string;
  t_open: string;
  t_close: string | null;
  alerts: string[];
  confirmed: unknown[];
  decision: string;
  outcome: string;
  result: string;
  action: string;
  handover_s: number | null;
  autonomy: string;
  kind: string;
  confidence: string;
  /** the worst severity of its alerts (critical, high, warning, info, unknown) */
  severity?: string;
  duration_s: number | null;
  incident_id: string | null;
  verdict: string | null;
  suppressed: boolean;
  related?: number;
  related_ids?: string[];
  services?: string[];
}

export interface Scorecard {
  episodes: number;
  results: Record<string, number>;
  incidents: number;
  share_ended_by_3am: number | null;
  restore_s: { median: number | null };
  handover_s: { median: number | null; within_90: number | null };
  actions: { ran: number; verified: number; taken_back: number; not_verified: number };
  minutes_saved: number | null;
  /** How minutes_saved was counted; shadow mode's would-be figure apart from it. */
  minutes_saved_how?: {
    shadow_proven: number;
    shadow_would_save: number | null;
    text: string;
  };
}

export interface HistogramDay {
  day: string;
  total: number;
  failures: number;
  symptoms: number;
  proven: number;
  mitigated: number;
  escalated: number;
  /** per result, without the episodes taken back; with taken_back it adds up to total */
  results: Record<string, number>;
  taken_back: number;
  restore_s: { median: number | null; n: number };
  handover_s: { median: number | null; n: number };
}

export interface EpisodeList {
  episodes: EpisodeRow[];
  total: number;
  limit: number;
  offset: number;
  sort: string;
  running: RunningEpisode[];
  seq: number;
  facets: Record<string, Record<string, number>>;
  latest?: number;
  complete?: boolean;
  scorecard?: Scorecard;
  histogram?: HistogramDay[];
}

export interface TimelineEvent {
  seq: number;
  ts: string;
  type: string;
  actor: string;
  data: Record<string, unknown>;
  reason: string | null;
}

export interface Episode extends Omit<EpisodeRow, 'suppressed' | 'duration_s' | 'verdict'> {
  live: boolean;
  status?: string;
  step?: string;
  relation: string;
  suppressed: { kind: string; rule: string; until?: string; at?: string }[];
  team: { verdict: string; detail: string | null } | null;
  findings?: unknown[];
  hypotheses?: unknown[];
  timeline: TimelineEvent[];
  more: boolean;
}

export interface Incident {
  incident_id: string;
  status: string;
  root_episode_id: string;
  services: string[];
  lifecycle: { status: string; opened_at: string; resolved_at: string | null; duration_s: number };
  episodes: {
    episode_id: string;
    service: string;
    relation: string;
    status: string;
    t_open: string;
    t_close: string | null;
    alerts: string[];
    decision: string;
    outcome: string;
    result: string;
  }[];
  causes: { episode_id: string; cause: unknown }[];
  fixes: { episode_id: string; fix: string; action: string }[];
  history: {
    at: string;
    seq: number;
    event: string;
    episode_id?: string;
    service?: string;
    from?: string;
    to?: string;
    why?: string | null;
  }[];
}

/** GET /v1/ledger/verify: the whole chain checked, and the first failure when there is one. */
export interface VerifyReport {
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string | null };
  segments: number;
  sealed_through: number;
  failure: { seq: number; check: string; segment: number | null; message: string } | null;
  duration_ms: number;
}

export interface LedgerPage {
  events: (TimelineEvent & { hash?: string })[];
  more: boolean;
  head: { seq: number; hash: string | null };
}

export interface Me {
  name: string;
  role: string;
  kind: string;
  /** A person's session: their id, e-mail, handles and team ids. */
  user_id?: string | null;
  email?: string;
  handles?: Partial<Record<'slack' | 'mattermost' | 'teams' | 'phone', string>>;
  teams?: string[];
  /** A session's: how it signed in (admin-token for the first owner's); null for the token. */
  session?: { id: string; method?: string; expires_at: string } | null;
}

export type BrandingTheme = 'light' | 'dark' | 'system';

export interface SupportLink {
  label: string;
  url: string;
}

/** GET /v1/branding (no credential needed) and the PUT answer: an empty logo slot is null. */
export interface Branding {
  name: string;
  logos: { light: string | null; dark: string | null; mark: string | null };
  theme: BrandingTheme;
  /** #rrggbb, lower case. */
  accent: string;
  support: SupportLink[];
  set_by: string | null;
  set_at: string | null;
}

/** PUT /v1/branding replaces the whole document: a missing field takes its default. */
export interface BrandingInput {
  name?: string;
  logos?: { light?: string | null; dark?: string | null; mark?: string | null };
  theme?: BrandingTheme;
  accent?: string;
  support?: SupportLink[];
}

export const api = {
  status: () => call<Status>('GET', '/v1/status'),
  live: liveView,
  me: () => call<Me>('GET', '/v1/me'),
  login: (token: string) =>
    call<{ token: string; session: { name: string; role: string } }>('POST', '/v1/login', {
      token,
    }),
  logout: () => call<{ ended: boolean }>('POST', '/v1/auth/logout', {}),
  episodes: (query: string) =>
    call<EpisodeList>('GET', `/v1/episodes${query === '' ? '' : `?${query}`}`),
  episode: (id: string, afterSeq?: number) =>
    call<Episode>(
      'GET',
      `/v1/episodes/${encodeURIComponent(id)}${afterSeq === undefined ? '' : `?after_seq=${String(afterSeq)}`}`,
    ),
  incident: (id: string) => call<Incident>('GET', `/v1/incidents/${encodeURIComponent(id)}`),
  team: (id: string, verdict: string, detail?: string) =>
    call<{ verdict: string }>('POST', `/v1/episodes/${encodeURIComponent(id)}/team`, {
      verdict,
      ...(detail !== undefined && detail !== '' && { detail }),
    }),
  ledger: (query: string) =>
    call<LedgerPage>('GET', `/v1/ledger${query === '' ? '' : `?${query}`}`),
  verify: () => call<VerifyReport>('GET', '/v1/ledger/verify'),
  doctor: (fresh: boolean) => call<DoctorReport>('GET', `/v1/doctor${fresh ? '?fresh=1' : ''}`),
  branding: () => call<Branding>('GET', '/v1/branding'),
  putBranding: (body: BrandingInput) => call<Branding>('PUT', '/v1/branding', body),
};

// Connectors (docs/connectors.md): the catalogue of kinds, the configured connectors (secrets
// only ever as {file} or {env} references), and saving, removing and testing one.

export type ConnectorSettingType =
  'string' | 'url' | 'integer' | 'boolean' | 'string_list' | 'secret';

/** One setting of a kind (or a framework setting) as GET /v1/connectors/catalogue shows it. */
export interface ConnectorSetting {
  name: string;
  type: ConnectorSettingType;
  required: boolean;
  description: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  secret: boolean;
}

export interface ConnectorKind {
  kind: string;
  title: string;
  description: string;
  capabilities: string[];
  operations: string[];
  settings: ConnectorSetting[];
}

export interface ConnectorCatalogue {
  kinds: ConnectorKind[];
  /** Settings every connector has beside its settings object: max_in_flight, timeout_s. */
  framework: ConnectorSetting[];
}

/** A secret as stored and shown: a reference, never the value. */
export type SecretRef = { file: string } | { env: string };
/** A secret as sent: a reference, or a typed-in value the service writes to a 0600 file. */
export type SecretInput = SecretRef | { value: string };

export interface ConnectorHealth {
  ok: boolean;
  detail: string;
  duration_ms: number;
}

export interface Connector {
  name: string;
  kind: string;
  /** Secret settings appear as their SecretRef. */
  settings: Record<string, unknown>;
  max_in_flight: number | null;
  timeout_s: number;
  problem: string | null;
  last_health: (ConnectorHealth & { at: string }) | null;
  in_flight: number;
  queued: number;
  set_by: string | null;
  set_at: string | null;
}

export interface ConnectorList {
  connectors: Connector[];
  /** The SVC_CONNECTORS file that manages connectors (PUT and DELETE answer 409), or null. */
  file: string | null;
}

/** PUT /v1/connectors/<name> and POST /v1/connectors/test (with the name it would have). */
export interface ConnectorInput {
  kind: string;
  settings: Record<string, unknown>;
  max_in_flight?: number;
  timeout_s?: number;
}

export const connectorApi = {
  catalogue: () => call<ConnectorCatalogue>('GET', '/v1/connectors/catalogue'),
  list: () => call<ConnectorList>('GET', '/v1/connectors'),
  put: (name: string, body: ConnectorInput) =>
    call<Connector>('PUT', `/v1/connectors/${encodeURIComponent(name)}`, body),
  remove: (name: string) =>
    call<{ name: string; removed: true }>('DELETE', `/v1/connectors/${encodeURIComponent(name)}`),
  test: (body: ConnectorInput & { name?: string }) =>
    call<ConnectorHealth>('POST', '/v1/connectors/test', body),
};

// Estate (docs/estate.md): services, links and how each was made, per-connector discovery
// status, the overrides document, suggested links, and discovery as a polled job.

/** How a service or link was made: a connector and how, or `{connector: null, how: 'override'}`. */
export interface EstateOrigin {
  connector: string | null;
  how: string;
}

export interface EstateService {
  name: string;
  kind: string | null;
  hosts: string[];
  origins: EstateOrigin[];
}

export interface EstateLink {
  from: string;
  to: string;
  origin: EstateOrigin;
}

export type EstateConnectorStatus = 'ok' | 'stale' | 'failed';

export interface Estate {
  services: EstateService[];
  links: EstateLink[];
  connectors: Record<string, { status: EstateConnectorStatus; at: string; detail: string | null }>;
  problems: { what: string; detail: string }[];
  unlinked: string[];
  /** Units seen running that listen on no port: services only if an override names them. */
  candidates?: { name: string; host: string; connector: string; how: string }[];
}

export interface EstateOverrides {
  services?: Record<string, { aliases: string[]; kind?: string }>;
  links?: { from: string; to: string }[];
  ignore?: string[];
}

export interface EstateOverridesView {
  overrides: Required<EstateOverrides>;
  set_by: string | null;
  set_at: string | null;
}

export interface EstateSuggestion {
  id: string;
  from: string;
  to: string;
  evidence: string;
  score: number;
}

export interface SuggestionDecided {
  id: string;
  from: string;
  to: string;
  status: 'confirmed' | 'dismissed';
  evidence: string;
  reason: string | null;
  link: EstateLink | null;
}

export interface DiscoverJob {
  id: string;
  kind: 'discover';
  status: 'running' | 'done' | 'failed';
  /** `step`: what the job did last, e.g. "ssh-web: ports". */
  progress: { done: number; total: number; step?: string };
  started_at: string;
  finished_at: string | null;
  result: {
    services: number;
    links: number;
    per_connector: Record<string, { status: 'ok' | 'failed'; detail: string | null }>;
  } | null;
}

export const estateApi = {
  view: () => call<Estate>('GET', '/v1/estate'),
  overrides: () => call<EstateOverridesView>('GET', '/v1/estate/overrides'),
  putOverrides: (body: EstateOverrides) =>
    call<EstateOverridesView>('PUT', '/v1/estate/overrides', body),
  suggestions: () => call<{ suggestions: EstateSuggestion[] }>('GET', '/v1/estate/suggestions'),
  confirm: (id: string) =>
    call<SuggestionDecided>('POST', '/v1/estate/suggestions/confirm', { id }),
  dismiss: (id: string) =>
    call<SuggestionDecided>('POST', '/v1/estate/suggestions/dismiss', { id }),
  discover: () => call<{ job_id: string }>('POST', '/v1/discover', {}),
  job: (id: string) => call<DiscoverJob>('GET', `/v1/jobs/${encodeURIComponent(id)}`),
};

// People, teams, who may sign in, sign-in methods, mail and single sign-on (docs/people.md,
// docs/sign-in.md, docs/directory-and-sso.md).

export type Role = 'viewer' | 'responder' | 'admin' | 'owner';
export const ROLES: readonly Role[] = ['viewer', 'responder', 'admin', 'owner'];
/** Roles are ordered; each includes the ones below it. */
export const roleAtLeast = (role: string | undefined, needed: Role): boolean =>
  role !== undefined &&
  ROLES.indexOf(role as Role) >= 0 &&
  ROLES.indexOf(role as Role) >= ROLES.indexOf(needed);

export type HandleKind = 'slack' | 'mattermost' | 'teams' | 'phone';
export const HANDLE_KINDS: readonly HandleKind[] = ['slack', 'mattermost', 'teams', 'phone'];
export type Handles = Partial<Record<HandleKind, string>>;
/** In a change: a handle set to null is removed, a missing one stays. */
export type HandlesInput = Partial<Record<HandleKind, string | null>>;

export interface Person {
  id: string;
  email: string;
  name: string;
  role: Role;
  handles: Handles;
  teams: string[];
  disabled: boolean;
  password_set: boolean;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

export interface Team {
  id: string;
  name: string;
  leads: string[];
  members: string[];
  created_at: string;
  updated_at: string;
}

export interface TeamList {
  teams: Team[];
  people: { id: string; name: string }[];
}

export interface AccessSettings {
  domains: string[];
  directory_groups: string[];
  sso_groups: string[];
  default_role: 'viewer' | 'responder';
  set_by: string | null;
  set_at: string | null;
}

export interface SignedIn {
  token: string;
  session: { name: string; role: string; method?: string };
}

export interface MailSmtp {
  host: string;
  port: number;
  security: 'starttls' | 'ssl' | 'none';
  username?: string;
  password?: SecretInput;
  from: string;
  ca_file?: string;
}

export interface MailApiSettings {
  url: string;
  token: SecretInput;
  from: string;
}

export interface MailSettingsInput {
  transport: 'smtp' | 'api';
  timeout_s?: number;
  smtp?: MailSmtp;
  api?: MailApiSettings;
}

export interface MailSettingsView {
  configured: boolean;
  settings: (MailSettingsInput & { timeout_s: number }) | null;
  updated_at: string | null;
}

export interface MailTest {
  ok: boolean;
  detail: string;
  duration_ms: number;
}

export interface SsoSettingsInput {
  issuer: string;
  client_id: string;
  /** Left out: unchanged; null: a public client (PKCE only). */
  client_secret?: SecretInput | null;
  redirect_uri: string;
  scopes?: string[];
  groups_claim?: string;
  enabled: boolean;
}

export interface SsoSettingsView {
  issuer: string;
  client_id: string;
  client_secret: SecretRef | null;
  redirect_uri: string;
  scopes: string[];
  groups_claim: string;
  enabled: boolean;
  set_by: string | null;
  set_at: string | null;
}

export interface SsoDiscover {
  ok: boolean;
  detail: string;
  issuer: string | null;
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  userinfo_endpoint: string | null;
  jwks_uri: string | null;
  scopes_supported: string[];
  claims_supported: string[];
  code_challenge_methods_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  pkce_s256: boolean;
  groups_claim_offered: boolean | null;
}

export interface SsoTest {
  ok: boolean;
  detail: string;
  checks: { name: string; ok: boolean; detail: string }[];
}

export const signInApi = {
  requestCode: (email: string) => call<{ sent: true }>('POST', '/v1/auth/request', { email }),
  verifyCode: (email: string, code: string) =>
    call<SignedIn>('POST', '/v1/auth/verify', { email, code }),
  password: (email: string, password: string) =>
    call<SignedIn>('POST', '/v1/auth/password', { email, password }),
  ldap: (username: string, password: string) =>
    call<SignedIn>('POST', '/v1/auth/ldap', { username, password }),
  redeemSso: (code: string) => call<SignedIn>('POST', '/v1/auth/sso/redeem', { code }),
};

const userPath = (id: string) => `/v1/users/${encodeURIComponent(id)}`;
const teamPath = (id: string) => `/v1/teams/${encodeURIComponent(id)}`;

export const peopleApi = {
  me: () => call<Me>('GET', '/v1/me'),
  putMe: (body: {
    name?: string;
    handles?: HandlesInput;
    password?: string;
    current_password?: string;
  }) => call<Me>('PUT', '/v1/me', body),
  list: () => call<{ users: Person[] }>('GET', '/v1/users'),
  create: (body: { email: string; name?: string; role?: Role; handles?: Handles }) =>
    call<Person>('POST', '/v1/users', body),
  update: (
    id: string,
    body: {
      email?: string;
      name?: string;
      role?: Role;
      handles?: HandlesInput;
      disabled?: boolean;
    },
  ) => call<Person>('PUT', userPath(id), body),
  remove: (id: string) => call<{ deleted: true; id: string }>('DELETE', userPath(id)),
  teams: () => call<TeamList>('GET', '/v1/teams'),
  createTeam: (body: { name: string; leads?: string[]; members?: string[] }) =>
    call<Team>('POST', '/v1/teams', body),
  updateTeam: (id: string, body: { name?: string; leads?: string[]; members?: string[] }) =>
    call<Team>('PUT', teamPath(id), body),
  removeTeam: (id: string) => call<{ deleted: true; id: string }>('DELETE', teamPath(id)),
  access: () => call<AccessSettings>('GET', '/v1/settings/access'),
  putAccess: (body: Omit<AccessSettings, 'set_by' | 'set_at'>) =>
    call<AccessSettings>('PUT', '/v1/settings/access', body),
};

export const mailApi = {
  get: () => call<MailSettingsView>('GET', '/v1/settings/mail'),
  put: (body: MailSettingsInput) => call<MailSettingsView>('PUT', '/v1/settings/mail', body),
  test: (to: string) => call<MailTest>('POST', '/v1/settings/mail/test', { to }),
};

export const ssoApi = {
  get: () => call<SsoSettingsView>('GET', '/v1/settings/sso'),
  put: (body: SsoSettingsInput) => call<SsoSettingsView>('PUT', '/v1/settings/sso', body),
  discover: (issuer: string, groupsClaim?: string) =>
    call<SsoDiscover>('POST', '/v1/settings/sso/discover', {
      issuer,
      ...(groupsClaim !== undefined && groupsClaim !== '' && { groups_claim: groupsClaim }),
    }),
  test: (body?: SsoSettingsInput) => call<SsoTest>('POST', '/v1/settings/sso/test', body ?? {}),
};

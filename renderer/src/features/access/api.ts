// Signing in, who may sign in without being added, mail for sign-in codes and single sign-on
// (docs/sign-in.md, docs/directory-and-sso.md): wire shapes and calls.
import { call, type SecretInput, type SecretRef } from '../../shared/api.js';

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
  login: (token: string) =>
    call<{ token: string; session: { name: string; role: string } }>('POST', '/v1/login', {
      token,
    }),
  logout: () => call<{ ended: boolean }>('POST', '/v1/auth/logout', {}),
  requestCode: (email: string) => call<{ sent: true }>('POST', '/v1/auth/request', { email }),
  verifyCode: (email: string, code: string) =>
    call<SignedIn>('POST', '/v1/auth/verify', { email, code }),
  password: (email: string, password: string) =>
    call<SignedIn>('POST', '/v1/auth/password', { email, password }),
  ldap: (username: string, password: string) =>
    call<SignedIn>('POST', '/v1/auth/ldap', { username, password }),
  redeemSso: (code: string) => call<SignedIn>('POST', '/v1/auth/sso/redeem', { code }),
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

// Signing in, who may sign in without being added, mail for sign-in codes and single sign-on
// (docs/sign-in.md, docs/directory-and-sso.md): calls; the wire shapes are the server's own.
import type { LoginReply } from '../../../../server/access/sessions.schemas.js';
import type {
  DiscoverReply,
  SsoSettingsInput,
  SsoSettingsView,
  TestReply,
} from '../../../../server/access/sso/sso.schemas.js';
import type { MailSettingsView, MailTestReply } from '../../../../server/mail/mail.schemas.js';
import type {
  AccessSettingsInput,
  AccessSettingsView,
} from '../../../../server/people/people.schemas.js';
import { call, type SecretInput } from '../../shared/api.js';

export type { MailSettingsView, SsoSettingsInput, SsoSettingsView };
export type AccessSettings = AccessSettingsView;
/** What every way of signing in answers: the session token and the session. */
export type SignedIn = LoginReply;
export type MailTest = MailTestReply;
export type SsoDiscover = DiscoverReply;
export type SsoTest = TestReply;

// Hand-written: the server parses the mail PUT body by hand (parseMailSettings names the field
// at fault), so it has no schema type; the GET answer's secrets are references, this one's may
// be a typed {value}.
export interface MailSmtp {
  host: string;
  port: number;
  security: 'starttls' | 'ssl' | 'none';
  username?: string;
  password?: SecretInput;
  from: string;
  ca_file?: string;
}

export interface MailSettingsInput {
  transport: 'smtp' | 'api';
  timeout_s?: number;
  smtp?: MailSmtp;
  api?: { url: string; token: SecretInput; from: string };
}

export const accessApi = {
  get: () => call<AccessSettingsView>('GET', '/v1/settings/access'),
  put: (body: AccessSettingsInput) => call<AccessSettingsView>('PUT', '/v1/settings/access', body),
};

export const signInApi = {
  login: (token: string) => call<SignedIn>('POST', '/v1/login', { token }),
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

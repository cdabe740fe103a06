// The sign-in settings' bodies: who may sign in (domains by line or comma, a DN's commas
// kept), and the mail and SSO secrets sent as the stored reference, a typed value or none.
import { describe, expect, it } from 'vitest';
import { accessBody } from './access-form.js';
import type { MailSettingsView, SsoSettingsView } from './api.js';
import { mailBody, mailDraft } from './mail-settings.js';
import { ssoBody, ssoDraft } from './sso-settings.js';

describe('who may sign in', () => {
  it('splits domains on lines and commas, groups on lines only', () => {
    expect(
      accessBody({
        domains: 'example.com, example.org\n\n ops.example.net ',
        directory: 'cn=sre,ou=groups,dc=example,dc=com\n  \nadmins',
        sso: ' oncall \n',
        role: 'responder',
      }),
    ).toEqual({
      domains: ['example.com', 'example.org', 'ops.example.net'],
      directory_groups: ['cn=sre,ou=groups,dc=example,dc=com', 'admins'],
      sso_groups: ['oncall'],
      default_role: 'responder',
    });
  });
});

const MAIL: MailSettingsView = {
  configured: true,
  settings: {
    transport: 'smtp',
    timeout_s: 20,
    smtp: {
      host: 'smtp.example.com',
      port: 587,
      security: 'starttls',
      username: 'svc',
      password: { file: '/var/lib/svc/secrets/mail-smtp-password' },
      from: 'svc@example.com',
    },
  },
  updated_at: '2026-01-01T00:00:00Z',
};

describe('the mail body', () => {
  it('keeps the stored password as its reference, never asking for the value', () => {
    const body = mailBody(mailDraft(MAIL), MAIL);
    expect(body).toEqual({
      transport: 'smtp',
      timeout_s: 20,
      smtp: {
        host: 'smtp.example.com',
        port: 587,
        security: 'starttls',
        username: 'svc',
        password: { file: '/var/lib/svc/secrets/mail-smtp-password' },
        from: 'svc@example.com',
      },
    });
  });

  it('sends a typed password as a value, an env reference trimmed, and none as absent', () => {
    const d = mailDraft(MAIL);
    const typed = mailBody(
      { ...d, password: { ...d.password, mode: 'value', value: 's3cret' } },
      MAIL,
    );
    expect(typed.smtp?.password).toEqual({ value: 's3cret' });
    const env = mailBody(
      { ...d, password: { ...d.password, mode: 'env', env: ' SMTP_PW ' } },
      MAIL,
    );
    expect(env.smtp?.password).toEqual({ env: 'SMTP_PW' });
    const none = mailBody({ ...d, password: { ...d.password, mode: 'none' } }, MAIL);
    expect(none.smtp).not.toHaveProperty('password');
  });

  it('switches to the API with the token typed when none is stored', () => {
    const d = mailDraft({ configured: false, settings: null, updated_at: null });
    expect(d.token.mode).toBe('value');
    const body = mailBody(
      {
        ...d,
        transport: 'api',
        url: ' https://mail.example.com/send ',
        apiFrom: 'svc@example.com',
        token: { ...d.token, value: 'tok' },
      },
      MAIL,
    );
    expect(body).toEqual({
      transport: 'api',
      timeout_s: 15,
      api: {
        url: 'https://mail.example.com/send',
        token: { value: 'tok' },
        from: 'svc@example.com',
      },
    });
  });
});

const SSO: SsoSettingsView = {
  issuer: 'https://login.example.com/realms/ops',
  client_id: 'svc',
  client_secret: { env: 'SSO_SECRET' },
  redirect_uri: 'https://svc.example.com/v1/auth/sso/callback',
  scopes: ['openid', 'email'],
  groups_claim: 'roles',
  enabled: true,
  set_by: 'ana',
  set_at: '2026-01-01T00:00:00Z',
};

describe('the single sign-on body', () => {
  it('keeps the stored secret as its reference and splits the scopes', () => {
    const d = ssoDraft(SSO);
    expect(ssoBody({ ...d, scopes: ' openid  email\tgroups ' }, SSO)).toEqual({
      issuer: 'https://login.example.com/realms/ops',
      client_id: 'svc',
      client_secret: { env: 'SSO_SECRET' },
      redirect_uri: 'https://svc.example.com/v1/auth/sso/callback',
      scopes: ['openid', 'email', 'groups'],
      groups_claim: 'roles',
      enabled: true,
    });
  });

  it('sends null for a public client and a typed secret as a value', () => {
    const d = ssoDraft(SSO);
    expect(ssoBody({ ...d, secret: { ...d.secret, mode: 'none' } }, SSO).client_secret).toBeNull();
    expect(
      ssoBody({ ...d, secret: { ...d.secret, mode: 'value', value: 'xyz' } }, SSO).client_secret,
    ).toEqual({ value: 'xyz' });
  });

  it('starts a never-set provider with a typed secret and the usual scopes', () => {
    const d = ssoDraft({ ...SSO, client_secret: null, scopes: [], groups_claim: '', set_at: null });
    expect(d.secret.mode).toBe('value');
    expect(d.scopes).toBe('openid email profile');
    expect(d.groups_claim).toBe('groups');
  });
});

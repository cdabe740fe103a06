// The pure rules of people: e-mail addresses, access settings, directory group matching.
import { describe, expect, it } from 'vitest';
import { checkAccess, checkEmail, groupAllowed } from './people.rules.js';

describe('checkEmail', () => {
  it.each([
    ['alice@example.com', 'alice@example.com'],
    ['  Alice.Smith+ir@Mail.Example.COM ', 'alice.smith+ir@mail.example.com'],
  ])('accepts %j as %j', (given, want) => {
    expect(checkEmail(given)).toBe(want);
  });

  it.each([
    'alice',
    'alice@',
    '@example.com',
    'alice@localhost',
    'a b@example.com',
    'alice@exa mple.com',
    'alice@@example.com',
    '"a"@example.com',
    `${'a'.repeat(250)}@example.com`,
    'alice\n@example.com',
    'alice@-example.com',
  ])('refuses %j naming the field', (given) => {
    expect(() => checkEmail(given, 'users.0.email')).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { field: 'users.0.email' } }),
    );
  });
});

describe('checkAccess', () => {
  it('fills defaults, lower-cases domains, drops a leading @ and duplicates', () => {
    expect(checkAccess({})).toEqual({
      domains: [],
      directory_groups: [],
      sso_groups: [],
      default_role: 'viewer',
    });
    expect(
      checkAccess({
        domains: ['@Example.com', 'example.com', 'ops.example.org'],
        directory_groups: [' cn=sre,dc=x ', 'cn=sre,dc=x'],
        sso_groups: ['IR', 'ir'],
        default_role: 'responder',
      }),
    ).toEqual({
      domains: ['example.com', 'ops.example.org'],
      directory_groups: ['cn=sre,dc=x'],
      sso_groups: ['IR', 'ir'],
      default_role: 'responder',
    });
  });

  it.each([
    [{ domains: ['example'] }, 'domains.0'],
    [{ domains: ['ok.example', 'http://x.example'] }, 'domains.1'],
    [{ directory_groups: ['  '] }, 'directory_groups.0'],
    [{ sso_groups: ['a', 'b\u0000'] }, 'sso_groups.1'],
  ])('refuses %j naming %s', (input, field) => {
    expect(() => checkAccess(input)).toThrow(expect.objectContaining({ details: { field } }));
  });
});

describe('groupAllowed', () => {
  it('matches a DN or its cn, in any case', () => {
    expect(groupAllowed('CN=SRE,OU=Groups,DC=corp', ['sre'])).toBe(true);
    expect(groupAllowed('cn=sre,ou=groups,dc=corp', ['CN=SRE,OU=Groups,DC=corp'])).toBe(true);
    expect(groupAllowed('sre', ['SRE'])).toBe(true);
    expect(groupAllowed('cn=dba,dc=corp', ['sre'])).toBe(false);
    expect(groupAllowed('cn=sre-admins,dc=corp', ['sre'])).toBe(false);
    expect(groupAllowed('sre', [])).toBe(false);
  });
});

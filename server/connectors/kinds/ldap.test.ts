import { describe, expect, it } from 'vitest';
import { FilterParser } from 'ldapts';
import { Secret } from '../../shared/secret.js';
import { DEFAULT_GROUP_FILTER, DEFAULT_USER_FILTER, fillFilter, ldapKind } from './ldap.js';

describe('ldap filters', () => {
  it('escapes every value it puts into a filter (RFC 4515), so input cannot change the filter', () => {
    expect(fillFilter(DEFAULT_USER_FILTER, { username: '*)(uid=*' })).toBe(
      '(|(uid=\\2a\\29\\28uid=\\2a)(mail=\\2a\\29\\28uid=\\2a))',
    );
    expect(fillFilter('(uid={username})', { username: 'a\\b\0c' })).toBe('(uid=a\\5cb\\00c)');
    // The escaped filter parses to one equality per attribute, whatever was typed.
    for (const attempt of ['*', '*)(|(objectClass=*)', 'x)(uid=*))(|(uid=*', '\\2a']) {
      const parsed = FilterParser.parseString(
        fillFilter('(uid={username})', { username: attempt }),
      );
      expect(parsed.constructor.name, attempt).toBe('EqualityFilter');
    }
  });

  it('fills the group filter with an escaped DN and leaves unknown placeholders', () => {
    expect(fillFilter(DEFAULT_GROUP_FILTER, { dn: 'uid=a(1),dc=x' })).toBe(
      '(|(member=uid=a\\281\\29,dc=x)(uniqueMember=uid=a\\281\\29,dc=x))',
    );
    expect(fillFilter('(cn={other})', {})).toBe('(cn={other})');
  });

  it('refuses empty passwords before any connection (no anonymous bind)', async () => {
    const client = ldapKind.create({
      url: 'ldap://127.0.0.1:9',
      bind_dn: 'cn=svc',
      bind_password: new Secret('x'),
      user_base: 'dc=x',
    });
    const signal = AbortSignal.timeout(2000);
    expect(await client.call('authenticate', { username: 'a', password: '' }, signal)).toEqual({
      ok: false,
      why: 'empty_password',
    });
    await expect(client.call('nope', {}, signal)).rejects.toThrow('ldap has no operation "nope"');
  });
});

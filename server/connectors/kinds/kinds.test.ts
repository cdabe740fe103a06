import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../shared/secret.js';
import { CAPABILITIES } from '../kind.js';
import { parseHeaderLines, tlsInfoOf } from './http.js';
import {
  KINDS,
  httpKind,
  jiraServiceManagementKind,
  opsgenieKind,
  pagerdutyKind,
  prometheusKind,
  servicenowKind,
} from './index.js';

describe('the catalogue', () => {
  it('lists each kind once, with known capabilities and unique setting names', () => {
    expect(KINDS.map((k) => k.kind)).toEqual([
      'prometheus',
      'alertmanager',
      'http',
      'git',
      'ssh',
      'postgresql',
      'ldap',
      'mail',
      'slack',
      'teams',
      'webhook',
      'pagerduty',
      'opsgenie',
      'jira_service_management',
      'servicenow',
    ]);
    for (const kind of KINDS) {
      for (const c of kind.capabilities) expect(CAPABILITIES).toContain(c);
      const names = kind.settings.map((s) => s.name);
      expect(new Set(names).size).toBe(names.length);
      // Where it is: a url for the servers, a path for a local git clone, a host for ssh and SQL.
      const where =
        kind.kind === 'git'
          ? 'path'
          : ['ssh', 'postgresql', 'mail'].includes(kind.kind)
            ? 'host'
            : 'url';
      expect(kind.settings.find((s) => s.name === where)).toMatchObject({ required: true });
      expect(kind.operations.length).toBeGreaterThan(0);
    }
    expect(httpKind.settings.find((s) => s.name === 'insecure_skip_verify')?.description).toMatch(
      /DANGEROUS/,
    );
  });
});

describe('settings are checked when a client is built', () => {
  it('refuses a missing or non-http url', () => {
    expect(() => prometheusKind.create({})).toThrow('setting url is required');
    expect(() => prometheusKind.create({ url: 'ftp://x' })).toThrow(/http:\/\/ or https:\/\//);
    expect(() => httpKind.create({ url: 'not a url' })).toThrow('setting url is not a valid URL');
    expect(() => httpKind.create({ url: 'http://u:p@h/' })).toThrow(/must not carry credentials/);
  });

  it('wants secrets resolved, and never says their value', () => {
    expect(() => prometheusKind.create({ url: 'http://h', bearer_token: 'plain' })).toThrow(
      'setting bearer_token must be a resolved secret',
    );
    let message = '';
    try {
      prometheusKind.create({
        url: 'http://h',
        bearer_token: new Secret('tok-123'),
        basic_user: 'u',
        basic_password: new Secret('pw-456'),
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/not both/);
    expect(message).not.toMatch(/tok-123|pw-456/);
  });

  it('checks the http settings', () => {
    expect(() => httpKind.create({ url: 'http://h', method: 'DELETE' })).toThrow(/method/);
    expect(() => httpKind.create({ url: 'http://h', expect_status: 99 })).toThrow(/100 to 599/);
    expect(() => httpKind.create({ url: 'http://h', headers: ['nocolon'] })).toThrow(/line 1/);
    expect(() =>
      httpKind.create({
        url: 'http://h',
        headers: ['Authorization: Basic x'],
        bearer_token: new Secret('t'),
      }),
    ).toThrow(/not both/);
    expect(() => httpKind.create({ url: 'https://h', insecure_skip_verify: 'yes' })).toThrow(
      /true or false/,
    );
  });

  it('refuses unknown operations', async () => {
    const client = httpKind.create({ url: 'http://127.0.0.1:9' });
    await expect(client.call('nope', {}, AbortSignal.timeout(1000))).rejects.toThrow(
      'http has no operation "nope"',
    );
  });
});

describe('http helpers', () => {
  it('parses header lines', () => {
    expect(parseHeaderLines(['X-One: a: b', 'accept:  text/plain '])).toEqual({
      'x-one': 'a: b',
      accept: 'text/plain',
    });
    expect(() => parseHeaderLines(['Bad Name: x'])).toThrow(/line 1/);
  });

  it('reads a peer certificate', () => {
    const cert = {
      valid_to: 'Jan 11 00:00:00 2025 GMT',
      issuer: { CN: 'Lab CA', O: 'Lab' },
      subject: { CN: 'localhost' },
    } as unknown as PeerCertificate;
    const now = Date.parse('2025-01-01T12:00:00Z');
    expect(tlsInfoOf(cert, now)).toEqual({
      valid_to: '2025-01-11T00:00:00.000Z',
      days_left: 9,
      issuer: 'CN=Lab CA, O=Lab',
      subject: 'CN=localhost',
    });
    expect(tlsInfoOf({} as PeerCertificate, now)).toBeNull();
  });
});

describe('secrets that a header cannot carry', () => {
  it('a bearer token with a line break is refused at build, without showing it', () => {
    let message = '';
    try {
      prometheusKind.create({
        url: 'http://127.0.0.1:9',
        bearer_token: new Secret('first-line\nsecond-line'),
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('bearer_token holds a line break or NUL, which a header cannot carry');
  });
});

describe('the history kinds', () => {
  const token = new Secret('tok-789');
  it('keep history only, answer resolved_count only, and default to the vendor address', () => {
    for (const kind of [pagerdutyKind, opsgenieKind, jiraServiceManagementKind, servicenowKind]) {
      expect(kind.capabilities).toEqual(['history']);
      expect(kind.operations).toEqual(['resolved_count']);
      for (const s of kind.settings)
        if (/token|key|password/.test(s.name)) expect(s.type, s.name).toBe('secret');
    }
    expect(pagerdutyKind.settings.find((s) => s.name === 'url')?.default).toBe(
      'https://api.pagerduty.com',
    );
    expect(opsgenieKind.settings.find((s) => s.name === 'url')?.default).toBe(
      'https://api.opsgenie.com',
    );
  });

  it('refuse settings that cannot work, never showing a secret', () => {
    expect(() => pagerdutyKind.create({ url: 'http://h' })).toThrow(
      'setting api_token is required',
    );
    expect(() => opsgenieKind.create({ url: 'http://h' })).toThrow('setting api_key is required');
    expect(() => pagerdutyKind.create({ url: 'http://h', api_token: new Secret('a\nb') })).toThrow(
      /line break/,
    );
    expect(() => servicenowKind.create({ url: 'http://h' })).toThrow(
      /user and password, or bearer_token/,
    );
    expect(() =>
      servicenowKind.create({ url: 'http://h', user: 'u', password: token, bearer_token: token }),
    ).toThrow(/not both/);
    expect(() =>
      servicenowKind.create({ url: 'http://h', bearer_token: token, table: 'incident; drop' }),
    ).toThrow(/table name/);
    expect(() =>
      jiraServiceManagementKind.create({
        url: 'http://h',
        deployment: 'server',
        api_token: token,
        project: 'ITSM',
      }),
    ).toThrow(/cloud, data_center/);
  });

  it('check the window of resolved_count', async () => {
    const client = pagerdutyKind.create({ url: 'http://127.0.0.1:9', api_token: token });
    const signal = AbortSignal.timeout(1000);
    await expect(client.call('resolved_count', { since: 'x', until: 'y' }, signal)).rejects.toThrow(
      /since must be an ISO-8601 time/,
    );
    await expect(
      client.call(
        'resolved_count',
        { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' },
        signal,
      ),
    ).rejects.toThrow(/since must be before until/);
    await expect(client.call('incidents', {}, signal)).rejects.toThrow(
      'pagerduty has no operation "incidents"',
    );
  });
});

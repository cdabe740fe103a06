// The ldap connector kind: directory sign-in (POST /v1/auth/ldap) and group search, over
// ldapts. Every operation opens its own connection(s) and closes them: a service bind
// finds the person (the typed user name goes into the filter escaped per RFC 4515, so it
// can never change the filter), a second connection binds as that person to prove the
// password, and the service connection reads the person's groups. An empty password is
// refused before any bind (LDAP treats it as an anonymous bind that "succeeds").
// Neither the service password nor the person's password appears in any message.
import type { ConnectionOptions } from 'node:tls';
import { Client, Filter, FilterParser, InvalidCredentialsError, type Entry } from 'ldapts';
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import {
  elapsedMs,
  networkErrorText,
  readBoolean,
  readSecret,
  readString,
  readCaFile,
} from './settings.js';

export const DEFAULT_USER_FILTER = '(|(uid={username})(mail={username}))';
export const DEFAULT_GROUP_FILTER = '(|(member={dn})(uniqueMember={dn}))';
const GROUP_CLASSES =
  '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=posixGroup)(objectClass=group))';
/** Upper bounds: a user name, groups of one person, groups in a search answer. */
const MAX_USERNAME = 256;
const MAX_PASSWORD = 1024;
const MAX_GROUPS = 1000;
const SEARCH_LIMIT = 50;
const CONNECT_TIMEOUT_MS = 5000;
const OPERATION_TIMEOUT_MS = 10_000;

/** A person the directory knows, with the groups they are in. */
export interface LdapPerson {
  readonly ok: true;
  readonly dn: string;
  readonly email: string;
  readonly name: string;
  /** DNs of the groups the person is in */
  readonly groups: readonly string[];
  /** the same groups' cn values, for settings that name groups by cn */
  readonly group_names: readonly string[];
}

/** Why the directory did not accept a user name and password (never a connection fault). */
export const LdapRefusal = {
  UnknownUser: 'unknown_user',
  WrongPassword: 'wrong_password',
  Ambiguous: 'ambiguous_user',
  NoEmail: 'no_email',
  EmptyPassword: 'empty_password',
} as const;
export type LdapRefusal = (typeof LdapRefusal)[keyof typeof LdapRefusal];

/**
 * `authenticate`'s answer: the person, or why the credentials were refused. A refusal is an
 * answer, not an error, so that it never looks like a broken connection; a directory that
 * cannot be reached is an error.
 */
export type LdapAuthentication = LdapPerson | { readonly ok: false; readonly why: LdapRefusal };

export interface LdapGroup {
  readonly dn: string;
  readonly cn: string;
}

/** Put a value into a filter template: `{name}` → the value, escaped (RFC 4515). */
export function fillFilter(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const v = values[key];
    return v === undefined ? whole : Filter.escape(v);
  });
}

const first = (entry: Entry, attribute: string): string => {
  const found = Object.entries(entry).find(([k]) => k.toLowerCase() === attribute.toLowerCase());
  const v = found?.[1];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined ? '' : Buffer.isBuffer(s) ? s.toString('utf8') : String(s);
};

/** LDAP error text without anything a server might echo back beyond its code and message. */
function ldapErrorText(err: unknown): string {
  if (err instanceof Error && err.message.startsWith('Code: '))
    return err.message.split('\n')[0] ?? '';
  return networkErrorText(err);
}

function createLdapClient(settings: ResolvedSettings): ConnectorClient {
  const urlText = readString(settings, 'url');
  if (urlText === undefined) throw new Error('setting url is required');
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    throw new Error('setting url is not a valid URL');
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:')
    throw new Error('setting url must be an ldap:// or ldaps:// URL');
  if (url.username !== '' || url.password !== '' || (url.pathname !== '' && url.pathname !== '/'))
    throw new Error(
      'setting url must be ldap[s]://host[:port] only (bind_dn and user_base say the rest)',
    );
  const required = (name: string): string => {
    const v = readString(settings, name);
    if (v === undefined) throw new Error(`setting ${name} is required`);
    return v;
  };
  const bindDn = required('bind_dn');
  const secret = readSecret(settings, 'bind_password');
  if (secret === undefined) throw new Error('setting bind_password is required');
  const bindPassword = secret;
  const userBase = required('user_base');
  const userFilter = readString(settings, 'user_filter') ?? DEFAULT_USER_FILTER;
  if (!userFilter.includes('{username}'))
    throw new Error('setting user_filter must contain {username}');
  const groupBase = readString(settings, 'group_base') ?? userBase;
  const groupFilter = readString(settings, 'group_filter') ?? DEFAULT_GROUP_FILTER;
  const emailAttribute = readString(settings, 'email_attribute') ?? 'mail';
  const nameAttribute = readString(settings, 'name_attribute') ?? 'cn';
  const startTls = readBoolean(settings, 'starttls', false);
  if (startTls && url.protocol === 'ldaps:')
    throw new Error('setting starttls is for ldap:// URLs; ldaps:// is TLS already');
  const ca = readCaFile(settings);
  // Filters are checked once here, with harmless values, so that a typo shows at save time.
  for (const [name, template] of [
    ['user_filter', userFilter],
    ['group_filter', groupFilter],
  ] as const) {
    try {
      FilterParser.parseString(fillFilter(template, { username: 'x', dn: 'cn=x' }));
    } catch {
      throw new Error(`setting ${name} is not a valid LDAP filter`);
    }
  }
  const tlsOptions: ConnectionOptions = {
    servername: url.hostname,
    ...(ca !== undefined && { ca }),
  };

  /** A connected client (after StartTLS when set), closed by `done`. */
  async function open(signal: AbortSignal): Promise<{ client: Client; done: () => Promise<void> }> {
    signal.throwIfAborted();
    const client = new Client({
      url: `${url.protocol}//${url.host}`,
      connectTimeout: CONNECT_TIMEOUT_MS,
      timeout: OPERATION_TIMEOUT_MS,
      ...(url.protocol === 'ldaps:' && { tlsOptions }),
    });
    const done = async () => {
      signal.removeEventListener('abort', onAbort);
      await client.unbind().catch(() => undefined);
    };
    const onAbort = () => {
      void client.unbind().catch(() => undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (startTls) {
      try {
        await client.startTLS(tlsOptions);
      } catch (err) {
        await done();
        throw new Error(`StartTLS with ${url.host} failed: ${ldapErrorText(err)}`);
      }
    }
    return { client, done };
  }

  async function serviceBind(client: Client): Promise<void> {
    try {
      await client.bind(bindDn, bindPassword.reveal());
    } catch (err) {
      if (err instanceof InvalidCredentialsError)
        throw new Error(
          `the directory refused the service account ${bindDn} (bind_dn/bind_password)`,
        );
      throw new Error(`cannot bind to ${url.host} as ${bindDn}: ${ldapErrorText(err)}`);
    }
  }

  async function groupsOf(client: Client, dn: string): Promise<LdapGroup[]> {
    const { searchEntries } = await client.search(groupBase, {
      scope: 'sub',
      filter: `(&${GROUP_CLASSES}${fillFilter(groupFilter, { dn, username: dn })})`,
      attributes: ['cn'],
      sizeLimit: MAX_GROUPS,
    });
    return searchEntries.map((e) => ({ dn: e.dn, cn: first(e, 'cn') }));
  }

  async function authenticate(
    args: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<LdapAuthentication> {
    const username = typeof args['username'] === 'string' ? args['username'].trim() : '';
    const password = typeof args['password'] === 'string' ? args['password'] : '';
    if (username === '' || username.length > MAX_USERNAME || /[\0-\x1f]/.test(username))
      return { ok: false, why: LdapRefusal.UnknownUser };
    if (password === '' || password.length > MAX_PASSWORD)
      return { ok: false, why: LdapRefusal.EmptyPassword };
    const service = await open(signal);
    try {
      await serviceBind(service.client);
      const { searchEntries } = await service.client.search(userBase, {
        scope: 'sub',
        filter: fillFilter(userFilter, { username }),
        attributes: [emailAttribute, nameAttribute],
        sizeLimit: 2,
      });
      if (searchEntries.length === 0) return { ok: false, why: LdapRefusal.UnknownUser };
      if (searchEntries.length > 1) return { ok: false, why: LdapRefusal.Ambiguous };
      const entry = searchEntries[0];
      if (entry === undefined) return { ok: false, why: LdapRefusal.UnknownUser };
      const person = await open(signal);
      try {
        await person.client.bind(entry.dn, password);
      } catch (err) {
        if (err instanceof InvalidCredentialsError)
          return { ok: false, why: LdapRefusal.WrongPassword };
        throw new Error(`binding as the person failed: ${ldapErrorText(err)}`);
      } finally {
        await person.done();
      }
      const email = first(entry, emailAttribute).trim().toLowerCase();
      if (email === '') return { ok: false, why: LdapRefusal.NoEmail };
      const groups = await groupsOf(service.client, entry.dn);
      return {
        ok: true,
        dn: entry.dn,
        email,
        name: first(entry, nameAttribute).trim(),
        groups: groups.map((g) => g.dn),
        group_names: groups.map((g) => g.cn).filter((cn) => cn !== ''),
      };
    } finally {
      await service.done();
    }
  }

  async function searchGroups(
    args: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<{ groups: LdapGroup[] }> {
    const q = typeof args['q'] === 'string' ? args['q'].trim().slice(0, MAX_USERNAME) : '';
    const service = await open(signal);
    try {
      await serviceBind(service.client);
      const { searchEntries } = await service.client.search(groupBase, {
        scope: 'sub',
        filter: q === '' ? GROUP_CLASSES : `(&${GROUP_CLASSES}(cn=*${Filter.escape(q)}*))`,
        attributes: ['cn'],
        sizeLimit: SEARCH_LIMIT,
      });
      const groups = searchEntries.map((e) => ({ dn: e.dn, cn: first(e, 'cn') }));
      groups.sort((a, b) => a.cn.localeCompare(b.cn));
      return { groups };
    } finally {
      await service.done();
    }
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    const service = await open(signal);
    try {
      await serviceBind(service.client);
      try {
        await service.client.search(userBase, { scope: 'base', attributes: ['objectClass'] });
      } catch (err) {
        throw new Error(`user_base ${userBase} cannot be read: ${ldapErrorText(err)}`);
      }
      const ms = elapsedMs(started);
      return {
        ok: true,
        detail: `bound as ${bindDn}${startTls ? ' (StartTLS)' : ''}, ${userBase} readable, in ${String(ms)} ms`,
        duration_ms: ms,
      };
    } catch (err) {
      throw new Error(`ldap ${url.host}: ${ldapErrorText(err)}`);
    } finally {
      await service.done();
    }
  }

  return {
    health,
    async call(op, args, signal) {
      try {
        if (op === 'authenticate') return await authenticate(args, signal);
        if (op === 'search_groups') return await searchGroups(args, signal);
      } catch (err) {
        throw new Error(`ldap ${url.host}: ${ldapErrorText(err)}`);
      }
      throw new Error(`ldap has no operation ${JSON.stringify(op)}`);
    },
  };
}

export const ldapKind: ConnectorKind = {
  kind: 'ldap',
  title: 'LDAP directory',
  description:
    'Directory sign-in (POST /v1/auth/ldap) and group search: a service account finds the person, a bind as the person checks the password, and their groups decide who may sign in.',
  capabilities: [],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'ldap://host[:389] or ldaps://host[:636].',
    },
    {
      name: 'bind_dn',
      type: 'string',
      required: true,
      description:
        'The service account that searches people and groups, e.g. cn=svc,ou=services,dc=example,dc=com.',
    },
    {
      name: 'bind_password',
      type: 'secret',
      required: true,
      description: "The service account's password.",
    },
    {
      name: 'user_base',
      type: 'string',
      required: true,
      description: 'Where people are searched, e.g. ou=people,dc=example,dc=com.',
    },
    {
      name: 'user_filter',
      type: 'string',
      required: false,
      default: DEFAULT_USER_FILTER,
      description: 'Finds one person; {username} is replaced by the typed name, escaped.',
    },
    {
      name: 'group_base',
      type: 'string',
      required: false,
      description: 'Where groups are searched (default: user_base).',
    },
    {
      name: 'group_filter',
      type: 'string',
      required: false,
      default: DEFAULT_GROUP_FILTER,
      description: "The person's groups; {dn} is replaced by the person's DN, escaped.",
    },
    {
      name: 'email_attribute',
      type: 'string',
      required: false,
      default: 'mail',
      description: 'The attribute holding the e-mail address.',
    },
    {
      name: 'name_attribute',
      type: 'string',
      required: false,
      default: 'cn',
      description: 'The attribute holding the display name.',
    },
    {
      name: 'starttls',
      type: 'boolean',
      required: false,
      default: false,
      description: 'Upgrade an ldap:// connection with StartTLS before binding.',
    },
    {
      name: 'ca_file',
      type: 'string',
      required: false,
      description:
        'Absolute path of a PEM file with CA certificates to trust besides the system ones.',
    },
  ],
  operations: ['authenticate', 'search_groups'],
  create: createLdapClient,
};

// The lab's identity provider: the maintained `oidc-provider` package (node-oidc-provider)
// on a free loopback port, with one confidential client, PKCE required, and people with
// e-mail, name and groups. Sign-in goes through its development interactions (a login form
// that takes an account id, then a consent form); `signInThrough` drives them with fetch,
// following every redirect by hand and keeping the provider's cookies.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The little of oidc-provider's API used here (the package ships no types). */
interface ProviderAccount {
  accountId: string;
  claims(): Promise<Record<string, unknown>>;
}
type ProviderClass = new (
  issuer: string,
  configuration: Record<string, unknown> & {
    findAccount(ctx: unknown, id: string): Promise<ProviderAccount | undefined>;
  },
) => { callback(): (req: unknown, res: unknown) => void };

/** Loaded by name, so that the compiler does not look for type declarations it lacks. */
async function loadProvider(): Promise<ProviderClass> {
  const name = 'oidc-provider';
  const mod = (await import(name)) as { default: ProviderClass };
  return mod.default;
}

export interface LabAccount {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly groups: readonly string[];
  /** The email_verified claim: true unless given; null leaves the claim out. */
  readonly emailVerified?: boolean | null;
}

export interface OidcProviderOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  readonly accounts: readonly LabAccount[];
  /** Where the groups claim goes: the ID token (default) or only the userinfo answer. */
  readonly groupsIn?: 'id_token' | 'userinfo';
}

export interface OidcProvider {
  /** http://127.0.0.1:<port> */
  readonly issuer: string;
  stop(): Promise<void>;
}

export async function startOidcProvider(opts: OidcProviderOptions): Promise<OidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${String(port)}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'lab-1', alg: 'RS256', use: 'sig' };
  const accounts = new Map(opts.accounts.map((a) => [a.id, a]));
  const Provider = await loadProvider();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk as unknown as Record<string, string>] },
    cookies: { keys: ['lab-cookie-key-0123456789abcdef'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups'],
    conformIdTokenClaims: opts.groupsIn === 'userinfo',
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const a = accounts.get(id);
      if (a === undefined) return undefined;
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            email: a.email,
            ...(a.emailVerified !== null && { email_verified: a.emailVerified ?? true }),
            name: a.name,
            groups: [...a.groups],
          };
        },
      };
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A tiny cookie jar per origin: enough for the provider's interaction and session cookies. */
class Jar {
  readonly #cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair === undefined || eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface FlowStep {
  readonly method: string;
  readonly url: string;
  readonly status: number;
}

/**
 * Sign `accountId` in at the provider, starting from `startUrl` (the service's
 * /v1/auth/sso/start), until the provider redirects back to `callbackPrefix`. Answers the
 * callback URL the browser would open, without opening it, the steps taken, and the
 * browser's cookies then (the service's own binding cookie among them).
 * `consent: false` aborts at the consent form (the person says no).
 */
export async function signInThrough(
  startUrl: string,
  callbackPrefix: string,
  accountId: string,
  options: { consent?: boolean } = {},
): Promise<{ callback: string; steps: FlowStep[]; cookie: string }> {
  const jar = new Jar();
  const steps: FlowStep[] = [];
  let method = 'GET';
  let url = startUrl;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(callbackPrefix)) return { callback: url, steps, cookie: jar.header() };
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        cookie: jar.header(),
        ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(body !== undefined && { body }),
    });
    jar.take(res);
    steps.push({ method, url, status: res.status });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.body?.cancel();
      url = new URL(location, url).toString();
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200)
      throw new Error(`${method} ${url} answered ${String(res.status)}: ${html.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"/i.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/i.exec(html)?.[1];
    if (action === undefined || prompt === undefined)
      throw new Error(`no interaction form at ${url}: ${html.slice(0, 500)}`);
    const target = new URL(action.replace(/&amp;/g, '&'), url).toString();
    if (prompt === 'consent' && options.consent === false) {
      url = `${target.replace(/\/$/, '')}/abort`;
      method = 'GET';
      body = undefined;
      continue;
    }
    url = target;
    method = 'POST';
    body =
      prompt === 'login'
        ? new URLSearchParams({ prompt: 'login', login: accountId, password: 'any' })
        : new URLSearchParams({ prompt: 'consent' });
  }
  throw new Error(`no redirect to ${callbackPrefix} after 20 steps: ${JSON.stringify(steps)}`);
}

// Keychain members in the test's own process, listening on real ports, with the keychain's
// clocks shortened (take-over and fork tests): the rules are the real ones on a shorter clock.
import { freePort } from '../processes.js';
import { asAdmin, buildTestServer, type TestServer } from '../test-server.js';
import type { KeychainOptions } from '../../compose/keychain.js';

type Json = Record<string, unknown>;

const servers: TestServer[] = [];

/**
 * A member joining `home` with a site key, on a port of its own; the others reach it there,
 * or at `address` (a proxy in front of it) when given.
 */
export async function inProcessMember(
  name: string,
  home: string,
  key: string,
  keychain: KeychainOptions,
  address?: string,
): Promise<{ s: TestServer; port: number }> {
  const port = await freePort();
  const s = await buildTestServer({
    env: {
      SVC_INSTANCE: name,
      SVC_KEYCHAIN_JOIN: home,
      SVC_KEYCHAIN_SITE_KEY: key,
      SVC_CONSOLE_URL: address ?? `http://127.0.0.1:${String(port)}`,
    },
    delayMs: 0,
    keychain,
  });
  servers.push(s);
  await s.app.listen({ port, host: '127.0.0.1' });
  return { s, port };
}

/** An API call as the admin token, through the in-process server. */
export async function api(
  s: TestServer,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: Json,
) {
  const res = await s.app.inject({
    method,
    url,
    headers: asAdmin(),
    ...(payload !== undefined && { payload }),
  });
  return { status: res.statusCode, body: res.json<Json>() };
}

/** The data of a type's events, oldest first. */
export const eventsOf = (s: TestServer, type: string): Json[] =>
  s.runtime.reader.list({ type, order: 'asc' }).events.map((e) => e.data as Json);

/** Close every member made here. */
export async function closeMembers(): Promise<void> {
  for (const s of servers.splice(0)) await s.cleanup();
}

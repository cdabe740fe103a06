// The licence part: a home on a signed licence (the test authority's) vouches for the members
// it seated, over the signed peer channel, and each member installs the grant checked against
// its own request and fingerprint. Two real servers on real ports, each its own data folder
// and machine id: N joins with a site key that gives the seat; P with one that does not, and
// gets its seat once an admin approves it. The home counts each member once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIssuer, licencePayload, productionInstall } from '../testing/licence/issuer.js';
import {
  adminCall,
  E_FP,
  hostWith,
  N_MACHINE,
  type Json,
} from '../testing/licence/two-installs.js';
import { freePort } from '../testing/processes.js';
import { waitFor } from '../testing/keychain/installs.js';
import { eventsOf } from '../testing/keychain/in-process.js';
import { buildTestServer, type TestServer } from '../testing/test-server.js';
import { installPubOf } from '../licence/index.js';

const P_MACHINE = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d';
const issuer = createTestIssuer();
const servers: TestServer[] = [];

afterAll(async () => {
  for (const s of servers.splice(0)) await s.cleanup();
});

async function listening(env: Record<string, string>, dir?: string): Promise<TestServer> {
  const port = await freePort();
  const s = await buildTestServer({
    env: { SVC_TRIAL: '0', SVC_CONSOLE_URL: `http://127.0.0.1:${String(port)}`, ...env },
    ...(dir !== undefined && { dir }),
    keychain: { pullEveryMs: 500 },
  });
  servers.push(s);
  await s.app.listen({ port, host: '127.0.0.1' });
  return s;
}
const urlOf = (s: TestServer) => s.runtime.config.http.consoleUrl ?? '';
/** The licence as this install sees it (what the console's licence page shows). */
const licenceOf = async (s: TestServer): Promise<Json> =>
  Promise.resolve((s.runtime.licence.view() ?? {}) as unknown as Json);

describe('the licence carried by the keychain', () => {
  let e: TestServer;
  let nFp = '';
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    e = await listening({ SVC_INSTANCE: 'ls-home' });
    const key = e.runtime.keyFor('ed25519');
    if (key === null) throw new Error('no install key on the home');
    const start = new Date(Date.now() - 86_400_000).toISOString();
    const payload = licencePayload(start, {
      installs: [productionInstall(E_FP, start, { install_pub: installPubOf(key) })],
    });
    const installed = await adminCall(e, 'POST', '/v1/licence', { licence: issuer.licence(payload) }); // prettier-ignore
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    expect((await adminCall(e, 'POST', '/v1/keychain/home', { label: 'DC A' })).status).toBe(200);
    for (const [label, licence] of [
      ['n', true],
      ['p', false],
    ] as const) {
      const made = await adminCall(e, 'POST', '/v1/keychain/site-keys', { labels: [label], licence }); // prettier-ignore
      keys[label] = ((made.body['keys'] as { key: string }[])[0] as { key: string }).key;
    }
  }, 60_000);

  it('gives a member seated by its site key a grant from the home, checked on the member', async () => {
    const n = await listening(
      { SVC_INSTANCE: 'ls-n', SVC_KEYCHAIN_JOIN: urlOf(e), SVC_KEYCHAIN_SITE_KEY: keys['n'] ?? '' },
      hostWith(N_MACHINE),
    );
    nFp = n.runtime.keyFingerprint;
    expect((await licenceOf(n))['kind']).not.toBe('licence');
    const got = await waitFor(
      'the member to run under the home licence',
      async () => {
        const l = await licenceOf(n);
        return l['on_licence'] === true ? l : null;
      },
      30_000,
    );
    expect(got).toMatchObject({ kind: 'licence', valid: true, tier: 'enterprise' });
    expect(typeof got['vouched_until']).toBe('string');
    // The carried parts name the licence; the home vouched as the member's peer.
    expect(((await adminCall(n, 'GET', '/v1/keychain')).body['carried'] as string[])).toContain('licence'); // prettier-ignore
    const vouched = eventsOf(e, 'licence.install.vouched');
    expect(vouched.length).toBe(1);
    const actors = e.runtime.reader
      .list({ type: 'licence.install.vouched', order: 'asc' })
      .events.map((x) => x.actor);
    expect(actors).toEqual([`peer:${n.runtime.keyFingerprint}`]);
    // One seat for the member on the home: its grant, not the grant and its keychain seat.
    expect((await licenceOf(e))['installs']).toBe(2);
    // A later pull asks nothing more: the member is covered.
    expect((await adminCall(n, 'POST', '/v1/keychain/pull')).status).toBe(200);
    expect(eventsOf(e, 'licence.install.vouched').length).toBe(1);
  }, 60_000);

  it('refuses a member the home has not seated, until an admin approves it', async () => {
    const p = await listening(
      { SVC_INSTANCE: 'ls-p', SVC_KEYCHAIN_JOIN: urlOf(e), SVC_KEYCHAIN_SITE_KEY: keys['p'] ?? '' },
      hostWith(P_MACHINE),
    );
    const refused = await waitFor(
      'the refusal',
      async () =>
        eventsOf(p, 'keychain.part_rejected').find((d) => d['part'] === 'licence') ?? null,
      30_000,
    );
    expect(String(refused['reason'])).toMatch(/offers this member no licence seat.*joins\/approve/);
    expect((await licenceOf(p))['on_licence']).not.toBe(true);
    // Nothing was asked of the home to no purpose.
    expect(eventsOf(p, 'licence.install.asked')).toEqual([]);
    expect(eventsOf(e, 'licence.install.vouched').length).toBe(1);
    // The admin approves its seat on the home; Sync now on the member asks at once.
    const joinedBy =
      ((await adminCall(e, 'GET', '/v1/keychain')).body['site_keys'] as { id: string; used_by: string | null; label: string }[]) // prettier-ignore
        .find((k) => k.label === 'p');
    const approved = await adminCall(e, 'POST', '/v1/keychain/joins/approve', {
      request: joinedBy?.id,
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await adminCall(p, 'POST', '/v1/keychain/pull')).status).toBe(200);
    const l = await licenceOf(p);
    expect(l).toMatchObject({ kind: 'licence', on_licence: true, valid: true });
    expect((await licenceOf(e))['installs']).toBe(3);
  }, 60_000);

  it('frees the seat of a member the home removes', async () => {
    const removed = await adminCall(e, 'POST', '/v1/keychain/members/remove', { fingerprint: nFp });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(eventsOf(e, 'licence.install.removed')).toEqual([
      expect.objectContaining({ was: 'grant' }),
    ]);
    expect((await licenceOf(e))['installs']).toBe(2);
  }, 60_000);
});

// A member applying carried parts from a home that misbehaves: a stand-in home on loopback
// (a plain HTTP server that signs its answers as a home does) hands the member (the real
// service, in-process) good, forged, altered, older, stale and unreadable parts. Only the
// good ones are applied; each refusal is recorded with its reason, and the member's own
// writes to a carried part answer 409 keychain_managed.
import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFingerprint, loadOrCreateAgreementKey } from '../ledger/index.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { appendRecord, exportSigPub, type LogRecord } from './authority-log.js';
import { signResponse } from './crypto/peer-signature.js';
import { exportAgreementPublic, generateAgreementKey } from './crypto/sealed-box.js';
import { partDigest, sealPartDocs, signedPart, type CarriedPart } from './parts.js';

const KC = 'kc_partstestpartstestpartste';
const home = generateKeyPairSync('ed25519');
const HOME_FP = keyFingerprint(home.publicKey);
const forger = generateKeyPairSync('ed25519');
const PART_KEY = randomBytes(32);

/** A part as the stand-in offers it: the signed manifest, and the document sealed beside it. */
interface Offered {
  readonly manifest: CarriedPart;
  readonly doc: unknown;
  /** Seal the documents to this key instead of the member's. */
  readonly sealTo?: KeyObject;
}

describe('a member applying carried parts', () => {
  let member: TestServer;
  let stand: Server;
  let genesis: LogRecord;
  let parts: Offered[] = [];
  /** When set, the stand-in answers as a throttle on the path would: 429, unsigned. */
  let throttled = false;
  let memberKx: KeyObject;

  const policyPart = (
    version: number,
    doc: unknown,
    key = home.privateKey,
    epoch = 1,
  ): Offered => ({
    manifest: signedPart(
      KC,
      { part: 'policy', version, sha256: partDigest(PART_KEY, doc), epoch },
      key,
    ),
    doc,
  });

  beforeAll(async () => {
    genesis = appendRecord(
      null,
      {
        keychain_id: KC,
        epoch: 1,
        type: 'genesis',
        body: {
          home_fp: HOME_FP,
          sig_pub: exportSigPub(home.publicKey),
          kx_pub: exportAgreementPublic(generateAgreementKey(false).privateKey),
          label: 'Stand-in home',
        },
      },
      { fp: HOME_FP, key: home.privateKey },
      new Date().toISOString(),
    );
    // Take-over thresholds shortened: the last test needs the silence to count at once.
    member = await buildTestServer({ keychain: { takeoverSilenceMs: 1 } });
    const memberFp = member.runtime.keyFingerprint;
    memberKx = createPublicKey(loadOrCreateAgreementKey(member.runtime.config.dataDir, false));
    stand = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (throttled) {
          res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
          res.end('{"error":"throttled"}');
          return;
        }
        const input = String(req.headers['signature-input'] ?? '');
        const nonce = /nonce="([^"]+)"/.exec(input)?.[1] ?? '';
        const roster = {
          keychain_id: KC,
          epoch: 1,
          head: '',
          home_fp: HOME_FP,
          members: [
            {
              fingerprint: HOME_FP,
              label: 'Stand-in home',
              role: 'home',
              sig_pub: exportSigPub(home.publicKey),
              kx_pub: 'x',
              address: null,
            },
          ],
          records: [genesis],
          carried: ['policy', 'branding'],
          parts: parts.map((o) => o.manifest),
          sealed_parts: sealPartDocs(
            KC,
            { fp: memberFp, kx: parts[0]?.sealTo ?? memberKx },
            {
              key: PART_KEY.toString('base64url'),
              docs: Object.fromEntries(parts.map((o) => [o.manifest.part, o.doc])),
            },
          ),
        };
        const body = Buffer.from(JSON.stringify(roster));
        const headers = signResponse({
          status: 200,
          body,
          keychainId: KC,
          from: HOME_FP,
          to: memberFp,
          epoch: 1,
          head: '',
          requestNonce: nonce,
          key: home.privateKey,
          keyid: HOME_FP,
          now: Date.now(),
        });
        res.writeHead(200, { ...headers, 'content-type': 'application/json' });
        res.end(body);
      });
    });
    await new Promise<void>((r) => stand.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${String((stand.address() as AddressInfo).port)}`;
    const rt = member.runtime;
    await rt.writer.transact(() =>
      rt.ledger.append({
        type: 'keychain.enrolled',
        actor: 'system',
        data: {
          keychain_id: KC,
          home_fp: HOME_FP,
          epoch: 1,
          via: 'site_key:TESTTEST',
          label: 'member',
          carried: ['policy', 'branding'],
          members: [
            {
              fingerprint: HOME_FP,
              label: 'Stand-in home',
              role: 'home',
              sig_pub: exportSigPub(home.publicKey),
              kx_pub: 'x',
              address: url,
            },
          ],
          records: [genesis],
        },
      }),
    );
  });
  afterAll(async () => {
    await member.cleanup();
    await new Promise((r) => stand.close(r));
  });

  const pull = async () =>
    member.app.inject({ method: 'POST', url: '/v1/keychain/pull', headers: asAdmin() });
  const policyNow = async () =>
    (await member.app.inject({ method: 'GET', url: '/v1/policy', headers: asAdmin() })).json<{
      policy: { grouping: unknown };
    }>().policy.grouping;
  const rejections = (): unknown[] =>
    member.runtime.reader
      .list({ type: 'keychain.part_rejected', order: 'asc' })
      .events.map((e) => e.data);

  it('applies a good part, and then refuses the member its own change', async () => {
    parts = [policyPart(1, { grouping: { window_s: 600, by: ['alertname'] } })];
    expect((await pull()).statusCode).toBe(200);
    expect(await policyNow()).toEqual({ window_s: 600, by: ['alertname'] });
    const own = await member.app.inject({
      method: 'PUT',
      url: '/v1/policy',
      headers: asAdmin(),
      payload: { grouping: { window_s: 60, by: [] } },
    });
    expect(own.statusCode).toBe(409);
    expect(own.json()).toMatchObject({ error: 'keychain_managed' });
    expect(own.json<{ message: string }>().message).toContain('Stand-in home');
  });

  it('refuses a forged, an altered, an older, a stale, an unreadable and an invalid part, keeping what it has', async () => {
    const v2 = { grouping: { window_s: 900, by: ['alertname'] } };
    const cases: [Offered, string][] = [
      [policyPart(2, v2, forger.privateKey), 'bad_sig'],
      [{ ...policyPart(2, v2), doc: { grouping: { window_s: 1, by: [] } } }, 'hash'],
      [policyPart(1, { grouping: { window_s: 5, by: [] } }), 'rollback'],
      [policyPart(3, v2, home.privateKey, 0), 'stale_epoch'],
      // Sealed to someone else: the member cannot open it, and says so.
      [
        { ...policyPart(5, v2), sealTo: createPublicKey(generateAgreementKey(false).privateKey) },
        'unreadable',
      ],
    ];
    for (const [part, reason] of cases) {
      parts = [part];
      expect((await pull()).statusCode).toBe(200);
      expect(rejections().at(-1)).toMatchObject({ part: 'policy', reason });
      expect(await policyNow()).toEqual({ window_s: 600, by: ['alertname'] });
    }
    parts = [policyPart(4, { grouping: { window_s: -5 } })];
    await pull();
    expect(rejections().at(-1)).toMatchObject({ part: 'policy', version: 4 });
    expect(await policyNow()).toEqual({ window_s: 600, by: ['alertname'] });
    // The same version again is no news: nothing is recorded.
    const before = rejections().length;
    parts = [policyPart(1, { grouping: { window_s: 600, by: ['alertname'] } })];
    await pull();
    expect(rejections()).toHaveLength(before);
  });

  it('takes an unsigned 429 for silence: anyone on the path could send one to hold a take-over off', async () => {
    throttled = true;
    for (let i = 0; i < 3; i++) await pull();
    const taken = await member.app.inject({
      method: 'POST',
      url: '/v1/keychain/take-over',
      headers: asAdmin(),
      payload: {},
    });
    // Silent long enough: the claim is made, and refused only because this stand-in's log
    // never added the member (before, the 429s counted as the home alive: home_not_silent).
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ error: 'takeover_invalid' });
  });
});

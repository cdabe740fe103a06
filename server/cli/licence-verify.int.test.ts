// svc-core licence-verify as operators run it: the bundle in a child process, on licence files
// made by the development issuer, with no service running and no database (design cases 54:
// exit codes 0/2/3/4/5/6 on fixtures, offline, the service stopped).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../install/index.js';
import type { LicencePayload } from '../licence/index.js';
import { seal } from '../licence/index.js';
import { createTestIssuer, licencePayload, makeSigningKey } from '../testing/licence/issuer.js';
import { requireBundle, runCli } from '../testing/processes.js';
import { testEnv } from '../testing/test-server.js';
import { generateKeyPairSync } from 'node:crypto';
import { kidOf } from '../licence/index.js';

requireBundle();

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const OTHER = fingerprintOf('0123456789abcdef0123456789abcdef', 'machine-id');
const NOW = new Date().toISOString();
const DAY = 86_400_000;
const issuer = createTestIssuer();

const installOf = (fingerprint: string) => ({
  fingerprint,
  install_pub: randomBytes(32).toString('base64url'),
  label: 'prod',
  role: 'production' as const,
  added_at: NOW,
  via: 'authority' as const,
});
const here = (over: Partial<LicencePayload> = {}): LicencePayload =>
  licencePayload(NOW, { installs: [installOf(THIS)], ...over });

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** A host with a machine id, a data folder that has no database, and a place for files. */
function host(extra: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-licence-verify-'));
  temps.push(dir);
  writeFileSync(join(dir, 'machine-id'), `${MACHINE_ID}\n`);
  mkdirSync(join(dir, 'data'));
  const env = testEnv(dir, join(dir, 'machine-id'), extra);
  const file = (name: string, body: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
    return path;
  };
  return { dir, env, file, data: join(dir, 'data') };
}

interface VerifyJson {
  source: string;
  format: string | null;
  signatures: { kid: string; alg: string; valid: boolean; note: string | null }[];
  key_statements: { kid: string; certified_by: string[] }[];
  root_kids: string[];
  licence: LicencePayload | null;
  stage: string | null;
  grace_ends_at: string | null;
  revocation: { seq: number; status: string };
  this_install: { fingerprint: string; listed: boolean };
  verdict: { ok: boolean; check?: string };
  exit: number;
}

async function verifyJson(env: Record<string, string>, args: string[] = []) {
  const r = await runCli(env, ['licence-verify', ...args, '--json']);
  return { code: r.code, body: JSON.parse(r.stdout) as VerifyJson, stderr: r.stderr };
}

describe('svc-core licence-verify', () => {
  it('a valid licence listing this install: exit 0, each signature, statements, root kids, the licence, stage and revocation', async () => {
    const h = host();
    const payload = here();
    const path = h.file('lic.json', issuer.licence(payload));
    const text = await runCli(h.env, ['licence-verify', path]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    const out = text.stdout.split('\n');
    expect(out[0]).toBe(`file: ${path} (given)`);
    expect(out).toContain('format: svc-licence/1');
    expect(out).toContain(`signature: valid Ed25519 kid ${issuer.ed.signer.kid}`);
    expect(out).toContain(`signature: valid ES256 kid ${issuer.p256.signer.kid}`);
    expect(text.stdout).toMatch(
      new RegExp(`key statement: ES256 kid ${issuer.p256.signer.kid}, usage licence,`),
    );
    expect(out).toContain(`licence id: ${payload.licence_id}`);
    expect(out).toContain('serial: 1');
    expect(out).toContain('customer: Test Customer Ltd (cust-test)');
    expect(out).toContain('tier: enterprise');
    expect(out).toContain('limits: 250 services, 10 installs');
    expect(out).toContain(`installs: ${THIS} (production, prod)`);
    expect(out).toContain('site: none');
    expect(out).toContain(`expires: ${payload.expires_at ?? ''}`);
    expect(text.stdout).toMatch(/\nstage: valid \(36[45] days left\) at /);
    expect(text.stdout).toMatch(/\nrevocation: not revoked; list seq \d+/);
    expect(out).toContain(`this install: ${THIS} is listed`);
    expect(out.at(-2)).toBe('result: valid');

    const j = await verifyJson(h.env, [path]);
    expect(j.code).toBe(0);
    expect(j.body.exit).toBe(0);
    expect(j.body.source).toBe('given');
    expect(j.body.signatures.map((s) => [s.kid, s.valid, s.note])).toEqual([
      [issuer.ed.signer.kid, true, null],
      [issuer.p256.signer.kid, true, null],
    ]);
    expect(j.body.root_kids).toEqual(expect.arrayContaining(['6f534bb786cea5af']));
    expect(j.body.key_statements[0]?.certified_by).toEqual(
      expect.arrayContaining(['6f534bb786cea5af']),
    );
    expect(j.body.licence?.licence_id).toBe(payload.licence_id);
    expect(j.body.grace_ends_at).toBe(
      new Date(Date.parse(payload.expires_at ?? '') + 30 * DAY).toISOString(),
    );
    expect(j.body.this_install).toEqual({ fingerprint: THIS, listed: true, site: null });
    // It ran offline and opened no database: the data folder is as it was, empty.
    expect(readdirSync(h.data)).toEqual([]);
  });

  it('without FILE: the mounted SVC_LICENCE file, else the data folder copy, else exit 1 naming both', async () => {
    const h = host();
    const none = await runCli(h.env, ['licence-verify']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(h.env['SVC_LICENCE'] ?? '?');
    expect(none.stderr).toContain(join(h.data, 'licence.json'));

    const copy = here({ serial: 2 });
    writeFileSync(join(h.data, 'licence.json'), JSON.stringify(issuer.licence(copy)));
    const fromData = await verifyJson(h.env);
    expect(fromData.code).toBe(0);
    expect(fromData.body.source).toBe('data');
    expect(fromData.body.licence?.serial).toBe(2);

    h.file('licence-mounted.json', issuer.licence(here({ serial: 3 })));
    const mounted = await verifyJson(h.env);
    expect(mounted.code).toBe(0);
    expect(mounted.body.source).toBe('mounted');
    expect(mounted.body.licence?.serial).toBe(3);

    const missing = await runCli(h.env, ['licence-verify', join(h.dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
  });

  it('malformed or of another format version: exit 2 with the check', async () => {
    const h = host();
    const good = JSON.stringify(issuer.licence(here()));
    const cases: [string, string][] = [
      [`${good}x`, 'format'],
      [`\uFEFF${good}`, 'format'],
      [good.replace('{', '{"format":"svc-licence/1",'), 'format'],
      ['not json', 'format'],
      [JSON.stringify(issuer.sign('svc-licence/2', here())), 'format_version'],
      [
        JSON.stringify(issuer.licence({ ...here(), tier: 'gold' } as unknown as LicencePayload)),
        'payload',
      ],
    ];
    for (const [i, [body, check]] of cases.entries()) {
      const path = h.file(`bad-${String(i)}.json`, body);
      const r = await verifyJson(h.env, [path]);
      expect([i, r.code, r.body.verdict.check]).toEqual([i, 2, check]);
    }
    const text = await runCli(h.env, ['licence-verify', join(h.dir, 'bad-4.json')]);
    expect(text.stdout).toMatch(/result: REFUSED \(format_version\): svc-licence\/2 is newer/);
  });

  it('a bad signature, or none from a trusted key: exit 3', async () => {
    const h = host();
    const env = issuer.licence(here());
    const first = env.signatures[0];
    if (first === undefined) throw new Error('no signature');
    const flipped = {
      ...env,
      signatures: [
        {
          ...first,
          sig: `${first.sig.slice(0, 10)}${first.sig[10] === 'A' ? 'B' : 'A'}${first.sig.slice(11)}`,
        },
        ...env.signatures.slice(1),
      ],
    };
    const bad = await verifyJson(h.env, [h.file('flipped.json', flipped)]);
    expect(bad.code).toBe(3);
    expect(bad.body.verdict.check).toBe('signature');
    expect(bad.body.signatures[0]).toMatchObject({ valid: false, note: 'does not verify' });

    // Signed by a key certified by a stranger's root: no key this build trusts.
    const strangerRoot = generateKeyPairSync('ed25519').privateKey;
    const stranger = makeSigningKey('Ed25519', {
      root: [{ alg: 'Ed25519', kid: kidOf(strangerRoot), key: strangerRoot }],
    });
    const unknown = seal('svc-licence/1', here(), [stranger.signer], [stranger.statement]);
    const u = await verifyJson(h.env, [h.file('unknown.json', unknown)]);
    expect(u.code).toBe(3);
    expect(u.body.verdict.check).toBe('unknown_key');
    expect(u.body.signatures[0]).toMatchObject({
      valid: false,
      note: 'unknown key: no trusted statement',
    });
  });

  it('revoked, by licence id or by its only signing key (SVC_REVOCATION_FILE): exit 4', async () => {
    const payload = here();
    const base = { seq: 5, issued_at: NOW, licences: [], keys: [], grants: [] };
    const h = host();
    const list = h.file(
      'revocations.json',
      issuer.revocations({
        ...base,
        licences: [{ licence_id: payload.licence_id, reason: 'revoked', at: NOW }],
      }),
    );
    const env = { ...h.env, SVC_REVOCATION_FILE: list };
    const r = await verifyJson(env, [h.file('lic.json', issuer.licence(payload))]);
    expect(r.code).toBe(4);
    expect(r.body.verdict.check).toBe('revoked');
    expect(r.body.revocation).toMatchObject({ seq: 5, status: 'revoked' });

    const k = host();
    const kidList = k.file(
      'revocations.json',
      issuer.revocations({
        ...base,
        keys: [{ kid: issuer.ed.signer.kid, reason: 'compromised' }],
      }),
    );
    const kenv = { ...k.env, SVC_REVOCATION_FILE: kidList };
    const edOnly = await verifyJson(kenv, [k.file('ed.json', issuer.licence(here(), ['Ed25519']))]);
    expect(edOnly.code).toBe(4);
    expect(edOnly.body.verdict.check).toBe('revoked_key');
    // Signed by both: the other key still vouches for it.
    const both = await verifyJson(kenv, [k.file('both.json', issuer.licence(here()))]);
    expect(both.code).toBe(0);
    expect(both.body.signatures[0]).toMatchObject({ valid: true, note: 'key revoked' });

    // The data folder's list counts too, and the higher seq wins.
    writeFileSync(
      join(k.data, 'revocations.json'),
      JSON.stringify(
        issuer.revocations({
          ...base,
          seq: 9,
          licences: [{ licence_id: payload.licence_id, reason: 'revoked' }],
        }),
      ),
    );
    const held = await verifyJson(kenv, [k.file('lic2.json', issuer.licence(payload))]);
    expect(held.code).toBe(4);
    expect(held.body.revocation.seq).toBe(9);
  });

  it('expired beyond grace, by the wall clock or by the clock mark of the data folder: exit 5; in grace: 0', async () => {
    const h = host();
    const t = Date.now();
    const lapsed = here({
      issued_at: new Date(t - 100 * DAY).toISOString(),
      not_before: new Date(t - 100 * DAY).toISOString(),
      expires_at: new Date(t - 31 * DAY).toISOString(),
    });
    const r = await verifyJson(h.env, [h.file('lapsed.json', issuer.licence(lapsed))]);
    expect(r.code).toBe(5);
    expect(r.body.stage).toBe('lapsed');
    const grace = here({
      issued_at: new Date(t - 100 * DAY).toISOString(),
      not_before: new Date(t - 100 * DAY).toISOString(),
      expires_at: new Date(t - 29 * DAY).toISOString(),
    });
    const g = await verifyJson(h.env, [h.file('grace.json', issuer.licence(grace))]);
    expect(g.code).toBe(0);
    expect(g.body.stage).toBe('in_grace');

    // The wall clock says valid, the service's high-water mark says lapsed: the mark wins.
    const valid = here({ expires_at: new Date(t + 10 * DAY).toISOString() });
    const path = h.file('valid.json', issuer.licence(valid));
    expect((await verifyJson(h.env, [path])).code).toBe(0);
    writeFileSync(
      join(h.data, 'licence-clock.json'),
      JSON.stringify({ hwm: new Date(t + 41 * DAY).toISOString() }),
    );
    const marked = await verifyJson(h.env, [path]);
    expect(marked.code).toBe(5);
    expect(marked.body.stage).toBe('lapsed');
  });

  it('not for this install: exit 6; a site licence covers any install', async () => {
    const h = host();
    const other = here({ installs: [installOf(OTHER)] });
    const r = await verifyJson(h.env, [h.file('other.json', issuer.licence(other))]);
    expect(r.code).toBe(6);
    expect(r.body.verdict.check).toBe('not_for_this_install');
    expect(r.body.this_install.listed).toBe(false);
    const text = await runCli(h.env, ['licence-verify', join(h.dir, 'other.json')]);
    expect(text.stdout).toContain(`this install: ${THIS} is not listed`);

    const site = here({ installs: [], site: { name: 'Test Site' }, tier: 'strategic' });
    const s = await verifyJson(h.env, [h.file('site.json', issuer.licence(site))]);
    expect(s.code).toBe(0);
    expect(s.body.this_install.listed).toBe(false);
  });

  it('a usage error for two files', async () => {
    const h = host();
    const r = await runCli(h.env, ['licence-verify', 'a', 'b']);
    expect(r.code).toBe(2);
    expect(existsSync(join(h.data, 'svc.db'))).toBe(false);
  });
});

// Keychain installs for the tests: real service processes (dist/server.mjs) on loopback,
// each with its own data folder and key, calls as the admin token, and peer calls crafted by
// hand exactly as an install makes them (to test the home against hostile or broken peers).
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { keyFingerprint } from '../../ledger/index.js';
import { exportSigPub } from '../../keychain/authority-log.js';
import { signRequest } from '../../keychain/crypto/peer-signature.js';
import {
  exportAgreementPublic,
  importAgreementPublic,
  sealTo,
} from '../../keychain/crypto/sealed-box.js';
import type { Hello } from '../../keychain/keychain.service.js';
import { aadFor, ENROL_AAD } from '../../keychain/peer.routes.js';
import { childEnv, freePort, ROOT, SERVER } from '../processes.js';
import { ADMIN_TOKEN, testEnv } from '../test-server.js';

export type Json = Record<string, unknown>;

export interface Install {
  readonly name: string;
  readonly dir: string;
  readonly url: string;
  readonly output: () => string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export const installs: Install[] = [];
export const temps: string[] = [];

export async function startInstall(
  name: string,
  machineId: string,
  extra: Record<string, string> = {},
  existing?: string,
): Promise<Install> {
  const dir = existing ?? mkdtempSync(join(tmpdir(), `svc-kc-${name}-`));
  if (existing === undefined) temps.push(dir);
  writeFileSync(join(dir, 'machine-id'), `${machineId}\n`);
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER], {
    env: childEnv(
      testEnv(dir, join(dir, 'machine-id'), {
        SVC_PORT: String(port),
        SVC_BIND: '127.0.0.1',
        SVC_INSTANCE: name,
        // Where the other installs reach this one (its roster address).
        SVC_CONSOLE_URL: `http://127.0.0.1:${String(port)}`,
        SVC_LOG_LEVEL: 'info',
        ...extra,
      }),
    ),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${String(port)}`;
  const until = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > until || child.exitCode !== null)
      throw new Error(`${name} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const install: Install = {
    name,
    dir,
    url,
    output: () => output,
    child,
    async stop() {
      // Ended already (a test's kill -9 sets signalCode, not exitCode).
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
  installs.push(install);
  return install;
}

export async function call(
  i: Install,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${i.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null>,
  ms = 20_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== null) return got;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A new site made by hand: its keys, and enrol calls crafted exactly as join.ts makes them. */
export function craftedSite() {
  const sig = generateKeyPairSync('ed25519');
  const kx = generateKeyPairSync('x25519');
  return {
    fp: keyFingerprint(sig.publicKey),
    sigKey: sig.privateKey,
    sigPub: exportSigPub(sig.publicKey),
    kxKey: kx.privateKey,
    kxPub: exportAgreementPublic(kx.privateKey),
  };
}
export type Site = ReturnType<typeof craftedSite>;

export async function hello(home: Install): Promise<Hello> {
  const res = await send(home, '/v1/keychain/peer/hello', { body: Buffer.from('{}'), headers: {} });
  expect(res.status).toBe(200);
  return res.body as unknown as Hello;
}

export function enrolRequest(
  h: Hello,
  site: Site,
  key: { id: string; secret: string },
  options: { createdAt?: number; to?: string; body?: Buffer } = {},
) {
  const sealed = sealTo(
    importAgreementPublic(h.home_kx_pub),
    Buffer.from(
      JSON.stringify({
        key_id: key.id,
        secret: key.secret,
        sig_pub: site.sigPub,
        kx_pub: site.kxPub,
        label: 'crafted',
        address: null,
      }),
    ),
    aadFor(ENROL_AAD, h.keychain_id, h.home_fp),
  );
  const body = options.body ?? Buffer.from(JSON.stringify({ sig_pub: site.sigPub, sealed }));
  const headers = signRequest({
    method: 'POST',
    path: '/v1/keychain/peer/enrol',
    query: '',
    body,
    keychainId: h.keychain_id,
    from: site.fp,
    to: options.to ?? h.home_fp,
    epoch: h.epoch,
    head: h.head,
    key: site.sigKey,
    keyid: site.fp,
    now: options.createdAt ?? Date.now(),
  });
  return { body, headers };
}

// Each crafted call comes from an address of its own in 127/8 (Linux answers the whole
// block on loopback), so that the per-address throttle weighs only on the test about it.
// The counter lives as long as the worker, across test files (vitest keeps modules loaded):
// it walks 127.0.x.y rather than run past 127.0.0.255.
let nextAddress = 10;
export const freshAddress = (): string => {
  const n = nextAddress++;
  return `127.0.${String(Math.floor(n / 250) % 250)}.${String(1 + (n % 250))}`;
};

export function send(
  home: Install,
  path: string,
  req: { body: Buffer; headers: Record<string, string> },
  from = freshAddress(),
): Promise<{ status: number; raw: Buffer; headers: Record<string, string>; body: Json }> {
  return new Promise((resolve, reject) => {
    const r = request(
      `${home.url}${path}`,
      {
        method: 'POST',
        localAddress: from,
        headers: {
          ...req.headers,
          'content-type': 'application/json',
          'content-length': String(req.body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (typeof v === 'string') headers[k] = v;
          let body: Json = {};
          try {
            body = JSON.parse(raw.toString() || '{}') as Json;
          } catch {
            body = { raw: raw.toString() };
          }
          resolve({ status: res.statusCode ?? 0, raw, headers, body });
        });
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

export function splitKey(text: string): { id: string; secret: string; homeFp: string } {
  const [, id = '', secret = '', homeFp = ''] = text.split('.');
  return { id, secret, homeFp };
}

/** Every event of an install's ledger as `type data` lines, read through GET /v1/ledger. */
export async function ledgerText(i: Install): Promise<string> {
  const lines: string[] = [];
  let after = 0;
  for (;;) {
    const page = await call(i, 'GET', `/v1/ledger?order=asc&limit=2000&after_seq=${String(after)}`);
    const events = page.body['events'] as { seq: number; type: string; data: unknown }[];
    for (const e of events) lines.push(`${e.type} ${JSON.stringify(e.data)}`);
    if (page.body['more'] !== true || events.length === 0) return lines.join('\n');
    after = events[events.length - 1]?.seq ?? after;
  }
}

/** Stop every install started here and remove their folders. */
export async function stopAll(): Promise<void> {
  await Promise.all(installs.map((i) => i.stop()));
  for (const t of temps) rmSync(t, { recursive: true, force: true });
}

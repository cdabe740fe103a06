// The svc-core command line as operators run it: the bundle (dist/svc-core.mjs, built by
// node build/bundle.mjs) in a child process, with the environment of a real data folder.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../install/index.js';
import { buildTestServer, testEnv, type TestServer } from '../testing/test-server.js';
import { ROOT, freePort, requireBundle, runCli } from '../testing/processes.js';
import { tamper } from '../testing/tamper.js';

requireBundle();

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c'; // what makeDataDir writes
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

interface DoctorJson {
  status: 'ok' | 'warn' | 'fail';
  checks: {
    area: string;
    check: string;
    status: 'ok' | 'warn' | 'fail';
    detail: string;
    hint: string;
  }[];
}
interface PreflightJson {
  status: 'ok' | 'warn' | 'fail';
  checks: { status: string; check: string; detail: string }[];
}

describe('svc-core', () => {
  let s: TestServer;
  let env: Record<string, string>;
  let port: number;
  const temps: string[] = [];

  beforeAll(async () => {
    s = await buildTestServer();
    env = s.env;
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const address = s.app.server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });
  afterAll(async () => {
    await s.cleanup();
    for (const t of temps) rmSync(t, { recursive: true, force: true });
  });

  /** A folder with a machine-id file holding `id`, and the environment pointing at it. */
  function otherHost(id: string): Record<string, string> {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    temps.push(dir);
    writeFileSync(join(dir, 'machine-id'), `${id}\n`);
    return testEnv(dir, join(dir, 'machine-id'));
  }

  it('version prints the package version', async () => {
    expect(await runCli(env, ['version'])).toEqual({
      code: 0,
      stdout: `${VERSION}\n`,
      stderr: '',
    });
  });

  it('fingerprint prints the install fingerprint; an all-zero machine id is refused with a clear message', async () => {
    const ok = await runCli(env, ['fingerprint']);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    // The fingerprint alone on the first line (what scripts read), then where it comes from.
    const [first, ...rest] = ok.stdout.trimEnd().split('\n');
    expect(first).toBe(fingerprintOf(MACHINE_ID, 'machine-id'));
    expect(first).toMatch(/^([A-Z2-7]{4}-){5}[A-Z2-7]{4}$/);
    expect(rest).toContain('kind: machine-id');
    expect(rest).toContain(
      `source: ${env['SVC_MACHINE_ID_FILE'] ?? ''} (its value never leaves this host)`,
    );
    expect(rest).toContain('licence: the trial: no signed licence lists installs yet');
    expect(ok.stdout).not.toContain(MACHINE_ID);
    const json = await runCli(env, ['fingerprint', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      fingerprint: fingerprintOf(MACHINE_ID, 'machine-id'),
      kind: 'machine-id',
      source: env['SVC_MACHINE_ID_FILE'],
      on_licence: true,
    });

    const zeroEnv = otherHost('0'.repeat(32));
    const zero = await runCli(zeroEnv, ['fingerprint']);
    expect(zero.code).toBe(1);
    expect(zero.stdout).toBe('');
    expect(zero.stderr).toBe(
      `no usable install identity: the machine id in ${zeroEnv['SVC_MACHINE_ID_FILE'] ?? ''} is refused: it repeats one character. Run systemd-machine-id-setup, or set SVC_MACHINE_ID_FILE, SVC_HARDWARE_ID_FILE or SVC_CLUSTER_UID\n`,
    );
  });

  it('health: 0 when the service answers, 1 when it is down', async () => {
    const url = `http://127.0.0.1:${String(port)}`;
    expect(await runCli(env, ['health', '--url', url])).toEqual({
      code: 0,
      stdout: `${url}: up\n`,
      stderr: '',
    });
    // Without --url: SVC_BIND and SVC_PORT.
    expect(
      await runCli({ ...env, SVC_BIND: '127.0.0.1', SVC_PORT: String(port) }, ['health']),
    ).toEqual({ code: 0, stdout: `${url}: up\n`, stderr: '' });

    const closed = await freePort();
    const down = await runCli(env, ['health', '--url', `http://127.0.0.1:${String(closed)}`]);
    expect(down.code).toBe(1);
    expect(down.stdout).toBe('');
    expect(down.stderr).toBe(
      `http://127.0.0.1:${String(closed)}: down (connect ECONNREFUSED 127.0.0.1:${String(closed)})\n`,
    );
  });

  it('preflight --json: every check ok, warn or fail; exit 1 exactly when one fails', async () => {
    const good = await runCli(env, ['preflight', '--json']);
    const report = JSON.parse(good.stdout) as PreflightJson;
    expect(report.checks.length).toBeGreaterThanOrEqual(6);
    for (const c of report.checks) expect(['ok', 'warn', 'fail']).toContain(c.status);
    const fails = report.checks.filter((c) => c.status === 'fail');
    expect(good.code).toBe(fails.length > 0 ? 1 : 0);
    expect(report.status).toBe(
      fails.length > 0 ? 'fail' : report.checks.some((c) => c.status === 'warn') ? 'warn' : 'ok',
    );
    expect(report.checks.find((c) => c.check === 'licence: install identity')).toEqual({
      status: 'ok',
      check: 'licence: install identity',
      detail: `fingerprint ${fingerprintOf(MACHINE_ID, 'machine-id')} (from machine-id)`,
    });
    // A folder that ran holds its trial; preflight reports that, not what a start would do.
    expect(report.checks.find((c) => c.check === 'licence: held')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(
        /^trial \(trial\), expires \d{4}-.*Z, 90 days left$/,
      ) as unknown,
    });
    const before = JSON.parse(
      (await runCli(otherHost(MACHINE_ID), ['preflight', '--json'])).stdout,
    ) as {
      checks: { status: string; check: string; detail: string }[];
    };
    expect(before.checks.find((c) => c.check.startsWith('licence: f'))).toMatchObject({
      status: 'ok',
      check: 'licence: file',
      detail: 'offline trial at first start (SVC_TRIAL=1)',
    });
    expect(report.checks.find((c) => c.check === 'host: node')?.status).toBe('ok');

    // The text form: one line per check, status first.
    const text = await runCli(env, ['preflight']);
    expect(text.code).toBe(good.code);
    // (The free share of the disk may move between the two runs: its detail is not compared.)
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(report.checks.length);
    report.checks.forEach((c, k) => {
      const head = `${c.status.padEnd(5)} ${c.check}: `;
      if (c.check.startsWith('disk:')) expect(lines[k]?.startsWith(head)).toBe(true);
      else expect(lines[k]).toBe(`${head}${c.detail}`);
    });

    // A refused install identity is a fail: exit 1.
    const bad = await runCli(otherHost('0'.repeat(32)), ['preflight', '--json']);
    expect(bad.code).toBe(1);
    const badReport = JSON.parse(bad.stdout) as PreflightJson;
    expect(badReport.status).toBe('fail');
    expect(badReport.checks.find((c) => c.check === 'licence: install identity')?.status).toBe(
      'fail',
    );
  });

  it('unknown command or option: exit 2 with the usage', async () => {
    const unknown = await runCli(env, ['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(
      /^unknown command frobnicate\nusage: svc-core <command> \[options\]\n/,
    );
    expect(unknown.stderr).toContain('ledger-verify [--checkpoint FILE] [--json]');

    const none = await runCli(env, []);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^usage: svc-core <command> \[options\]\n/);

    const option = await runCli(env, ['version', '--bogus']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('--bogus');
  });

  it('ledger-verify and doctor refuse a folder that never ran, without creating it', async () => {
    const fresh = otherHost(MACHINE_ID);
    for (const cmd of ['ledger-verify', 'doctor']) {
      const r = await runCli(fresh, [cmd]);
      expect(r.code, cmd).toBe(1);
      expect(r.stderr).toBe(
        `svc-core: no ledger at ${join(fresh['SVC_DATA'] ?? '', 'svc.db')}: SVC_DATA (${fresh['SVC_DATA'] ?? ''}) has never been started\n`,
      );
    }
    expect(existsSync(fresh['SVC_DATA'] ?? '')).toBe(false);
  });

  describe('on a ledger', () => {
    it('connectors list and check, doctor and preflight --deep ask each connector', async () => {
      const target = createServer((_req, res) => {
        res.writeHead(200).end('ok');
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      const port = (target.address() as AddressInfo).port;
      try {
        for (const [name, url] of [
          ['web', `http://127.0.0.1:${String(port)}/`],
          ['gone', 'http://127.0.0.1:9/'],
        ] as const) {
          const res = await s.app.inject({
            method: 'PUT',
            url: `/v1/connectors/${name}`,
            headers: { authorization: `Bearer ${env['SVC_ADMIN_TOKEN'] ?? ''}` },
            payload: { kind: 'http', settings: { url }, timeout_s: 2 },
          });
          expect(res.statusCode, res.body).toBe(200);
        }
        const list = await runCli(env, ['connectors', 'list']);
        expect(list.code).toBe(0);
        expect(list.stdout).toContain('kind prometheus: query, discover, poll_alerts');
        expect(list.stdout).toMatch(/^web \(http\)$/m);
        const check = await runCli(env, ['connectors', 'check']);
        expect(check.code).toBe(1);
        expect(check.stdout).toMatch(/^ok {4}web \(http\): HTTP 200 in \d+ ms/m);
        expect(check.stdout).toMatch(/^fail {2}gone \(http\): /m);
        const deep = await runCli(env, ['preflight', '--deep', '--json']);
        const report = JSON.parse(deep.stdout) as PreflightJson;
        expect(report.checks.find((c) => c.check === 'deep: web')?.status).toBe('ok');
        expect(report.checks.find((c) => c.check === 'deep: gone')?.status).toBe('fail');
        const doctor = JSON.parse((await runCli(env, ['doctor', '--json'])).stdout) as DoctorJson;
        const health = doctor.checks.find((c) => c.check === 'health');
        expect(health?.status).toBe('warn');
        expect(health?.detail).toMatch(/web \(http\): ok, HTTP 200 in \d+ ms in \d+ ms/);
        const bad = await runCli(env, ['connectors', 'frob']);
        expect(bad.code).toBe(2);
      } finally {
        for (const name of ['web', 'gone']) {
          await s.app.inject({
            method: 'DELETE',
            url: `/v1/connectors/${name}`,
            headers: { authorization: `Bearer ${env['SVC_ADMIN_TOKEN'] ?? ''}` },
          });
        }
        await new Promise<void>((resolve) => target.close(() => resolve()));
      }
    });

    it('ledger-verify: exit 0 and a summary while the server runs', async () => {
      const head = s.runtime.ledger.head().seq;
      const r = await runCli(env, ['ledger-verify']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(
          `^ledger verifies: ${String(head)} events, 0 segments sealed through seq 0, head seq ${String(head)} \\(\\d+ events/s\\)\\n$`,
        ),
      );
      const json = await runCli(env, ['ledger-verify', '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: true,
        checked: head,
        head: { seq: head },
        failure: null,
        algorithm: 'ed25519',
        key_fingerprint: s.runtime.keyFingerprint,
      });
    });

    it('doctor: text and --json, exit 1 exactly when a check fails', async () => {
      const json = await runCli(env, ['doctor', '--json']);
      const report = JSON.parse(json.stdout) as DoctorJson;
      expect(report.checks.map((c) => `${c.area} / ${c.check}`)).toEqual([
        'Core / main',
        'Audit / ledger integrity',
        'Storage / data volume',
        'Licence / confirmation',
        'Core / Investigations',
        'Core / Alert intake',
        'Connections / health',
        'Diagnosis / ML artefacts',
      ]);
      for (const c of report.checks) expect(['ok', 'warn', 'fail']).toContain(c.status);
      expect(json.code).toBe(report.status === 'fail' ? 1 : 0);
      const byName = Object.fromEntries(report.checks.map((c) => [c.check, c]));
      expect(byName['main']).toMatchObject({
        status: 'warn',
        detail: 'configuring: no working connection yet',
      });
      expect(byName['ledger integrity']).toMatchObject({
        status: 'ok',
        detail: `${String(s.runtime.ledger.head().seq)} events verify; 0 segments sealed through seq 0`,
      });
      expect(byName['confirmation']?.status).toBe('ok');

      const text = await runCli(env, ['doctor']);
      expect(text.code).toBe(json.code);
      const lines = text.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(9);
      expect(lines[0]).toBe(
        'warn  Core / main: configuring: no working connection yet (add a connection (Connections) to reach operating)',
      );
      expect(lines[1]).toMatch(
        /^ok {4}Audit \/ ledger integrity: \d+ events verify; 0 segments sealed through seq 0$/,
      );
      expect(lines[4]).toBe(
        'ok    Core / Investigations: 0 investigating, 0 waiting for approval, 0 episodes open; 0 incidents still firing',
      );
      expect(lines[5]).toMatch(/^(ok|warn) {2,4}Core \/ Alert intake: /);
      expect(lines[6]).toBe(
        'warn  Connections / health: no connections configured (add a connection to a monitoring tool or host (Connections, or PUT /v1/connectors/<name>))',
      );
      expect(lines[7]).toMatch(/^ok {4}Diagnosis \/ ML artefacts: no ML artefacts in .*\/ml/);
      expect(lines[8]).toBe(`overall: ${report.status}`);
    });

    it('after tampering: ledger-verify exits 1 naming the seq, doctor fails', async () => {
      await s.stop();
      tamper(join(env['SVC_DATA'] ?? '', 'svc.db'), 'ledger', { actor: 'mallory' }, { seq: 2 });

      const r = await runCli(env, ['ledger-verify']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'ledger verify FAILED at seq 2 (chain): the event at seq 2 does not match its chain hash: it was changed, moved or replaced\n',
      );
      const json = await runCli(env, ['ledger-verify', '--json']);
      expect(json.code).toBe(1);
      expect((JSON.parse(json.stdout) as { failure: unknown }).failure).toEqual({
        seq: 2,
        check: 'chain',
        segment: null,
        message:
          'the event at seq 2 does not match its chain hash: it was changed, moved or replaced',
      });

      const doctor = await runCli(env, ['doctor', '--json']);
      expect(doctor.code).toBe(1);
      const report = JSON.parse(doctor.stdout) as DoctorJson;
      expect(report.status).toBe('fail');
      expect(report.checks.find((c) => c.check === 'ledger integrity')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/^chain fails at seq 2: /) as unknown,
      });
      const text = await runCli(env, ['doctor']);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/\noverall: fail\n$/);
    });
  });
});

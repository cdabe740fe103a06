// Status, doctor, metrics and the OpenAPI document against a real server; the identity of
// an install (fingerprint, admin token, install key) across restarts.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataVolumeCheck, FREE_FAIL, FREE_WARN } from '../doctor/index.js';
import { fingerprintOf } from '../install/index.js';
import { INSTALL_KEY_FILE } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  asIngest,
  bearer,
  buildTestServer,
  makeDataDir,
  type TestServer,
} from '../testing/test-server.js';

/** The machine id that makeDataDir() writes. */
const TEST_MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const FINGERPRINT_SHAPE = /^[A-Z2-7]{4}(-[A-Z2-7]{4}){5}$/;

interface StatusBody {
  version: string;
  instance: string;
  fingerprint: string | null;
  mode: string;
  licence: {
    tier: string;
    kind: string;
    services: number;
    installs: number;
    install_limit: number;
    expires_at: string;
    in_grace: boolean;
    valid: boolean;
    days_left: number;
  } | null;
  setup: {
    steps: { id: string; title: string; done: boolean; hint: string }[];
    done: number;
    of: number;
  };
  impact_set: boolean;
  auth: { sso: boolean; methods: string[] };
  ledger: { seq: number; hash: string | null; segments: number; sealed_through: number };
  models: {
    placement: string;
    system2: {
      configured: boolean;
      model: string | null;
      url_origin: string | null;
      investigator: string;
      tokens_today: number;
      daily_tokens: number;
    };
    system1: {
      configured: boolean;
      model: string | null;
      url_origin: string | null;
      tokens_today: number;
      daily_tokens: number;
    };
    cassette: string | null;
    local: { file: string; state: string; gpu: string | null; reason: string | null } | null;
  };
  orchestrate: boolean;
  ingest: boolean;
  started_at: string;
}

interface DoctorCheckBody {
  area: string;
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  hint: string;
  duration_ms: number;
}
interface DoctorBody {
  status: 'ok' | 'warn' | 'fail';
  checked_at: string;
  cached: boolean;
  checks: DoctorCheckBody[];
}

const modeOf = (path: string): number => statSync(path).mode & 0o777;
const rank = { ok: 0, warn: 1, fail: 2 } as const;

describe('GET /v1/status, /v1/doctor, /metrics, /v1/openapi.json', () => {
  const clock = createFakeClock('2026-03-01T10:00:00.000Z');
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ clock });
  });
  afterAll(async () => {
    await server.cleanup();
  });

  const status = async (): Promise<StatusBody> => {
    const res = await server.app.inject({ method: 'GET', url: '/v1/status' });
    expect(res.statusCode).toBe(200);
    return res.json<StatusBody>();
  };
  const doctor = async (query = ''): Promise<DoctorBody> => {
    const res = await server.app.inject({
      method: 'GET',
      url: `/v1/doctor${query}`,
      headers: asAdmin(),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<DoctorBody>();
  };

  describe('status', () => {
    it('has every part the specification names, with this install’s values', async () => {
      const body = await status();
      expect(body.version).toBe(server.runtime.config.version);
      expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(body.instance).toBe('test');
      expect(body.fingerprint).toBe(fingerprintOf(TEST_MACHINE_ID, 'machine-id'));
      expect(body.fingerprint).toMatch(FINGERPRINT_SHAPE);
      expect(body.mode).toBe('configuring');
      expect(body.licence).toStrictEqual({
        tier: 'trial',
        kind: 'trial',
        services: 50,
        services_used: 0, // no signal yet, nothing pinned
        installs: 1,
        install_limit: 10,
        expires_at: '2026-05-30T10:00:00.000Z', // 90 days after the fake clock's start
        in_grace: false,
        valid: true,
        days_left: 90,
        customer: null,
        grace_ends_at: '2026-06-13T10:00:00.000Z', // 14 days of grace
        stage: 'valid',
        why: null,
        check: 'offline',
        confirmed_at: null, // an offline trial has nothing to confirm
        verified: false, // nobody vouched for an offline trial
        file_mounted: null,
        vouched_until: null, // no offline grant
      });
      expect(body.setup.of).toBe(body.setup.steps.length);
      expect(body.setup.done).toBe(body.setup.steps.filter((s) => s.done).length);
      expect(body.setup.steps.map((s) => [s.id, s.done])).toEqual([
        ['licence', true],
        ['connection', false],
      ]);
      expect(body.setup.done).toBe(1);
      expect(body.impact_set).toBe(false);
      // Nothing configured: the admin token and passwords (a person may have set one).
      expect(body.auth).toStrictEqual({ sso: false, methods: ['token', 'password'] });
      expect(body.models).toStrictEqual({
        placement: 'missing',
        system2: {
          configured: false,
          model: null,
          url_origin: null,
          investigator: 'loop',
          investigator_bounds: { s2_calls: 16, reads: 24, depth: 4 },
          tokens_today: 0,
          daily_tokens: 0,
        },
        system1: {
          configured: false,
          model: null,
          url_origin: null,
          tokens_today: 0,
          daily_tokens: 0,
        },
        cassette: null,
        local: null,
      });
      expect(body.orchestrate).toBe(true);
      expect(body.ingest).toBe(true);
      expect(body.started_at).toBe('2026-03-01T10:00:00.000Z');
    });

    it('auth lists e-mailed codes once mail is set up', async () => {
      const put = await server.app.inject({
        method: 'PUT',
        url: '/v1/settings/mail',
        headers: asAdmin(),
        payload: {
          transport: 'smtp',
          smtp: { host: '127.0.0.1', port: 9, security: 'none', from: 'svc@example.com' },
        },
      });
      expect(put.statusCode, put.body).toBe(200);
      expect((await status()).auth).toStrictEqual({
        sso: false,
        methods: ['token', 'password', 'code'],
      });
    });

    it('ledger is the head of the audit log, and moves with an append', async () => {
      const before = await status();
      const verify = (
        await server.app.inject({ method: 'GET', url: '/v1/ledger/verify', headers: asAdmin() })
      ).json<{ head: { seq: number; hash: string } }>();
      expect(before.ledger.seq).toBeGreaterThan(0);
      expect(before.ledger.hash).toMatch(/^[0-9a-f]{64}$/);
      expect({ seq: before.ledger.seq, hash: before.ledger.hash }).toStrictEqual(verify.head);
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers: asIngest(),
        payload: { type: 'human.deploy', actor: 'ci:status', data: {} },
      });
      expect(res.statusCode).toBe(201);
      const after = await status();
      expect(after.ledger.seq).toBe(res.json<{ seq: number }>().seq);
      expect(after.ledger.seq).toBe(before.ledger.seq + 1);
      expect(after.ledger.hash).not.toBe(before.ledger.hash);
    });

    it('the install key is private to the service user (0600)', () => {
      expect(modeOf(join(server.runtime.config.dataDir, INSTALL_KEY_FILE))).toBe(0o600);
    });

    it('the data folder is 0700 and the database and its WAL are 0600', () => {
      const dir = server.runtime.config.dataDir;
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(join(dir, 'svc.db'))).toBe(0o600);
      expect(modeOf(join(dir, 'svc.db-wal'))).toBe(0o600);
    });

    it('with SVC_ADMIN_TOKEN set, no admin-token file is written', () => {
      expect(() => statSync(join(server.runtime.config.dataDir, 'admin-token'))).toThrow(/ENOENT/);
    });
  });

  describe('doctor', () => {
    it('report shape; status is the worst check', async () => {
      const report = await doctor('?fresh=1');
      expect(Object.keys(report).sort()).toEqual(['cached', 'checked_at', 'checks', 'status']);
      expect(report.cached).toBe(false);
      expect(report.checked_at).toBe(clock.nowIso());
      for (const c of report.checks) {
        expect(Object.keys(c).sort()).toEqual([
          'area',
          'check',
          'detail',
          'duration_ms',
          'hint',
          'status',
        ]);
        expect(['ok', 'warn', 'fail']).toContain(c.status);
        expect(Number.isInteger(c.duration_ms) && c.duration_ms >= 0).toBe(true);
        if (c.status !== 'ok') expect(c.hint, c.check).not.toBe('');
      }
      expect(report.checks.map((c) => `${c.area}/${c.check}`)).toEqual([
        'Core/main',
        'Audit/ledger integrity',
        'Storage/data volume',
        'Licence/confirmation',
        'Core/Investigations',
        'Core/Alert intake',
        'Connections/health',
        'Diagnosis/ML artefacts',
        'Core/What-changed snapshots',
        'Approvals/escalation',
        'Models/placement',
        'Models/System 1 and investigator',
        'Packs/signatures',
        'Packs/licence',
        'Approvals/pending',
        'Approvals/lab auto-approver',
        'Policy/fix mode, raising autonomy',
        'Diagnosis/accuracy',
        'Keychain/Witnesses',
      ]);
      const worst = report.checks.reduce<DoctorCheckBody['status']>(
        (w, c) => (rank[c.status] > rank[w] ? c.status : w),
        'ok',
      );
      expect(report.status).toBe(worst);
      // Configuring (no connection yet) is a warning, so the report is at least that.
      expect(report.checks[0]).toMatchObject({
        status: 'warn',
        detail: 'configuring: no working connection yet',
      });
      expect(report.status).not.toBe('ok');
      expect(report.checks[1]).toMatchObject({ status: 'ok' });
      expect(report.checks[1]?.detail).toMatch(/^\d+ (new )?events verify/);
      expect(report.checks[3]).toMatchObject({ status: 'ok' });
      expect(report.checks[3]?.detail).toContain('offline by choice');
    });

    it('is cached for 15 s; fresh=1 re-runs; after 15 s it re-runs', async () => {
      const first = await doctor('?fresh=1');
      expect(first.cached).toBe(false);
      const t0 = first.checked_at;

      clock.advance(14_999);
      const cached = await doctor();
      expect(cached.cached).toBe(true);
      expect(cached.checked_at).toBe(t0);
      expect(cached.checks).toStrictEqual(first.checks);

      clock.advance(1);
      const expired = await doctor();
      expect(expired.cached).toBe(false);
      expect(expired.checked_at).toBe(clock.nowIso());
      expect(expired.checked_at).not.toBe(t0);

      clock.advance(1000);
      const again = await doctor();
      expect(again.cached).toBe(true);
      expect(again.checked_at).toBe(expired.checked_at);
      const fresh = await doctor('?fresh=1');
      expect(fresh.cached).toBe(false);
      expect(fresh.checked_at).toBe(clock.nowIso());
      expect(fresh.checked_at).not.toBe(expired.checked_at);
      // fresh=0 is the cached answer.
      expect((await doctor('?fresh=0')).cached).toBe(true);
    });

    it('fresh accepts 0 or 1 only', async () => {
      const res = await server.app.inject({
        method: 'GET',
        url: '/v1/doctor?fresh=yes',
        headers: asAdmin(),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'invalid_input',
        field: 'fresh',
        message: expect.any(String) as unknown,
      });
    });
  });

  describe('metrics', () => {
    const scrape = async (): Promise<string> => {
      const res = await server.app.inject({ method: 'GET', url: '/metrics', headers: asAdmin() });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.body;
    };
    const sample = (text: string, series: string): number | undefined => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };

    it('Prometheus text with the service’s metrics', async () => {
      const text = await scrape();
      for (const [name, type] of [
        ['svc_http_requests_total', 'counter'],
        ['svc_http_request_duration_seconds', 'histogram'],
        ['svc_ledger_seq', 'gauge'],
        ['svc_ledger_appends_total', 'counter'],
        ['svc_writer_queue_depth', 'gauge'],
        ['svc_intake_signals_total', 'counter'],
        ['svc_investigation_duration_seconds', 'histogram'],
      ] as const) {
        expect(text).toContain(`# HELP ${name} `);
        expect(text).toContain(`# TYPE ${name} ${type}\n`);
      }
      expect(text).toContain('# TYPE svc_process_cpu_seconds_total counter');
    });

    it('svc_ledger_seq is the ledger head', async () => {
      const { ledger } = await status();
      expect(sample(await scrape(), 'svc_ledger_seq')).toBe(ledger.seq);
    });

    it('counts each request once', async () => {
      for (let i = 0; i < 3; i++) await server.app.inject({ method: 'GET', url: '/health' });
      const first = await scrape();
      const health = 'svc_http_requests_total{method="GET",route="/health",status="200"}';
      const scrapes = 'svc_http_requests_total{method="GET",route="/metrics",status="200"}';
      const h0 = sample(first, health) ?? 0;
      const m0 = sample(first, scrapes) ?? 0;
      expect(h0).toBeGreaterThanOrEqual(3);
      await server.app.inject({ method: 'GET', url: '/health' });
      const second = await scrape();
      expect(sample(second, health)).toBe(h0 + 1);
      expect(sample(second, scrapes)).toBe(m0 + 1);
    });

    it('needs the viewer role', async () => {
      const none = await server.app.inject({ method: 'GET', url: '/metrics' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({ error: 'no_credentials' });
      const ingest = await server.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: asIngest(),
      });
      expect(ingest.statusCode).toBe(403);
      expect(ingest.json()).toMatchObject({ error: 'role_required', role: 'viewer' });
    });
  });

  describe('openapi', () => {
    it('is an OpenAPI 3.1 document whose paths include every route', async () => {
      const res = await server.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json<{
        openapi: string;
        info: { title: string; version: string };
        paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
      }>();
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe(server.runtime.config.version);
      const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
      );
      for (const op of [
        'GET /health',
        'GET /v1/status',
        'GET /v1/doctor',
        'GET /v1/ledger',
        'GET /v1/ledger/verify',
        'POST /v1/events',
        'GET /metrics',
      ]) {
        expect(ops).toContain(op);
      }
      // The error answers are documented too.
      expect(Object.keys(doc.paths['/v1/events']?.['post']?.responses ?? {})).toEqual(
        expect.arrayContaining(['201', '400', '401', '403', '503']),
      );
    });
  });
});

describe('identity: fingerprint refused, SVC_ADMIN_TOKEN_FILE', () => {
  const FILE_TOKEN = 'admin-token-from-a-file-0123456789abcdef';
  let server: TestServer;
  let made: { dir: string; machineIdFile: string };
  beforeAll(async () => {
    made = makeDataDir();
    writeFileSync(made.machineIdFile, `${'0'.repeat(32)}\n`);
    const tokenFile = join(made.dir, 'admin-token.secret');
    writeFileSync(tokenFile, `${FILE_TOKEN}\n`, { mode: 0o600 });
    server = await buildTestServer({
      dir: made.dir,
      env: { SVC_ADMIN_TOKEN_FILE: tokenFile, SVC_ADMIN_TOKEN: ADMIN_TOKEN },
    });
  });
  afterAll(async () => {
    await server.cleanup();
  });

  it('an all-zero machine id: fingerprint null in status', async () => {
    const body = (await server.app.inject({ method: 'GET', url: '/v1/status' })).json<StatusBody>();
    expect(body.fingerprint).toBeNull();
    expect(body.mode).toBe('configuring');
  });

  it("an all-zero machine id: doctor's licence check names the problem and the remedy", async () => {
    const report = (
      await server.app.inject({
        method: 'GET',
        url: '/v1/doctor?fresh=1',
        headers: bearer(FILE_TOKEN),
      })
    ).json<DoctorBody>();
    const licence = report.checks.find((c) => c.area === 'Licence');
    expect(licence?.status).toBe('warn');
    expect(licence?.detail).toContain(`the machine id in ${made.machineIdFile} is refused`);
    expect(licence?.detail).toContain('systemd-machine-id-setup');
    expect(licence?.hint).toContain('machine id');
  });

  it('SVC_ADMIN_TOKEN_FILE wins over SVC_ADMIN_TOKEN', async () => {
    const fromFile = await server.app.inject({
      method: 'GET',
      url: '/v1/ledger?limit=1',
      headers: bearer(FILE_TOKEN),
    });
    expect(fromFile.statusCode).toBe(200);
    const fromEnv = await server.app.inject({
      method: 'GET',
      url: '/v1/ledger?limit=1',
      headers: bearer(ADMIN_TOKEN),
    });
    expect(fromEnv.statusCode).toBe(401);
    expect(fromEnv.json()).toMatchObject({ error: 'bad_token' });
  });
});

describe('identity: the generated admin token', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-admin-token-'));
    writeFileSync(join(dir, 'machine-id'), `${TEST_MACHINE_ID}\n`);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is generated into SVC_DATA/admin-token (0600) when SVC_ADMIN_TOKEN is unset, works, and is reused on restart', async () => {
    const first = await buildTestServer({ dir, env: { SVC_ADMIN_TOKEN: '' } });
    const file = join(first.runtime.config.dataDir, 'admin-token');
    let token: string;
    let key: string;
    let fingerprint: string | null;
    try {
      expect(modeOf(file)).toBe(0o600);
      token = readFileSync(file, 'utf8').trim();
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(token).not.toBe(ADMIN_TOKEN);
      expect(first.adminToken.reveal()).toBe(token);
      expect(
        (
          await first.app.inject({
            method: 'GET',
            url: '/v1/ledger?limit=1',
            headers: bearer(token),
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await first.app.inject({
            method: 'GET',
            url: '/v1/ledger?limit=1',
            headers: bearer(ADMIN_TOKEN),
          })
        ).statusCode,
      ).toBe(401);
      key = readFileSync(join(first.runtime.config.dataDir, INSTALL_KEY_FILE), 'utf8');
      fingerprint = (
        await first.app.inject({ method: 'GET', url: '/v1/status' })
      ).json<StatusBody>().fingerprint;
    } finally {
      await first.stop();
    }

    const second = await buildTestServer({ dir, env: { SVC_ADMIN_TOKEN: '' } });
    try {
      expect(readFileSync(file, 'utf8').trim()).toBe(token);
      expect(second.adminToken.reveal()).toBe(token);
      expect(
        (
          await second.app.inject({
            method: 'GET',
            url: '/v1/ledger?limit=1',
            headers: bearer(token),
          })
        ).statusCode,
      ).toBe(200);
      // The install key and the fingerprint survive the restart too.
      expect(readFileSync(join(second.runtime.config.dataDir, INSTALL_KEY_FILE), 'utf8')).toBe(key);
      expect(
        (await second.app.inject({ method: 'GET', url: '/v1/status' })).json<StatusBody>()
          .fingerprint,
      ).toBe(fingerprint);
      expect(modeOf(join(second.runtime.config.dataDir, INSTALL_KEY_FILE))).toBe(0o600);
    } finally {
      await second.stop();
    }
  });
});

describe('doctor: data volume check (unit)', () => {
  const GiB = 2 ** 30;
  const at = (share: number) =>
    dataVolumeCheck('/srv/data', async (dir) => {
      expect(dir).toBe('/srv/data');
      return { free: Math.round(share * 100 * GiB), total: 100 * GiB };
    });

  it('50% free is ok', async () => {
    expect(await at(0.5).run()).toStrictEqual({
      status: 'ok',
      detail: '50.0% free (50.0 GiB of 100.0 GiB) on /srv/data',
      hint: '',
    });
  });

  it('10% free is a warning', async () => {
    const r = await at(0.1).run();
    expect(r.status).toBe('warn');
    expect(r.detail).toBe('10.0% free (10.0 GiB of 100.0 GiB) on /srv/data');
    expect(r.hint).toContain('15%');
  });

  it('3% free fails', async () => {
    const r = await at(0.03).run();
    expect(r.status).toBe('fail');
    expect(r.detail).toContain('3.0% free');
    expect(r.hint).not.toBe('');
  });

  it('the edges: 15% is ok, just under is a warning; 5% is a warning, just under fails', async () => {
    expect(FREE_WARN).toBe(0.15);
    expect(FREE_FAIL).toBe(0.05);
    expect((await at(0.15).run()).status).toBe('ok');
    expect((await at(0.1499).run()).status).toBe('warn');
    expect((await at(0.05).run()).status).toBe('warn');
    expect((await at(0.0499).run()).status).toBe('fail');
  });

  it('a volume that reports no size fails', async () => {
    const r = await dataVolumeCheck('/x', async () => ({ free: 0, total: 0 })).run();
    expect(r.status).toBe('fail');
  });

  it('names the check', () => {
    const c = at(0.5);
    expect([c.area, c.name]).toEqual(['Storage', 'data volume']);
  });
});

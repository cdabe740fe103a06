// svc-core checks run, in process, on a real data folder (made by a test server, then
// stopped) with the real packs; the connectors answer from recorded replies, so what is
// tested is the command: resolving alerts to services, grouping, printing, exit codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import type { ConnectorsService } from '../connectors/index.js';
import { loadSourcePacks } from '../testing/investigate/fixtures/source-packs.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { buildTestServer, type TestServer } from '../testing/test-server.js';
import { checksCommand, findingLine, parseAlertArg } from './checks.js';

let s: TestServer;

beforeAll(async () => {
  s = await buildTestServer();
  await s.stop();
}, 30_000);
afterAll(async () => {
  await s.cleanup();
});

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

function fakeConnectors(): ConnectorsService {
  const connectors = [
    { name: 'prom', kind: 'prometheus', settings: { url: 'http://127.0.0.1:9' } },
    { name: 'deploys', kind: 'git', settings: { path: '/srv/deploy' } },
  ];
  const fake = {
    list: () => ({ connectors, file: null }),
    call: (name: string, op: string, args: Record<string, unknown>) => {
      if (name === 'deploys' && op === 'changes')
        return Promise.resolve([
          {
            commit: COMMIT,
            author: 'a <a@x>',
            at: '2026-03-02T09:50:00.000Z',
            subject: 'raise pool',
            files: [{ path: 'config.json', status: 'modified' }],
            service: 'app',
          },
        ]);
      if (name === 'prom' && op === 'query') {
        const q = String(args['query']);
        return Promise.resolve(
          q.includes('probe_success') ? [{ metric: {}, value: 0, at: 'x' }] : [],
        );
      }
      return Promise.reject(new Error(`connector ${name}: no operation ${op}`));
    },
    close: () => Promise.resolve(),
  };
  return fake as unknown as ConnectorsService;
}

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = checksCommand(argv, {
    out: { log: (l) => out.push(l), error: (l) => err.push(l) },
    config: () => loadConfig(s.env, { version: 'test' }),
    runtime: (cfg) => createRuntime(cfg, { log: createLogger('silent'), mustExist: true }),
    connectorsOf: fakeConnectors,
    packs: () => loadSourcePacks(),
  });
  return code.then((c) => ({ code: c, out, err }));
}

describe('svc-core checks run', () => {
  it('reads ALERT@SERVICE', () => {
    expect(parseAlertArg('LabAppDown@app')).toEqual({ alert: 'LabAppDown', service: 'app' });
    expect(parseAlertArg('LabAppDown')).toEqual({ alert: 'LabAppDown', service: null });
    expect(parseAlertArg('X@')).toEqual({ alert: 'X', service: null });
  });

  it('refuses bad usage with exit 2', async () => {
    for (const argv of [[], ['run'], ['walk', 'X'], ['run', '@app'], ['run', 'X', '--nope']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.join('\n')).toMatch(/checks run ALERT\[@SERVICE\]/);
    }
  });

  it('exits 1 when the estate names no service for an alert', async () => {
    const r = await run(['run', 'LabAppDown']);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      'LabAppDown: the estate names no service for it; say LabAppDown@SERVICE (services: none yet)',
    ]);
  });

  it('diagnoses the alerts of one service together and prints findings and hypotheses', async () => {
    const r = await run(['run', 'LabAppDown@app', 'LabAppErrors@app']);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe('app (LabAppDown, LabAppErrors): packs change, config, host');
    expect(r.out).toContain(
      '  unread  app: host.services.unreadable: no ssh connector reaches app',
    );
    expect(
      r.out.some((l) =>
        l.startsWith(
          '  finding app: change.recent.touches_service [deploys]: commit 0123456789abcdef',
        ),
      ),
    ).toBe(true);
    expect(r.out).toContain('hypotheses, best first:');
    // A deploy of the app by timing alone, with no error naming what it changed: suspected.
    expect(r.out.find((l) => l.includes('bad_deploy(app)'))).toBe(
      '  suspected bad_deploy(app): a recent deploy broke app; supporting change.recent.touches_service, change.health.unhealthy; fixes revert_deploy',
    );
    // Nothing proven: no fix is offered.
    expect(r.out.find((l) => l.startsWith('fix '))).toBeUndefined();
  });

  it('answers JSON with --json', async () => {
    const r = await run(['run', 'LabSiteDown@nginx', '--json']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out.join('\n')) as {
      investigations: {
        service: string;
        alerts: string[];
        packs: string[];
        findings: unknown[];
        hypotheses: { cause: string }[];
      }[];
    };
    expect(body.investigations).toHaveLength(1);
    expect(body.investigations[0]).toMatchObject({
      service: 'nginx',
      alerts: ['LabSiteDown'],
      packs: ['change', 'config', 'host', 'http', 'nginx'],
    });
    expect(body.investigations[0]?.findings.length).toBeGreaterThan(0);
  });

  it('prints an unread finding so a person sees why', () => {
    expect(
      findingLine({
        id: 'a.b.unreadable',
        check: 'a.b',
        connector: '',
        call: 'x {}',
        service: 'db',
        says: 'no ssh connector reaches db',
        values: {},
        excerpt: '',
        at: 'now',
        readable: false,
      }),
    ).toBe('  unread  db: a.b.unreadable: no ssh connector reaches db');
  });
});

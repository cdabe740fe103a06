// The executor against a real host: Debian's sshd (e2e/lab/sshd.ts) running the real gate
// (build/gate/svc-gate) with a lab-style unit and a cache, the ssh connector kind, a real
// ledger, and the real policy functions. What happened is read on the host: the gate's log,
// the unit's process, the cache folder.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSshd, type Sshd } from '../../e2e/lab/sshd.js';
import { createKeypair, sshKind, type ConnectorClient } from '../connectors/index.js';
import { changeWindowNow, checkPolicy, fixPermission, type PolicyInput } from '../policy/index.js';
import { systemClock } from '../shared/clock.js';
import { Secret } from '../shared/secret.js';
import { openLedgerBench, type LedgerBench } from '../testing/ledger-bench.js';
import { loadSourcePacks } from '../testing/investigate/fixtures/source-packs.js';
import { createActions } from './act.service.js';
import type { ActionPlan, Finding, PackFix } from './act.types.js';

const GATE = fileURLToPath(new URL('../../build/gate/svc-gate', import.meta.url));
const EPISODE = 'ep-20261122T100000Z-0a1b2c';

let dir: string;
let sshd: Sshd;
let client: ConnectorClient;
let bench: LedgerBench;

const GOOD_CONF = 'pool_size = 5\ndb_password = hunter2\n';
const BAD_CONF = 'pool_size = 500\ndb_password = swordfish\n';

const gateLog = () =>
  existsSync(join(dir, 'gate.log')) ? readFileSync(join(dir, 'gate.log'), 'utf8') : '';
const appPid = (): number | null => {
  const file = join(dir, 'app.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
};
const stopApp = () => {
  const pid = appPid();
  if (pid !== null) process.kill(pid, 'SIGKILL');
  rmSync(join(dir, 'app.pid'), { force: true });
};
const fillCache = () => {
  mkdirSync(join(dir, 'cache'), { recursive: true });
  writeFileSync(join(dir, 'cache', 'entry'), 'x');
};
const cacheFull = () => existsSync(join(dir, 'cache', 'entry'));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-act-int-'));
  fillCache();
  writeFileSync(join(dir, 'app.conf'), GOOD_CONF);
  writeFileSync(
    join(dir, 'gate.conf'),
    [
      `log=${join(dir, 'gate.log')}`,
      'allow=restart app',
      'allow=clear_cache tmp',
      'allow=restore app',
      `store=${join(dir, 'store')}`,
      `file.app=${join(dir, 'app.conf')}`,
      `cache.tmp=${join(dir, 'cache')}`,
      `unit.app.pidfile=${join(dir, 'app.pid')}`,
      `unit.app.start=sleep 300 >/dev/null 2>&1 & echo $! >${join(dir, 'app.pid')}`,
      '',
    ].join('\n'),
  );
  const pair = createKeypair(join(dir, 'secrets'), { name: 'act', gate_path: GATE });
  sshd = await startSshd({
    authorizedKeys: `${pair.authorized_keys}\n`,
    env: { SVC_GATE_CONF: join(dir, 'gate.conf') },
  });
  client = sshKind.create({
    host: sshd.host,
    port: sshd.port,
    user: 'root',
    private_key: new Secret(readFileSync(pair.private_key.file, 'utf8')),
    host_key: sshd.hostKey,
  });
  bench = openLedgerBench(join(dir, 'svc.db'), systemClock);
}, 30_000);

afterAll(async () => {
  stopApp();
  await sshd.stop();
  await bench.writer.close();
  bench.db.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  stopApp();
  fillCache();
});

/** The engine's part, played by a check of our own: the unit's state read through the gate. */
async function recheck(checkIds: readonly string[]): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const check of checkIds) {
    if (check !== 'test.services') continue;
    const s = (await client.call('services', {}, AbortSignal.timeout(20_000))) as {
      units: { name: string; state: string }[];
    };
    const app = s.units.find((u) => u.name === 'app');
    const rule = app?.state === 'running' ? 'app_running' : 'app_down';
    out.push({
      id: `test.services.${rule}`,
      check,
      connector: 'ssh-test',
      call: 'services {}',
      service: 'app',
      says: `app is ${app?.state ?? 'missing'}`,
      values: { state: app?.state ?? null },
      excerpt: JSON.stringify(s).slice(0, 1000),
      at: new Date().toISOString(),
      readable: true,
    });
  }
  return out;
}

const RESTART: PackFix = {
  id: 'restart_unit',
  title: 'Restart {service}',
  risk: 'low',
  connector: 'ssh',
  kind: 'fix',
  dry_run: { op: 'dry_run', args: { action: 'restart', arg: '{service}' } },
  action: { op: 'restart', args: { unit: '{service}' } },
  verify: { expect: ['test.services.app_running'], expect_absent: ['test.services.app_down'], within_s: 5, alert_ends_within_s: 0 }, // prettier-ignore
  take_back: null,
};

/** Clears the cache; its verification cannot pass; its take-back restarts the unit. */
const CLEAR_NEVER_VERIFIED: PackFix = {
  id: 'clear_cache',
  title: 'Clear the cache',
  risk: 'low',
  connector: 'ssh',
  kind: 'fix',
  dry_run: { op: 'dry_run', args: { action: 'clear_cache', arg: 'tmp' } },
  action: { op: 'clear_cache', args: { name: 'tmp' } },
  verify: { expect: ['test.services.never_read'], expect_absent: [], within_s: 1, alert_ends_within_s: 0 }, // prettier-ignore
  take_back: { op: 'restart', args: { unit: '{service}' } },
};

const plan = (fix: PackFix, request_id: string | null = null): ActionPlan => ({
  episode_id: EPISODE,
  service: 'app',
  pack: 'test',
  fix,
  connector: 'ssh-test',
  vars: { service: 'app' },
  request_id,
});

function actions(opts: { halted?: boolean; policy?: PolicyInput } = {}) {
  const policy = checkPolicy(opts.policy ?? {});
  const calls: string[] = [];
  const a = createActions({
    call: (connector, op, args) => {
      calls.push(`${connector} ${op}`);
      return client.call(op, args, AbortSignal.timeout(20_000));
    },
    ledger: bench.ledger,
    writer: bench.writer,
    clock: systemClock,
    halted: () => opts.halted ?? false,
    policyNow: (service, fix) => ({
      changeWindow: changeWindowNow(policy, service, systemClock.nowIso()),
      permission: fixPermission(policy, service, fix),
    }),
    recheck,
    alertEnded: () => true,
    verifyEveryMs: 300,
  });
  return { a, calls };
}

function eventsSince(seq: number) {
  return bench.ledgerStore
    .range(seq, bench.ledgerStore.head().seq, 100)
    .map((e) => ({ type: e.type, trace_id: e.trace_id, data: JSON.parse(e.data) as Record<string, unknown> })); // prettier-ignore
}

describe('the executor on a real host through the gate', () => {
  it('dry-runs through the gate: allowed, or refused with why, and nothing changes', async () => {
    const { a } = actions();
    expect(await a.dryRun(plan(RESTART))).toEqual({
      ok: true,
      detail: 'would restart app: allowed',
      call: 'dry_run {"action":"restart","arg":"app"}',
    });
    const refused = await a.dryRun(
      plan({ ...RESTART, dry_run: { op: 'dry_run', args: { action: 'reload', arg: 'app' } } }),
    );
    expect(refused).toMatchObject({
      ok: false,
      detail: 'refused by the gate: reload app is not allowed on this host',
    });
    expect(appPid()).toBeNull();
    expect(gateLog()).not.toMatch(/action: /);
  });

  it('runs an allowed fix and verifies it by reading the host again', async () => {
    const { a } = actions();
    const from = bench.ledgerStore.head().seq;
    const out = await a.execute(plan(RESTART, 'ap-1'));
    expect(out).toMatchObject({ result: 'verified', findings: ['test.services.app_running'] });
    expect(appPid()).not.toBeNull();
    expect(gateLog()).toMatch(/action done: restart app/);
    const ev = eventsSince(from);
    expect(ev.map((e) => e.type)).toEqual(['action.started', 'action.done', 'action.verified']);
    expect(ev.every((e) => e.trace_id === EPISODE)).toBe(true);
    expect(ev[0]?.data).toMatchObject({ request_id: 'ap-1', call: 'restart {"unit":"app"}' });
  });

  it('halt refuses an approved execute: nothing runs on the host', async () => {
    const { a, calls } = actions({ halted: true });
    const before = gateLog();
    const from = bench.ledgerStore.head().seq;
    const out = await a.execute(plan(RESTART, 'ap-approved'));
    expect(out).toMatchObject({ result: 'refused_halt', detail: 'actions are halted' });
    expect(calls).toEqual([]);
    expect(gateLog()).toBe(before);
    expect(appPid()).toBeNull();
    expect(eventsSince(from)).toEqual([
      {
        type: 'action.refused',
        trace_id: EPISODE,
        data: expect.objectContaining({ why: 'halted', request_id: 'ap-approved' }) as unknown,
      },
    ]);
  });

  it('a failed verification takes the fix back on the host', async () => {
    const { a, calls } = actions();
    const before = gateLog();
    const from = bench.ledgerStore.head().seq;
    const out = await a.execute(plan(CLEAR_NEVER_VERIFIED));
    expect(out.result).toBe('taken_back');
    expect(out.detail).toMatch(/^not verified: after 1 s, not read: test\.services\.never_read; taken back \(restart \{"unit":"app"\}\)$/); // prettier-ignore
    expect(calls).toEqual(['ssh-test clear_cache', 'ssh-test restart']);
    // On the host: the cache was cleared, then the take-back started the unit.
    expect(cacheFull()).toBe(false);
    expect(appPid()).not.toBeNull();
    const added = gateLog().slice(before.length);
    expect(added).toMatch(/action done: clear_cache tmp[\s\S]*action done: restart app/);
    expect(eventsSince(from).map((e) => e.type)).toEqual([
      'action.started',
      'action.done',
      'action.verify_failed',
      'action.taken_back',
    ]);
  });

  it('a change window refuses with its name and end; the policy refuses a fix no rule names', async () => {
    const now = Date.now();
    const frozen = actions({
      policy: {
        change_windows: [
          {
            name: 'release-freeze',
            services: ['app'],
            mode: 'freeze',
            starts: new Date(now - 60_000).toISOString(),
            ends: '2099-01-01T00:00:00Z',
          },
        ],
      },
    });
    const before = gateLog();
    const from = bench.ledgerStore.head().seq;
    expect(await frozen.a.execute(plan(RESTART))).toEqual({
      result: 'refused_change',
      detail: 'change window release-freeze forbids actions on app until 2099-01-01T00:00:00.000Z',
      findings: [],
    });
    const ruled = actions({
      policy: { actions: { rules: [{ services: ['*'], fixes: ['clear_*'], max_risk: 'low', safe: true }] } },
    }); // prettier-ignore
    expect(await ruled.a.execute(plan(RESTART))).toMatchObject({
      result: 'refused_policy',
      detail: 'no action rule names fix restart_unit on service app',
    });
    expect([...frozen.calls, ...ruled.calls]).toEqual([]);
    expect(gateLog()).toBe(before);
    expect(appPid()).toBeNull();
    expect(eventsSince(from).map((e) => [e.type, e.data['why']])).toEqual([
      ['action.refused', 'change_window'],
      ['action.refused', 'policy'],
    ]);
  });

  it("restores a changed file with the config pack's fix: dry run shows the masked diff, take-back puts the change back", async () => {
    const fix = loadSourcePacks()
      .find((p) => p.id === 'config')
      ?.fixes.find((f) => f.id === 'restore_config');
    if (fix === undefined) throw new Error('no config/restore_config');
    const signal = () => AbortSignal.timeout(20_000);
    await client.call('setup', {}, signal());
    writeFileSync(join(dir, 'app.conf'), BAD_CONF);
    // What the config pack reads first: the previous and current versions of the file.
    const read = (await client.call('config_changes', { unit: 'app' }, signal())) as {
      files: { current: string; previous: string }[];
    };
    const [file] = read.files;
    if (file === undefined) throw new Error('no watched file');
    const restore: ActionPlan = {
      ...plan({
        ...fix,
        // No Prometheus here: verification cannot pass, so the take-back runs.
        verify: { expect: ['test.services.never_read'], expect_absent: [], within_s: 1, alert_ends_within_s: 0 }, // prettier-ignore
      }),
      pack: 'config',
      vars: {
        service: 'app',
        'config.changes.previous': file.previous,
        'config.changes.current': file.current,
      },
    };
    const { a, calls } = actions();
    const from = bench.ledgerStore.head().seq;
    const dry = await a.dryRun(restore);
    expect(dry).toMatchObject({ ok: true, call: 'dry_run {"action":"restore","arg":"app"}' });
    // The ledger keeps the dry run's output on one line: the diff's lines joined by spaces.
    expect(dry.detail).toMatch(/^would restore app: allowed file \S+app\.conf to [0-9a-f]{64} /);
    expect(dry.detail).toContain('-pool_size = 500 +pool_size = 5');
    expect(readFileSync(join(dir, 'app.conf'), 'utf8')).toBe(BAD_CONF);
    const out = await a.execute(restore);
    expect(out.result).toBe('taken_back');
    expect(calls).toEqual(['ssh-test dry_run', 'ssh-test restore', 'ssh-test restore']);
    // Restored, then taken back: the host has the changed version again, as before the fix.
    expect(readFileSync(join(dir, 'app.conf'), 'utf8')).toBe(BAD_CONF);
    expect(gateLog()).toContain(`action done: restore app ${file.previous}`);
    expect(gateLog()).toContain(`action done: restore app ${file.current}`);
    const ev = eventsSince(from);
    expect(ev.map((e) => e.type)).toEqual([
      'action.dry_run',
      'action.started',
      'action.done',
      'action.verify_failed',
      'action.taken_back',
    ]);
    expect(JSON.stringify(ev)).not.toMatch(/hunter2|swordfish/);
  });

  it('shadow changes nothing on the host: only read-only checks reach it', async () => {
    const { a, calls } = actions();
    const before = gateLog();
    const from = bench.ledgerStore.head().seq;
    // The diagnosis reads the host (read-only checks are not actions: the gate logs none) …
    expect((await recheck(['test.services']))[0]?.id).toBe('test.services.app_down');
    // … and shadow records the would-be action without calling anything.
    await a.shadow(plan(CLEAR_NEVER_VERIFIED), 'act');
    expect(calls).toEqual([]);
    expect(gateLog()).toBe(before);
    expect(cacheFull()).toBe(true);
    expect(appPid()).toBeNull();
    expect(eventsSince(from)).toEqual([
      {
        type: 'action.shadow',
        trace_id: EPISODE,
        data: expect.objectContaining({ call: 'clear_cache {"name":"tmp"}', would: 'act', connector: 'ssh-test' }) as unknown,
      },
    ]); // prettier-ignore
  });
});

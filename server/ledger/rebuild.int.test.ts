// `svc-core rebuild` on the data folder of a server that ran: projections rebuilt from the
// ledger alone equal the live ones, a corrupted projection is found and fixed, and the
// rebuild refuses while a server holds the folder. Needs dist/ (node build/bundle.mjs).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { asIngest, buildTestServer, testEnv, type TestServer } from '../testing/test-server.js';
import { dumpProjections, type ProjectionDump } from './rebuild.js';
import { requireBundle, runCli } from '../testing/processes.js';
import { tamper, tamperIndex } from '../testing/tamper.js';

requireBundle();

function dump(dir: string): { dump: ProjectionDump; head: number } {
  const rt = createRuntime(loadConfig(testEnv(dir, join(dir, 'machine-id'))), {
    log: createLogger('silent'),
    mustExist: true,
  });
  try {
    return { dump: dumpProjections(rt.db, rt.projections), head: rt.ledgerStore.head().seq };
  } finally {
    rt.close();
  }
}

describe('svc-core rebuild', () => {
  let first: TestServer;
  let dir: string;
  let original: ProjectionDump;
  let head: number;

  beforeAll(async () => {
    first = await buildTestServer();
    dir = first.dir;
    await first.app.listen({ port: 0, host: '127.0.0.1' });
    const address = first.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`http://127.0.0.1:${String(address.port)}/v1/events`, {
        method: 'POST',
        headers: { ...asIngest(), 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'human.deploy', actor: 'ci:web', data: { i } }),
      });
      expect(res.status).toBe(201);
    }
    // Signals too: a firing alert and the resolve of another, so the signals table has rows.
    for (const [fp, status] of [
      ['rb-1', 'firing'],
      ['rb-2', 'firing'],
      ['rb-2', 'resolved'],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${String(address.port)}/v1/alerts/alertmanager`, {
        method: 'POST',
        headers: { ...asIngest(), 'content-type': 'application/json' },
        body: JSON.stringify({
          version: '4',
          groupKey: 'g',
          status,
          alerts: [
            {
              status,
              fingerprint: fp,
              labels: { alertname: 'DiskFull', instance: 'db-1', job: 'postgres' },
              annotations: { summary: 'disk' },
              startsAt: '2026-11-22T10:00:00Z',
              endsAt: status === 'resolved' ? '2026-11-22T10:05:00Z' : '0001-01-01T00:00:00Z',
            },
          ],
        }),
      });
      expect(res.status).toBe(202);
    }
    await first.stop();
    const second = await buildTestServer({ dir }); // a second start: starts = 2
    await second.stop();
    ({ dump: original, head } = dump(dir));
  });
  afterAll(async () => {
    await first.cleanup();
  });

  it('the live projections are what the server wrote', () => {
    // installed, started, trial, 3 events, 3 signal events, 2 episode events, 1 incident
    // event, stopped, started, stopped
    expect(head).toBe(15);
    expect(Object.keys(original)).toEqual([
      'install_state',
      'licence_state',
      'licence_current',
      'licence_serials',
      'trial_history',
      'licence_trust',
      'licence_check',
      'trial_redeemed',
      'licence_vouched',
      'licence_service_days',
      'licence_pins',
      'licence_usage_state',
      'licence_requests',
      'licence_install_removals',
      'signals',
      'episode_signals',
      'episodes',
      'episodes_fts',
      'impact_figures',
      'learning_labels',
      'learning_demotions',
      'learned_patterns',
      'lookback_reports',
      'study_runs',
      'study_services',
      'study_relations',
      'incidents',
      'policy_state',
      'branding_state',
      'connectors',
      'estate_services',
      'estate_links',
      'estate_connectors',
      'estate_overrides',
      'estate_observations',
      'estate_suggestions',
      'snapshot_facts',
      'snapshot_changes',
      'people',
      'teams',
      'team_members',
      'access_settings',
      'sso_settings',
      'investigations',
      'approval_requests',
      'approval_links',
      'autonomy_levels',
      'autonomy_state',
      'keychain_state',
      'keychain_members',
      'keychain_log',
      'keychain_site_keys',
      'keychain_parts',
      'keychain_sealed',
    ]);
    expect(original['episodes']).toEqual([
      expect.objectContaining({
        service: 'postgres',
        status: 'open',
        alerts: '["DiskFull"]',
        firing: 1,
      }),
    ]);
    // The full-text index of the episodes holds exactly their rows.
    expect(original['episodes_fts']).toEqual([{ consistent: true }]);
    expect(original['signals']).toEqual([
      expect.objectContaining({
        fingerprint: 'rb-1',
        status: 'firing',
        service: 'postgres',
        fired: 1,
      }),
      expect.objectContaining({
        fingerprint: 'rb-2',
        status: 'resolved',
        ended_at: '2026-11-22T10:05:00.000Z',
      }),
    ]);
    expect(original['install_state']).toEqual([
      expect.objectContaining({ id: 1, instance: 'test', starts: 2, last_version: '0.1.0' }),
    ]);
    expect(original['licence_state']).toEqual([
      expect.objectContaining({
        id: 1,
        kind: 'trial',
        tier: 'trial',
        services: 50,
        install_limit: 10,
        grace_days: 14,
      }),
    ]);
  });

  it('rebuild --check says the rebuilt state equals the live one', async () => {
    const r = await runCli(testEnv(dir, join(dir, 'machine-id')), ['rebuild', '--check']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `check: replayed ${String(head)} events into install_state, licence_state, licence_current, licence_serials, trial_history, licence_trust, licence_check, trial_redeemed, licence_vouched, licence_service_days, licence_pins, licence_usage_state, licence_requests, licence_install_removals, signals, episode_signals, episodes, episodes_fts, impact_figures, learning_labels, learning_demotions, learned_patterns, lookback_reports, study_runs, study_services, study_relations, incidents, policy_state, branding_state, connectors, estate_services, estate_links, estate_connectors, estate_overrides, estate_observations, estate_suggestions, snapshot_facts, snapshot_changes, people, teams, team_members, access_settings, sso_settings, investigations, approval_requests, approval_links, autonomy_levels, autonomy_state, keychain_state, keychain_members, keychain_log, keychain_site_keys, keychain_parts, keychain_sealed; rebuilt state equals the live one (nothing changed)\n`,
    );
    expect(dump(dir).dump).toEqual(original);
  });

  it('a corrupted projection row: --check exits 1 naming the table and changes nothing; rebuild fixes it', async () => {
    tamper(join(dir, 'data', 'svc.db'), 'licence_state', { services: 1 });

    const check = await runCli(testEnv(dir, join(dir, 'machine-id')), ['rebuild', '--check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(
      `check: replayed ${String(head)} events into install_state, licence_state, licence_current, licence_serials, trial_history, licence_trust, licence_check, trial_redeemed, licence_vouched, licence_service_days, licence_pins, licence_usage_state, licence_requests, licence_install_removals, signals, episode_signals, episodes, episodes_fts, impact_figures, learning_labels, learning_demotions, learned_patterns, lookback_reports, study_runs, study_services, study_relations, incidents, policy_state, branding_state, connectors, estate_services, estate_links, estate_connectors, estate_overrides, estate_observations, estate_suggestions, snapshot_facts, snapshot_changes, people, teams, team_members, access_settings, sso_settings, investigations, approval_requests, approval_links, autonomy_levels, autonomy_state, keychain_state, keychain_members, keychain_log, keychain_site_keys, keychain_parts, keychain_sealed; differs in licence_state (nothing changed)\n`,
    );
    expect(dump(dir).dump['licence_state']).toEqual([expect.objectContaining({ services: 1 })]);

    const fix = await runCli(testEnv(dir, join(dir, 'machine-id')), ['rebuild']);
    expect(fix.stderr).toBe('');
    expect(fix.code).toBe(0);
    expect(fix.stdout).toBe(
      `rebuild: replayed ${String(head)} events into install_state, licence_state, licence_current, licence_serials, trial_history, licence_trust, licence_check, trial_redeemed, licence_vouched, licence_service_days, licence_pins, licence_usage_state, licence_requests, licence_install_removals, signals, episode_signals, episodes, episodes_fts, impact_figures, learning_labels, learning_demotions, learned_patterns, lookback_reports, study_runs, study_services, study_relations, incidents, policy_state, branding_state, connectors, estate_services, estate_links, estate_connectors, estate_overrides, estate_observations, estate_suggestions, snapshot_facts, snapshot_changes, people, teams, team_members, access_settings, sso_settings, investigations, approval_requests, approval_links, autonomy_levels, autonomy_state, keychain_state, keychain_members, keychain_log, keychain_site_keys, keychain_parts, keychain_sealed; differs in licence_state\n`,
    );
    const after = dump(dir);
    expect(after.dump).toEqual(original);
    expect(after.head).toBe(head); // the ledger itself is never written by a rebuild

    const again = await runCli(testEnv(dir, join(dir, 'machine-id')), ['rebuild', '--check']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('rebuilt state equals the live one');
  });

  it('a full-text index that lost track of a row: --check names it; rebuild refills it', async () => {
    const env = testEnv(dir, join(dir, 'machine-id'));
    tamperIndex(join(dir, 'data', 'svc.db'), 'episodes_fts', 1);
    expect(dump(dir).dump['episodes_fts']).toEqual([
      { consistent: false, code: 'SQLITE_CORRUPT_VTAB' },
    ]);

    const check = await runCli(env, ['rebuild', '--check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('; differs in episodes_fts (nothing changed)\n');

    const fix = await runCli(env, ['rebuild']);
    expect(fix.stderr).toBe('');
    expect(fix.code).toBe(0);
    expect(fix.stdout).toContain('; differs in episodes_fts\n');
    expect(dump(dir).dump).toEqual(original);
    expect((await runCli(env, ['rebuild', '--check'])).code).toBe(0);
  });

  it('refuses while a server holds the data folder', async () => {
    const running = await buildTestServer({ dir });
    try {
      for (const args of [['rebuild'], ['rebuild', '--check']]) {
        const r = await runCli(testEnv(dir, join(dir, 'machine-id')), args);
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          `svc-core: the data folder ${join(dir, 'data')} is in use by process ${String(process.pid)}; stop it first\n`,
        );
      }
    } finally {
      await running.stop();
    }
    // The refused rebuild took nothing: the server's own lock was released normally.
    const r = await runCli(testEnv(dir, join(dir, 'machine-id')), ['rebuild', '--check']);
    expect(r.code).toBe(0);
  });
});

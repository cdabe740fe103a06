// The config pack (build/packs/src/config.json) with the engine and every real pack, on the
// lab's recorded answers (fixtures/lab.json) with the gate's config_changes answer and the
// Prometheus readings changed per case. A configuration change is suspected by its timing
// alone and proven only by its mechanism: the failing unit's errors name what changed. A
// service that stayed healthy after the change, or is healthy now, disputes it; a check
// that cannot be read proves nothing.
import { describe, expect, it } from 'vitest';
import type { ConfigChanges } from '../connectors/index.js';
import { fillText, lookupIn } from '../packs/index.js';
import { createFakeClock } from '../shared/clock.js';
import { createEngine } from './engine.js';
import { healthyExtra, lab, packs } from '../testing/investigate/recorded.js';

const OLD = 'a'.repeat(64);
const NEW = 'b'.repeat(64);
const DIFF = [
  '--- /tmp/svc-lab/app/live/config.json (aaaaaaaaaaaa)',
  '+++ /tmp/svc-lab/app/live/config.json (bbbbbbbbbbbb)',
  '@@ -1,3 +1,3 @@',
  '-  "db_port": 5432,',
  '+  "db_port": 5999,',
  '   "db_password": ***',
].join('\n');

/** The gate's answer for a unit whose one watched file changed two minutes ago. */
function changed(unit: string, path: string, named: boolean | null): ConfigChanges {
  return {
    unit,
    files: [
      {
        path,
        current: NEW,
        previous: OLD,
        changed_at: '2026-03-02T09:58:00.000Z',
        age_s: 120,
        changed_recently: true,
        named_in_errors: named,
        diff: DIFF,
        summary: '-  "db_port": 5432, | +  "db_port": 5999,',
      },
    ],
    changed: 1,
    named: named === true ? 1 : 0,
    unknown: 0,
    quiet_offset_s: 1,
    change_offset_s: 120,
  };
}

const health = (value: number) => [{ metric: {}, value, at: lab.now }];
const down = (service: string) => ({
  [`prometheus probe_success+pg_up+nginx_up+up@${service}`]: health(0),
});
const unreadable = { $error: 'prometheus at http://127.0.1.4:9090: connection timed out' };

/**
 * The lab's answers keyed as lab-faults.test.ts keys them, with no deploy in the last hour
 * (so the change pack's bad_deploy stays out of these cases); the 10 minutes after a change
 * (config.settled, a min_over_time query) and the 10 minutes before it (config.before, a
 * max_over_time query) are filed apart as `prometheus settled@<service>` and
 * `prometheus before@<service>`, and are empty (no reading) unless a case sets them.
 */
function engineFor(answers: Record<string, unknown>) {
  const all: Record<string, unknown> = {
    ...lab.answers,
    ...healthyExtra,
    'deploys changes': [],
    ...answers,
  };
  const call = (connector: string, op: string, args: Readonly<Record<string, unknown>>) => {
    let key = `${connector} ${op}`;
    if (op === 'query') {
      const query = String(args['query']);
      const service = /service=~?"([^"]*)"/.exec(query)?.[1] ?? '';
      const metrics = [
        ...new Set([...query.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\{/g)].map((m) => m[1])),
      ];
      key = query.includes('min_over_time')
        ? `prometheus settled@${service}`
        : query.includes('max_over_time')
          ? `prometheus before@${service}`
          : `${connector} ${metrics.join('+')}@${service}`;
      if (!Object.hasOwn(all, key) && /^prometheus (settled|before)@/.test(key))
        return Promise.resolve([]);
    }
    if (!Object.hasOwn(all, key)) return Promise.reject(new Error(`no recorded answer for ${key}`));
    const answer = all[key] as { $error?: string } | null;
    if (answer !== null && typeof answer === 'object' && typeof answer.$error === 'string')
      return Promise.reject(new Error(answer.$error));
    return Promise.resolve(structuredClone(answer));
  };
  return createEngine({
    packs: () => packs,
    estate: () => lab.estate,
    connectors: () => lab.connectors,
    call,
    clock: createFakeClock(lab.now),
  });
}

async function investigate(
  answers: Record<string, unknown>,
  service = 'app',
  alerts = ['LabAppErrors'],
) {
  return engineFor(answers).investigate({
    episode_id: 'ep-config',
    service,
    alerts,
    labels: { alertname: alerts[0] ?? '', service },
  });
}

const cause = (r: Awaited<ReturnType<typeof investigate>>, service: string) =>
  r.hypotheses.find((h) => h.cause === 'config_changed' && h.service === service);

const APP_CONFIG = '/tmp/svc-lab/app/live/config.json';
const DB_CONFIG = '/tmp/svc-lab/db/data/postgresql.auto.conf';

describe('config_changed: proof from mechanism, never from timing', () => {
  it("is proven when the failing unit's errors name what changed, with a restore fix", async () => {
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
      ...down('app'),
    });
    expect(cause(r, 'app')).toMatchObject({
      confidence: 'proven',
      pack: 'config',
      proving: ['config.changes.named_in_errors'],
      supporting: ['config.changes.changed_recently'],
      refuting: [],
      title: 'a configuration change broke app',
    });
    expect(r.hypotheses.filter((h) => h.confidence === 'proven').map((h) => h.cause)).toEqual([
      'config_changed',
    ]);
    const shown = r.findings.find((f) => f.id === 'config.changes.changed_recently');
    expect(shown?.says).toBe(
      `${APP_CONFIG} of app changed at 2026-03-02T09:58:00.000Z: -  "db_port": 5432, | +  "db_port": 5999,`,
    );
    const lead = r.hypotheses[0];
    if (lead === undefined) throw new Error('no hypothesis');
    const [fix] = r.fixes.forHypothesis(lead);
    expect(fix).toMatchObject({
      pack: 'config',
      connector: 'ssh-app',
      runnable: true,
      missing: [],
      fix: { id: 'restore_config', kind: 'restore', risk: 'medium' },
      dry_run: { op: 'dry_run', args: { action: 'restore', arg: 'app' } },
      action: { op: 'restore', args: { name: 'app', sha256: OLD } },
      take_back: { op: 'restore', args: { name: 'app', sha256: NEW } },
    });
    // No text a person reads is left with a placeholder.
    const title = fillText(fix?.fix.title ?? '', lookupIn({ service: 'app' }, {}));
    expect(title).toEqual({
      value: "Put back the previous version of app's changed configuration file",
      missing: [],
    });
    for (const f of r.findings.filter((x) => x.check.startsWith('config.')))
      expect(f.says, f.id).not.toMatch(/\{[a-z_.]+\}/);
  });

  it('yields to the deploy that wrote the change when the errors name what the deploy brought in', async () => {
    // A deploy rewrites the config file: the file changed, and the errors name it, but the
    // change is the deploy's. bad_deploy is proven; config_changed is disputed, not proven.
    const commit = {
      commit: 'c0ffee1234567890abcdef1234567890abcdef12',
      author: 'Lab Deployer <deploy@lab.invalid>',
      at: '2026-03-02T09:58:00.000Z',
      subject: 'shop: read pages from the shop_v2 database',
      files: [{ path: 'config.json', status: 'modified' }],
      service: 'app',
      services: ['app'],
    };
    const r = await investigate({
      'deploys changes': [commit],
      'deploys show': { ...commit, body: '', diffstat: ' config.json | 2 +-', added: ['shop_v2'] },
      // config.before's query answers host.healthy_at too (both max_over_time): healthy before.
      'prometheus before@app': health(1),
      'ssh-app journal': {
        unit: 'app',
        lines: ['database: database "shop_v2" does not exist'],
        recent: ['database: database "shop_v2" does not exist'],
        last: ['database: database "shop_v2" does not exist'],
        current: ['database: database "shop_v2" does not exist'],
      },
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
      ...down('app'),
    });
    const proven = r.hypotheses.filter((h) => h.confidence === 'proven');
    expect(proven.map((h) => `${h.cause}(${h.service})`)).toEqual(['bad_deploy(app)']);
    expect(cause(r, 'app')).toMatchObject({
      confidence: 'disputed',
      refuting: ['change.errors.names_change'],
    });
  });

  it('explains the refusals its edit causes: config_changed is proven, upstream_refused is not', async () => {
    // The database port edited by hand, off by one: the app's connections are refused, and
    // the refusals name the new port. The edit is the cause; the refusal is its effect.
    const refused = [
      '2026-03-02T09:59:50Z database: connect ECONNREFUSED 127.0.1.3:5433',
      '2026-03-02T09:59:58Z GET /: connect ECONNREFUSED 127.0.1.3:5433',
    ];
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
      'prometheus before@app': health(1),
      'ssh-app journal': {
        unit: 'app',
        lines: refused,
        recent: refused,
        last: refused,
        current: refused,
      },
      ...down('app'),
    });
    const proven = r.hypotheses.filter((h) => h.confidence === 'proven');
    expect(proven.map((h) => `${h.cause}(${h.service})`)).toEqual(['config_changed(app)']);
    const upstream = r.hypotheses.find((h) => h.cause === 'upstream_refused');
    expect(upstream?.confidence).toBe('disputed');
    expect(upstream?.refuting).toContain('config.changes.named_in_errors');
  });

  it('is only suspected when the change is timing alone (the errors do not name it)', async () => {
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, false),
      ...down('app'),
    });
    expect(cause(r, 'app')).toMatchObject({
      confidence: 'suspected',
      proving: [],
      supporting: ['config.changes.changed_recently'],
    });
  });

  it('is not proven for a harmless change beside an unrelated failure', async () => {
    const r = await investigate(
      {
        'ssh-app services': { units: [{ name: 'app', state: 'failed', pid: null }] },
        'ssh-app config_changes': changed('app', APP_CONFIG, false),
        ...down('app'),
      },
      'app',
      ['LabAppDown'],
    );
    expect(r.hypotheses[0]).toMatchObject({ cause: 'service_down', confidence: 'proven' });
    expect(cause(r, 'app')?.confidence).toBe('suspected');
    expect(r.hypotheses.filter((h) => h.confidence === 'proven').map((h) => h.cause)).toEqual([
      'service_down',
    ]);
  });

  it('is disputed when the service stayed healthy for 10 minutes after the change', async () => {
    const r = await investigate({
      'ssh-app config_changes': { ...changed('app', APP_CONFIG, true), quiet_offset_s: 1200 },
      ...down('app'),
      'prometheus settled@app': health(1),
    });
    expect(cause(r, 'app')).toMatchObject({
      confidence: 'disputed',
      refuting: ['config.settled.stayed_healthy'],
    });
    expect(r.findings.find((f) => f.check === 'config.settled')?.call).toContain('offset 1200s');
  });

  it('is disputed when the service was already failing throughout the 10 minutes before the change', async () => {
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
      ...down('app'),
      'prometheus before@app': health(0),
    });
    expect(cause(r, 'app')).toMatchObject({
      confidence: 'disputed',
      refuting: ['config.before.failing_before'],
    });
    expect(r.findings.find((f) => f.check === 'config.before')?.call).toContain('offset 120s');
    // Up at some time before it: the failure may have begun with the change.
    const up = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
      ...down('app'),
      'prometheus before@app': health(1),
    });
    expect(cause(up, 'app')?.confidence).toBe('proven');
  });

  it('is disputed when the service is healthy now, and cleared when nothing changed', async () => {
    const healthy = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
    });
    expect(cause(healthy, 'app')).toMatchObject({
      confidence: 'disputed',
      refuting: ['config.health.healthy'],
    });
    const none = await investigate(down('app'));
    expect(cause(none, 'app')).toMatchObject({
      confidence: 'cleared',
      refuting: ['config.changes.no_change'],
    });
  });

  it('says so when the gate watches no file of the unit, and judges nothing from it', async () => {
    const r = await investigate({
      'ssh-app config_changes': {
        unit: 'app',
        files: [],
        changed: 0,
        named: 0,
        unknown: 0,
        quiet_offset_s: null,
        change_offset_s: null,
      },
      ...down('app'),
    });
    expect(r.findings.find((f) => f.id === 'config.changes.unwatched')?.says).toBe(
      "the gate on app's host watches no configuration file of app (file.app= in its config)",
    );
    expect(cause(r, 'app')?.confidence ?? 'unproven').toBe('unproven');
  });
});

describe('config_changed: unreadable checks never prove it', () => {
  it('is not proven when config_changes cannot be read (the gate has no store)', async () => {
    const r = await investigate({
      'ssh-app config_changes': {
        $error:
          'config_changes app on 127.0.1.2:2202 failed (status 1): config_changes needs store= in the gate config',
      },
      ...down('app'),
    });
    expect(cause(r, 'app')?.confidence ?? 'unproven').toBe('unproven');
    const unread = r.findings.filter((f) => f.service === 'app' && !f.readable);
    expect(unread.map((f) => f.id).sort()).toEqual([
      'config.before.unreadable',
      'config.changes.unreadable',
      'config.settled.unreadable',
    ]);
    expect(unread.find((f) => f.check === 'config.settled')?.says).toBe(
      'not run: no value for {config.changes.quiet_offset}',
    );
  });

  it('is not proven when the errors cannot be read (no log): the change stays suspected', async () => {
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, null),
      ...down('app'),
    });
    expect(cause(r, 'app')?.confidence).toBe('suspected');
  });

  it('is held at suspected when the health readings that could refute it cannot be read', async () => {
    // An unread check never lets a cause through: the mechanism is read, but a reading that
    // could rule the change out is not, so it stays suspected and says which.
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
      'prometheus probe_success+pg_up+nginx_up+up@app': unreadable,
      'prometheus settled@app': unreadable,
      'prometheus before@app': unreadable,
    });
    expect(cause(r, 'app')).toMatchObject({
      confidence: 'suspected',
      proving: ['config.changes.named_in_errors'],
      refuting: [],
    });
    expect(cause(r, 'app')?.held?.join('; ')).toContain('config.health could not be read');
    expect(
      r.findings
        .filter((f) => f.service === 'app' && f.check.startsWith('config.') && !f.readable)
        .map((f) => f.id)
        .sort(),
    ).toEqual([
      'config.before.unreadable',
      'config.health.unreadable',
      'config.settled.unreadable',
    ]);
    // Without the mechanism, the same unreadable readings leave the change only suspected.
    const timing = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, false),
      'prometheus probe_success+pg_up+nginx_up+up@app': unreadable,
      'prometheus settled@app': unreadable,
      'prometheus before@app': unreadable,
    });
    expect(cause(timing, 'app')?.confidence).toBe('suspected');
  });
});

describe("config_changed on a dependency's host", () => {
  it('links the downstream episodes to a change proven on the database host', async () => {
    const answers = {
      'ssh-db config_changes': changed('postgresql', DB_CONFIG, true),
      ...down('postgresql'),
      'prometheus pg_up@postgresql': health(0),
    };
    const app = await investigate(answers, 'app', ['LabAppErrors']);
    expect(cause(app, 'postgresql')).toMatchObject({
      confidence: 'linked',
      proving: ['config.changes.named_in_errors'],
    });
    expect(cause(app, 'app')?.confidence).toBe('cleared');
    const site = await investigate(answers, 'nginx', ['LabSiteDown']);
    expect(cause(site, 'postgresql')?.confidence).toBe('linked');
    // On the database's own episode it is proven, with its restore.
    const db = await investigate(answers, 'postgresql', ['LabPostgresDown']);
    expect(cause(db, 'postgresql')?.confidence).toBe('proven');
  });

  it('does not link a change on the dependency that is timing alone', async () => {
    const app = await investigate(
      { 'ssh-db config_changes': changed('postgresql', DB_CONFIG, false), ...down('postgresql') },
      'app',
      ['LabAppErrors'],
    );
    expect(cause(app, 'postgresql')).toBeUndefined();
  });
});

describe('a host name that does not resolve: the edit that named it, never dns_failure by itself', () => {
  // The lab's db-host-unresolvable: the database host in the app's live config edited by
  // hand to a name that does not resolve. The app's lookups fail for that one name while
  // the host's resolver answers the names it should: resolution works, the edit is the cause.
  const lookups = [
    '2026-03-02T09:59:50Z database: getaddrinfo ENOTFOUND db.lab.invalid',
    '2026-03-02T09:59:58Z GET /: getaddrinfo ENOTFOUND db.lab.invalid',
  ];
  const journal = { unit: 'app', lines: lookups, recent: lookups, last: lookups, current: lookups };
  // `prometheus before@app` answers host.healthy_at too (the journal's since): up before.
  const resolver = (ok: boolean) => ({
    names: [
      { name: 'localhost', resolved: ok, address: ok ? '127.0.0.1' : null },
      { name: 'deploy.lab.example', resolved: ok, address: ok ? '127.0.1.9' : null },
    ],
    checked: 2,
    resolved: ok ? 2 : 0,
    failed: ok ? 0 : 2,
    failing: ok ? '' : 'localhost, deploy.lab.example',
  });
  /** The edit seen by a gate that kept no earlier version: first seen after it, 3 s old. */
  const firstSeen: ConfigChanges = {
    ...changed('app', APP_CONFIG, false),
    files: [
      {
        path: APP_CONFIG,
        current: NEW,
        previous: null,
        changed_at: '2026-03-02T09:59:57.000Z',
        age_s: 3,
        changed_recently: false,
        named_in_errors: false,
        diff: '',
        summary: '',
      },
    ],
    changed: 0,
    named: 0,
    unknown: 1,
  };
  const provenOf = (r: Awaited<ReturnType<typeof investigate>>) =>
    r.hypotheses.filter((h) => h.confidence === 'proven').map((h) => `${h.cause}(${h.service})`);
  const dns = (r: Awaited<ReturnType<typeof investigate>>) =>
    r.hypotheses.find((h) => h.cause === 'dns_failure' && h.service === 'app');

  it('proves the edit when the errors name what it changed, and disputes dns_failure', async () => {
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, true),
      'prometheus before@app': health(1),
      'ssh-app journal': journal,
      'ssh-app resolver': resolver(true),
      ...down('app'),
    });
    expect(provenOf(r)).toEqual(['config_changed(app)']);
    // The lookups support it; the resolver answering and the errors naming the edit refute it.
    expect(dns(r)).toMatchObject({
      confidence: 'disputed',
      proving: [],
      supporting: ['host.log.dns_failure'],
      refuting: ['config.changes.named_in_errors', 'host.resolver.answers'],
    });
  });

  it('proves nothing when the gate kept no version before the edit (it cannot tell a change)', async () => {
    // The mechanism was there but not readable: the file changed 3 s ago and the gate saw it
    // first now. Neither "nothing changed" nor dns_failure: abstain.
    const r = await investigate({
      'ssh-app config_changes': firstSeen,
      'ssh-app journal': journal,
      'prometheus before@app': health(1),
      'ssh-app resolver': resolver(true),
      ...down('app'),
    });
    expect(provenOf(r)).toEqual([]);
    const onApp = r.findings.filter((f) => f.service === 'app');
    expect(onApp.find((f) => f.id === 'config.changes.no_change')).toBeUndefined();
    expect(r.findings.find((f) => f.id === 'config.changes.history_unknown')?.says).toBe(
      'watched configuration files of app changed within the hour before the gate kept an earlier version of them (1): what changed cannot be told',
    );
    expect(cause(r, 'app')?.confidence ?? 'unproven').toBe('unproven');
    expect(dns(r)?.confidence).toBe('disputed');
  });

  it('proves nothing when one name fails, nothing changed and the resolver answers (a cause no pack knows)', async () => {
    const r = await investigate({
      'ssh-app journal': journal,
      'prometheus before@app': health(1),
      'ssh-app resolver': resolver(true),
      ...down('app'),
    });
    expect(provenOf(r)).toEqual([]);
    expect(dns(r)).toMatchObject({ confidence: 'disputed', refuting: ['host.resolver.answers'] });
  });

  it('proves dns_failure when the resolver fails the names it should resolve, beside a harmless edit', async () => {
    const r = await investigate({
      'ssh-app config_changes': changed('app', APP_CONFIG, false),
      'ssh-app journal': journal,
      'prometheus before@app': health(1),
      'ssh-app resolver': resolver(false),
      ...down('app'),
    });
    expect(provenOf(r)).toEqual(['dns_failure(app)']);
    expect(dns(r)).toMatchObject({
      proving: ['host.resolver.broken'],
      supporting: ['host.log.dns_failure'],
    });
    expect(cause(r, 'app')?.confidence).toBe('suspected');
  });

  it('never proves dns_failure from the lookups alone: the resolver unread, or naming nothing to ask', async () => {
    const unread = await investigate({
      'ssh-app journal': journal,
      'prometheus before@app': health(1),
      'ssh-app resolver': { $error: 'resolver on 127.0.1.2:2202 refused: unknown check resolver' },
      ...down('app'),
    });
    expect(provenOf(unread)).toEqual([]);
    expect(dns(unread)?.confidence).toBe('suspected');
    const none = await investigate({
      'ssh-app journal': journal,
      'prometheus before@app': health(1),
      'ssh-app resolver': { names: [], checked: 0, resolved: 0, failed: 0, failing: '' },
      ...down('app'),
    });
    expect(provenOf(none)).toEqual([]);
    expect(dns(none)?.confidence).toBe('suspected');
    expect(none.findings.find((f) => f.id === 'host.resolver.unchecked')?.says).toBe(
      "the gate on app's host names no host name it should always resolve (resolve= in its config): whether resolution works cannot be told",
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { Pack, PackCause } from '../packs/index.js';
import { causeDefinitions, diagnose, type DiagnoseContext } from './diagnose.js';
import type { Finding } from './types.js';

const cause = (over: Partial<PackCause> & { id: string }): PackCause => ({
  title: '{service}: {id}',
  proves: [],
  supports: [],
  refutes: [],
  fixes: [],
  ...over,
});
const pack = (id: string, causes: PackCause[]): Pack => ({
  id,
  version: 1,
  title: id,
  matches: [],
  checks: [],
  causes,
  fixes: [],
});
const f = (id: string, service: string, readable = true): Finding => ({
  id,
  check: id.slice(0, id.lastIndexOf('.')),
  connector: 'c',
  call: 'x {}',
  service,
  says: id,
  values: {},
  excerpt: '',
  at: '2026-03-02T10:00:00.000Z',
  readable,
});

const host = pack('host', [
  cause({
    id: 'service_down',
    title: '{service} is down',
    proves: ['host.services.unit_down'],
    refutes: ['host.services.unit_running'],
    downstream: { alerts: ['*Down*', '*Error*'] },
    fixes: ['restart_unit'],
  }),
  cause({ id: 'disk_full', proves: ['host.disk.full'], refutes: ['host.disk.room'] }),
  cause({ id: 'bad_deploy', refutes: ['host.services.unit_down'] }),
]);
const web = pack('web', [
  cause({
    id: 'service_down',
    title: 'the web server {service} is down',
    supports: ['web.up.down'],
    refutes: ['web.up.up'],
  }),
  cause({ id: 'slow', proves: ['web.time.slow'], supports: ['web.probe.slow'] }),
]);
const change = pack('change', [
  cause({
    id: 'bad_deploy',
    proves: ['change.recent.recent_commit'],
    refutes: ['change.health.healthy'],
    downstream: { alerts: ['*Down*'] },
    fixes: ['revert_deploy'],
  }),
]);
const packs = [change, host, web];
const ctx = (over: Partial<DiagnoseContext> = {}): DiagnoseContext => ({
  service: 'nginx',
  alerts: ['LabSiteDown'],
  dependencies: ['app', 'postgresql'],
  matched: ['host', 'web'],
  ...over,
});
const brief = (hs: ReturnType<typeof diagnose>) =>
  hs.map((h) => `${h.confidence} ${h.cause}(${h.service}) ${h.pack}`);

describe('diagnose', () => {
  it('judges the matched packs’ causes on the service, best first', () => {
    const hs = diagnose(
      packs,
      [
        f('host.services.unit_down', 'nginx'),
        f('web.up.down', 'nginx'),
        f('host.disk.room', 'nginx'),
      ],
      ctx(),
    );
    expect(brief(hs)).toEqual([
      'proven service_down(nginx) host',
      'unproven slow(nginx) web',
      'cleared disk_full(nginx) host',
      // host only refutes bad_deploy (a stopped unit is not a deploy): shown once it does
      'cleared bad_deploy(nginx) change',
    ]);
    expect(hs[0]).toMatchObject({
      title: 'nginx is down',
      proving: ['host.services.unit_down'],
      supporting: ['web.up.down'],
      refuting: [],
      fixes: ['restart_unit'],
      recurrence_of: null,
    });
  });

  it('merges the definitions of one cause across packs, including unmatched ones', () => {
    const hs = diagnose(
      packs,
      [f('change.recent.recent_commit', 'nginx'), f('host.services.unit_down', 'nginx')],
      ctx({ matched: ['change'] }),
    );
    expect(hs.find((h) => h.cause === 'bad_deploy')).toMatchObject({
      confidence: 'disputed',
      pack: 'change',
      proving: ['change.recent.recent_commit'],
      refuting: ['host.services.unit_down'],
      fixes: ['revert_deploy'],
    });
  });

  it('ignores unreadable findings and findings of other services', () => {
    const hs = diagnose(
      packs,
      [f('host.services.unit_down', 'nginx', false), f('host.services.unit_down', 'other')],
      ctx(),
    );
    expect(hs.find((h) => h.cause === 'service_down')?.confidence).toBe('unproven');
  });

  it('links a cause proven on a dependency when the alerts are its downstream kind', () => {
    const findings = [
      f('host.services.unit_running', 'nginx'),
      f('host.services.unit_down', 'postgresql'),
      f('host.disk.full', 'app'), // proven there, but no downstream: not this episode's cause
    ];
    const hs = diagnose(
      packs,
      findings,
      ctx({ open: [{ episode_id: 'ep-db', service: 'postgresql' }] }),
    );
    expect(brief(hs)[0]).toBe('linked service_down(postgresql) host');
    expect(hs[0]).toMatchObject({ linked_episode: 'ep-db', proving: ['host.services.unit_down'] });
    expect(hs.some((h) => h.cause === 'disk_full' && h.service === 'app')).toBe(false);
    expect(brief(diagnose(packs, findings, ctx({ alerts: ['LabCertExpiring'] })))).not.toContain(
      'linked service_down(postgresql) host',
    );
  });

  it('does not link a cause that is disputed on the dependency', () => {
    const hs = diagnose(
      packs,
      [f('change.recent.recent_commit', 'app'), f('change.health.healthy', 'app')],
      ctx(),
    );
    expect(hs.filter((h) => h.confidence === 'linked')).toEqual([]);
  });

  it('names the closed episode a proven cause repeats within 7 days', () => {
    const recent = [
      {
        episode_id: 'ep-old',
        service: 'nginx',
        cause: 'service_down',
        closed_at: '2026-02-01T00:00:00Z',
      },
      {
        episode_id: 'ep-1',
        service: 'nginx',
        cause: 'service_down',
        closed_at: '2026-02-28T00:00:00Z',
      },
      {
        episode_id: 'ep-2',
        service: 'nginx',
        cause: 'service_down',
        closed_at: '2026-03-01T00:00:00Z',
      },
      {
        episode_id: 'ep-x',
        service: 'app',
        cause: 'service_down',
        closed_at: '2026-03-01T00:00:00Z',
      },
    ];
    const hs = diagnose(
      packs,
      [f('host.services.unit_down', 'nginx')],
      ctx({ recent, now: '2026-03-02T10:00:00.000Z' }),
    );
    expect(hs[0]?.recurrence_of).toBe('ep-2');
    const none = diagnose(
      packs,
      [f('host.services.unit_down', 'nginx')],
      ctx({ recent: recent.slice(0, 1), now: '2026-03-02T10:00:00.000Z' }),
    );
    expect(none[0]?.recurrence_of).toBeNull();
  });

  it('fills titles from the variables and values of the service', () => {
    const hs = diagnose(packs, [f('host.disk.full', 'nginx')], {
      ...ctx(),
      variables: () => ({ id: 'full' }),
    });
    expect(hs[0]).toMatchObject({ cause: 'disk_full', title: 'nginx: full' });
  });

  it('keeps one definition per pack and cause', () => {
    expect(
      causeDefinitions(packs)
        .get('service_down')
        ?.map((d) => d.pack),
    ).toEqual(['host', 'web']);
  });

  it('holds a cause at suspected when a check that could refute it could not be read', () => {
    // Each refuting check of each cause in turn unreadable: never proven, and `held` says why.
    const cases: [string, string, string][] = [
      ['service_down', 'host.services.unit_down', 'host.services'],
      ['disk_full', 'host.disk.full', 'host.disk'],
    ];
    for (const [id, proving, refutingCheck] of cases) {
      const hs = diagnose(
        packs,
        [f(proving, 'nginx'), f(`${refutingCheck}.unreadable`, 'nginx', false)],
        ctx(),
      );
      const h = hs.find((x) => x.cause === id);
      expect(h?.confidence, id).toBe('suspected');
      expect(h?.held, id).toEqual([
        `${refutingCheck} could not be read, and it could rule this out`,
      ]);
    }
    // The same check read elsewhere (another service) does not hold it.
    const other = diagnose(
      packs,
      [f('host.services.unit_down', 'nginx'), f('host.services.unreadable', 'app', false)],
      ctx({ dependencies: [] }),
    );
    expect(other[0]).toMatchObject({ cause: 'service_down', confidence: 'proven' });
    expect(other[0]?.held).toBeUndefined();
  });

  it('holds a cause its labels demoted at suspected, here and as a dependency, saying why', () => {
    const why = 'service_down is demoted: 2 of its last 6 labelled diagnoses were right, below 80%';
    const demoted = (c: string) => (c === 'service_down' ? why : null);
    const own = diagnose(packs, [f('host.services.unit_down', 'nginx')], ctx({ demoted }));
    expect(own.find((h) => h.cause === 'service_down')).toMatchObject({
      confidence: 'suspected',
      held: [why],
    });
    // Another cause proven beside it is not held.
    const disk = diagnose(packs, [f('host.disk.full', 'nginx')], ctx({ demoted }));
    expect(disk[0]).toMatchObject({ cause: 'disk_full', confidence: 'proven' });
    expect(disk[0]?.held).toBeUndefined();
    // On a dependency it is not proven there, so it links nothing.
    const dep = diagnose(
      packs,
      [f('host.services.unit_down', 'postgresql')],
      ctx({ alerts: ['AppDown'], demoted }),
    );
    expect(dep.some((h) => h.confidence === 'linked')).toBe(false);
  });

  it('marks a proven cause a promoted pattern matches, and nothing held or suspected', () => {
    const promoted = (service: string, c: string, fix: string | null, alerts: readonly string[]) =>
      service === 'nginx' &&
      c === 'service_down' &&
      fix === 'restart_unit' &&
      alerts.includes('NginxDown')
        ? 'lp-0123456789ab'
        : null;
    const proven = diagnose(
      packs,
      [f('host.services.unit_down', 'nginx')],
      ctx({ alerts: ['NginxDown'], promoted }),
    );
    expect(proven[0]).toMatchObject({
      cause: 'service_down',
      confidence: 'proven',
      pattern: 'lp-0123456789ab',
    });
    const held = diagnose(
      packs,
      [f('host.services.unit_down', 'nginx'), f('host.services.unreadable', 'nginx', false)],
      ctx({ alerts: ['NginxDown'], promoted }),
    );
    expect(held[0]?.confidence).toBe('suspected');
    expect(held[0]?.pattern).toBeUndefined();
  });

  it('never links a dependency’s cause held by an unread check', () => {
    const read = [f('host.services.unit_down', 'postgresql')];
    expect(brief(diagnose(packs, read, ctx({ alerts: ['AppDown'] })))[0]).toBe(
      'linked service_down(postgresql) host',
    );
    const held = diagnose(
      packs,
      [...read, f('web.up.unreadable', 'postgresql', false)],
      ctx({ alerts: ['AppDown'] }),
    );
    expect(held.some((h) => h.confidence === 'linked')).toBe(false);
  });

  it('proves a cause with `requires` only when every required finding is present', () => {
    const deploy = pack('change', [
      cause({
        id: 'bad_deploy',
        title: 'a deploy broke {service}',
        proves: ['change.errors.names_change'],
        supports: ['change.recent.touches_service'],
        requires: ['change.recent.touches_service'],
        refutes: ['change.recent.no_commit_here'],
      }),
    ]);
    const run = (ids: string[]) =>
      diagnose(
        [deploy],
        ids.map((id) => f(id, 'app')),
        ctx({ service: 'app', matched: ['change'] }),
      )[0];
    // Timing alone (a commit touched the service) is suspected, never proven.
    expect(run(['change.recent.touches_service'])?.confidence).toBe('suspected');
    // The error names what changed but the commit did not touch this service: held.
    expect(run(['change.errors.names_change'])).toMatchObject({
      confidence: 'suspected',
      held: ['change.recent.touches_service was not found, and proof needs it'],
    });
    expect(run(['change.errors.names_change', 'change.recent.touches_service'])).toMatchObject({
      confidence: 'proven',
      title: 'a deploy broke app',
    });
  });

  it('never shows a title with an unfilled placeholder', () => {
    const hs = diagnose(packs, [f('host.disk.full', 'nginx')], ctx());
    expect(hs[0]).toMatchObject({ cause: 'disk_full', title: 'disk full' });
  });
});

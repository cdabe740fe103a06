import { describe, expect, it } from 'vitest';
import type { Pack } from '../packs/index.js';
import { entryMatches, globMatches, matchPacks } from './match.js';

const signal = {
  alerts: ['LabSiteDown', 'LabNginxDown'],
  labels: { alertname: 'LabSiteDown', service: 'nginx', severity: 'critical' },
  service: 'nginx',
  serviceKind: 'web',
};
const pack = (id: string, matches: Pack['matches']): Pack => ({
  id,
  version: 1,
  title: id,
  matches,
  checks: [],
  causes: [],
  fixes: [],
});

describe('globs', () => {
  it('matches * and ? over the whole name, case-sensitive', () => {
    expect(globMatches('*Down*', 'LabSiteDown')).toBe(true);
    expect(globMatches('*down*', 'LabSiteDown')).toBe(false);
    expect(globMatches('Lab?iteDown', 'LabSiteDown')).toBe(true);
    expect(globMatches('Lab', 'LabSiteDown')).toBe(false);
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('postgres*', 'postgresql')).toBe(true);
  });

  it('answers a glob of 1,000 stars at once (no backtracking regular expression)', () => {
    const started = performance.now();
    expect(globMatches(`${'*'.repeat(1000)}x`, 'LabSiteDown')).toBe(false);
    expect(globMatches(`${'*?'.repeat(1000)}x`, 'LabSiteDown')).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('matching packs to a signal', () => {
  it('matches by alert name, by labels, by service name or kind', () => {
    expect(entryMatches({ alerts: ['*Disk*', '*Down*'] }, signal)).toBe(true);
    expect(entryMatches({ alerts: ['*Disk*'] }, signal)).toBe(false);
    expect(entryMatches({ labels: { severity: 'crit*' } }, signal)).toBe(true);
    expect(entryMatches({ labels: { severity: 'crit*', team: '*' } }, signal)).toBe(false);
    expect(entryMatches({ services: ['nginx*'] }, signal)).toBe(true);
    expect(entryMatches({ services: ['web'] }, signal)).toBe(true);
    expect(entryMatches({ services: ['postgres*'] }, signal)).toBe(false);
  });

  it('needs every field of one entry, and any entry of a pack', () => {
    expect(entryMatches({ alerts: ['*Down*'], services: ['app'] }, signal)).toBe(false);
    expect(entryMatches({}, signal)).toBe(true);
    const packs = [
      pack('never', []),
      pack('any', [{ services: ['app'] }, { alerts: ['*Site*'] }]),
      pack('no', [{ alerts: ['*Cert*'] }]),
    ];
    expect(matchPacks(packs, signal).map((p) => p.id)).toEqual(['any']);
  });
});

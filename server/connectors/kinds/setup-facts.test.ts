// Setup facts without a server: YAML sections hashed one by one, rule groups hashed on what
// defines them (not their evaluation state), flags of interest only, and Alertmanager's
// configuration reduced to hashes.
import { describe, expect, it } from 'vitest';
import { setupFacts } from './alertmanager.js';
import { flagFacts, ruleGroupFacts } from './prometheus.js';
import { sha256, yamlSectionHashes } from './setup-facts.js';

const YAML = `global:
  scrape_interval: 15s
rule_files:
- /etc/prometheus/rules.yml
scrape_configs:
- job_name: api
  basic_auth:
    password: <secret>
`;

describe('setup facts', () => {
  it('hashes each top-level YAML section, so a change shows which section moved', () => {
    const h = yamlSectionHashes(YAML);
    expect(Object.keys(h)).toEqual(['global', 'rule_files', 'scrape_configs']);
    expect(h['global']).toBe(sha256('global:\n  scrape_interval: 15s\n'));
    const edited = yamlSectionHashes(YAML.replace('15s', '30s'));
    expect(edited['global']).not.toBe(h['global']);
    expect(edited['scrape_configs']).toBe(h['scrape_configs']);
    expect(yamlSectionHashes('')).toEqual({});
  });

  it('hashes a rule group on its definition, not on its evaluation state', () => {
    const group = (query: string, state: string) => ({
      groups: [
        {
          name: 'api',
          file: '/etc/prometheus/rules/api.yml',
          interval: 30,
          lastEvaluation: new Date().toISOString(),
          rules: [
            {
              type: 'alerting',
              name: 'ApiDown',
              query,
              duration: 60,
              labels: { severity: 'critical' },
              annotations: {},
              state,
              health: 'ok',
              alerts: [],
            },
          ],
        },
      ],
    });
    const a = ruleGroupFacts(group('up == 0', 'inactive'));
    expect(Object.keys(a)).toEqual(['rule_group.api.yml/api']);
    expect(ruleGroupFacts(group('up == 0', 'firing'))).toEqual(a);
    expect(ruleGroupFacts(group('up < 1', 'inactive'))).not.toEqual(a);
    expect(ruleGroupFacts({})).toEqual({});
  });

  it('keeps only the flags of interest', () => {
    expect(
      flagFacts({
        'storage.tsdb.retention.time': '15d',
        'web.listen-address': '0.0.0.0:9090',
        'config.file': '/etc/prometheus/prometheus.yml',
        'query.timeout': '2m',
      }),
    ).toEqual({ 'flag.storage.tsdb.retention.time': '15d', 'flag.query.timeout': '2m' });
  });

  it("reduces Alertmanager's configuration to hashes", () => {
    const original =
      'route:\n  receiver: x\nreceivers:\n- name: x\n  slack_configs:\n  - api_url: https://hooks.slack.test/T0/S3CRET\n';
    const facts = setupFacts(
      { versionInfo: { version: '0.25.0' }, cluster: { status: 'disabled' }, config: { original } },
      'alertmanager setup',
    );
    expect(facts).toEqual({
      version: '0.25.0',
      config_sha256: sha256(original),
      'config.route': expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      'config.receivers': expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
    });
    expect(JSON.stringify(facts)).not.toContain('S3CRET');
    expect(() => setupFacts({ versionInfo: { version: '0.25.0' } }, 'am')).toThrow(/no config/);
  });
});

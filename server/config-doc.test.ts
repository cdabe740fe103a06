import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationMarkdown } from './config-doc.js';

describe('docs/configuration.md', () => {
  it('is generated from the config module (run npm run docs:config after changing it)', () => {
    const doc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    expect(doc).toBe(configurationMarkdown());
  });

  it('says how licence checks use HTTPS_PROXY and NO_PROXY', () => {
    const doc = configurationMarkdown();
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy', 'SVC_CA_BUNDLE'])
      expect(doc).toContain(`\`${name}\``);
  });
});

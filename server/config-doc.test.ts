import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationMarkdown } from './config-doc.js';

describe('docs/configuration.md', () => {
  it('is generated from the config module (run npm run docs:config after changing it)', () => {
    const doc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    expect(doc).toBe(configurationMarkdown());
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventsMarkdown } from './events-doc.js';

describe('docs/events.md', () => {
  it('is generated from the event catalogue', () => {
    const doc = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
    expect(doc, 'docs/events.md is stale: run npx tsx build/events-doc.ts').toBe(eventsMarkdown());
  });
});

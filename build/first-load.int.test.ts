// The console's first load: every script, style sheet and preload index.html names, gzipped,
// stays within issue 22's budget of 150 KB (150,000 bytes). Reads the build `npm test` makes before vitest
// (node build/bundle.mjs); the figure is also written in docs/performance.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '..', 'dist', 'console');
const BUDGET_BYTES = 150_000;

/** index.html and what it loads at once (scripts, style sheets, module preloads). */
function firstLoadFiles(): string[] {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const named = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+)"/g)].map((m) => m[1]!);
  return ['index.html', ...new Set(named)];
}

describe('the console first load', () => {
  it('is at most 150 KB gzip', () => {
    const files = firstLoadFiles();
    expect(files.some((f) => f.endsWith('.js'))).toBe(true);
    const sizes = files.map((f) => gzipSync(readFileSync(join(DIST, f)), { level: 9 }).length);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(total, files.map((f, i) => `${f} ${String(sizes[i])}`).join(', ')).toBeLessThanOrEqual(
      BUDGET_BYTES,
    );
  });
});

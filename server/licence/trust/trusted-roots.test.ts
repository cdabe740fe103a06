import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_ROOTS, RELEASE_ROOTS } from './roots.js';
import { TRUSTED_ROOTS } from './trusted-roots.js';
import { kidOf } from '../document/envelope.js';

const REPO = join(import.meta.dirname, '..', '..', '..');

describe('the compiled authority roots', () => {
  it("are exactly build/authority-keys.json, and each kid is its key's", () => {
    const json = JSON.parse(readFileSync(join(REPO, 'build', 'authority-keys.json'), 'utf8')) as {
      roots: { name: string; flavour: string; alg: string; kid: string; spki: string }[];
    };
    const strip = ({ flavour: _f, ...r }: (typeof json.roots)[number]) => r;
    expect(RELEASE_ROOTS).toEqual(json.roots.filter((r) => r.flavour === 'release').map(strip));
    expect(DEVELOPMENT_ROOTS).toEqual(
      json.roots.filter((r) => r.flavour === 'development').map(strip),
    );
    expect(RELEASE_ROOTS.length).toBeGreaterThanOrEqual(2);
    for (const r of TRUSTED_ROOTS) expect(kidOf(r.key)).toBe(r.kid);
  });

  it('a development build trusts the development root; a release bundle does not contain it', async () => {
    const devKids = DEVELOPMENT_ROOTS.map((r) => r.kid);
    expect(TRUSTED_ROOTS.map((r) => r.kid)).toEqual(expect.arrayContaining(devKids));
    const out = await build({
      entryPoints: [join(import.meta.dirname, 'trusted-roots.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      define: { __SVC_RELEASE__: 'true' },
    });
    const text = out.outputFiles[0]?.text ?? '';
    for (const r of RELEASE_ROOTS) expect(text).toContain(r.kid);
    for (const kid of devKids) expect(text).not.toContain(kid);
    const dataUrl = `data:text/javascript;base64,${Buffer.from(text).toString('base64')}`;
    const mod = (await import(dataUrl)) as {
      TRUSTED_ROOTS: { kid: string }[];
      RELEASE_BUILD: boolean;
    };
    expect(mod.RELEASE_BUILD).toBe(true);
    expect(mod.TRUSTED_ROOTS.map((r) => r.kid).sort()).toEqual(
      RELEASE_ROOTS.map((r) => r.kid).sort(),
    );
  });
});

// Real files, the real packing tool and the keys compiled into the build: what the service
// sees at start.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPacks } from './loader.js';
import { newKey, tinyPack, withField } from '../testing/packs/pack.fixture.js';
import { signPack } from './signing.js';
import { TRUSTED_PACK_KEYS } from './trust.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const tsx = join(repo, 'node_modules', '.bin', 'tsx');
const tool = join(repo, 'build', 'packs', 'pack.ts');

let root: string;
let src: string;
let signed: string;

function pack(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(tsx, [tool, ...args], { cwd: repo, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'packs-int-'));
  src = join(root, 'src');
  signed = join(root, 'signed');
  mkdirSync(src);
  writeFileSync(join(src, 'alpha.json'), JSON.stringify(tinyPack('alpha'), null, 2));
  writeFileSync(join(src, 'beta.json'), JSON.stringify(tinyPack('beta', 3), null, 2));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('packing tool and loader, with real files', () => {
  it('signs sources with the development key into <id>.pack.json', () => {
    const r = pack(['--out', signed, join(src, 'alpha.json'), join(src, 'beta.json')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('alpha v1, 1 check, 1 cause, 1 fix');
    const loaded = loadPacks({ dirs: [signed] });
    expect(loaded.refused).toEqual([]);
    expect(loaded.loaded.map((p) => `${p.id}@${String(p.version)}`)).toEqual(['alpha@1', 'beta@3']);
    expect(loaded.loaded[0]?.signer).toBe(TRUSTED_PACK_KEYS[0]?.id);
  });

  it('refuses a source that fails the schema, printing the field, and signs nothing for it', () => {
    const bad = join(src, 'bad.json');
    writeFileSync(bad, JSON.stringify(withField(tinyPack('gamma'), 'checks.0.call.op', undefined)));
    const out = join(root, 'bad-out');
    const r = pack(['--out', out, bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`refused ${bad}: checks.0.call.op is required`);
    expect(loadPacks({ dirs: [out] }).loaded).toEqual([]);
  });

  it('warns when signing with a key the build does not trust', () => {
    const keyFile = join(root, 'other.pem');
    writeFileSync(keyFile, newKey().privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const r = pack(['--key', keyFile, '--out', join(root, 'other-out'), join(src, 'alpha.json')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/is not trusted by this build/);
    expect(loadPacks({ dirs: [join(root, 'other-out')] }).refused[0]?.why).toMatch(
      /which this build does not trust/,
    );
  });

  it('refuses a tampered file, a non-JSON file and a foreign signer, and loads the rest', () => {
    const d = join(root, 'mixed');
    mkdirSync(d);
    const good = readFileSync(join(signed, 'alpha.pack.json'), 'utf8');
    writeFileSync(join(d, 'alpha.pack.json'), good);
    const tampered = good.replace('"risk": "low"', '"risk": "high"');
    expect(tampered).not.toBe(good);
    writeFileSync(join(d, 'tampered.pack.json'), tampered);
    writeFileSync(join(d, 'garbage.pack.json'), 'this is not { json');
    writeFileSync(
      join(d, 'foreign.pack.json'),
      JSON.stringify(signPack(tinyPack('delta'), newKey().privateKey)),
    );
    const r = loadPacks({ dirs: [d, join(root, 'absent')] });
    expect(r.loaded.map((p) => p.id)).toEqual(['alpha']);
    const why = Object.fromEntries(r.refused.map((x) => [x.file.slice(d.length + 1), x.why]));
    expect(Object.keys(why).sort()).toEqual([
      'foreign.pack.json',
      'garbage.pack.json',
      'tampered.pack.json',
    ]);
    expect(why['tampered.pack.json']).toMatch(/signature does not match the pack/);
    expect(why['garbage.pack.json']).toMatch(/^not JSON/);
    expect(why['foreign.pack.json']).toMatch(/does not trust/);
    expect(r.dirs).toEqual([
      { dir: d, found: true, files: 4 },
      { dir: join(root, 'absent'), found: false, files: 0 },
    ]);
  });
});

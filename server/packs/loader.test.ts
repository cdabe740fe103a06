import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtInPacksDir, loadPacks, MAX_PACK_BYTES, packDirs } from './loader.js';
import { newKey, tinyPack } from '../testing/packs/pack.fixture.js';
import type { Pack } from './pack.types.js';
import { signPack } from './signing.js';

const { privateKey, trusted } = newKey();
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'packs-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function dir(name: string): string {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  return d;
}

function put(d: string, file: string, pack: Pack): string {
  const path = join(d, file);
  writeFileSync(path, JSON.stringify(signPack(pack, privateKey), null, 2));
  return path;
}

const load = (dirs: string[], maxBytes?: number) =>
  loadPacks(
    maxBytes === undefined ? { dirs, trusted: [trusted] } : { dirs, trusted: [trusted], maxBytes },
  );

describe('loadPacks', () => {
  it('loads every *.pack.json in name order and ignores other files', () => {
    const d = dir('a');
    put(d, 'b.pack.json', tinyPack('beta'));
    put(d, 'a.pack.json', tinyPack('alpha'));
    writeFileSync(join(d, 'notes.json'), '{}');
    writeFileSync(join(d, 'README'), 'hello');
    const r = load([d]);
    expect(r.loaded.map((p) => p.id)).toEqual(['alpha', 'beta']);
    expect(r.refused).toEqual([]);
    expect(r.dirs).toEqual([{ dir: d, found: true, files: 2 }]);
    const [alpha] = r.loaded;
    expect(alpha?.signer).toBe(trusted.id);
    expect(alpha?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(alpha?.file).toBe(join(d, 'a.pack.json'));
  });

  it('reports a missing folder without refusing anything', () => {
    const missing = join(root, 'nope');
    const r = load([missing]);
    expect(r).toEqual({
      loaded: [],
      refused: [],
      superseded: [],
      dirs: [{ dir: missing, found: false, files: 0 }],
    });
  });

  it('refuses a file where a folder should be', () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    expect(load([file]).refused[0]?.why).toMatch(/is not a folder/);
  });

  it('lets a later folder replace a pack with a higher version, in its slot', () => {
    const builtIn = dir('builtin');
    const local = dir('local');
    put(builtIn, 'a.pack.json', tinyPack('alpha', 1));
    put(builtIn, 'b.pack.json', tinyPack('beta', 1));
    const newer = put(local, 'alpha.pack.json', tinyPack('alpha', 2));
    const r = load([builtIn, local]);
    expect(r.loaded.map((p) => `${p.id}@${String(p.version)}`)).toEqual(['alpha@2', 'beta@1']);
    expect(r.loaded[0]?.file).toBe(newer);
    expect(r.superseded).toEqual([{ file: join(builtIn, 'a.pack.json'), by: newer }]);
    expect(r.refused).toEqual([]);
  });

  it('refuses a later pack that is not newer, and ignores an identical copy', () => {
    const builtIn = dir('builtin');
    const local = dir('local');
    const kept = put(builtIn, 'a.pack.json', tinyPack('alpha', 2));
    const copy = put(local, 'copy.pack.json', tinyPack('alpha', 2));
    const older = put(local, 'old.pack.json', tinyPack('alpha', 1));
    const r = load([builtIn, local]);
    expect(r.loaded.map((p) => p.file)).toEqual([kept]);
    expect(r.superseded).toEqual([{ file: copy, by: kept }]);
    expect(r.refused).toEqual([
      { file: older, why: `pack alpha version 1 is not newer than version 2 from ${kept}` },
    ]);
  });

  it('refuses the later of two packs that define the same check', () => {
    const d = dir('a');
    const first = put(d, 'a.pack.json', tinyPack('alpha', 1, 'svc'));
    const clash = { ...tinyPack('beta', 1, 'svc') };
    const clashing: Pack = {
      ...clash,
      checks: clash.checks.map((c) => ({ ...c, id: 'alpha.svc' })),
      causes: clash.causes.map((c) => ({
        ...c,
        proves: ['alpha.svc.down'],
        refutes: ['alpha.svc.up'],
      })),
      fixes: clash.fixes.map((f) => ({
        ...f,
        verify: { ...f.verify, expect: ['alpha.svc.up'], expect_absent: ['alpha.svc.down'] },
      })),
    };
    const second = put(d, 'b.pack.json', clashing);
    const r = load([d]);
    expect(r.loaded.map((p) => p.file)).toEqual([first]);
    expect(r.refused).toEqual([
      { file: second, why: `check alpha.svc is already defined by pack alpha (${first})` },
    ]);
  });

  it('refuses a file over the size limit before reading it', () => {
    const d = dir('a');
    const big = join(d, 'big.pack.json');
    writeFileSync(big, ' '.repeat(MAX_PACK_BYTES + 1));
    expect(load([d]).refused).toEqual([
      {
        file: big,
        why: `${String(MAX_PACK_BYTES + 1)} bytes, over the ${String(MAX_PACK_BYTES)} byte limit`,
      },
    ]);
    const small = put(d, 'small.pack.json', tinyPack());
    expect(load([d], 100).refused.map((x) => x.file)).toContain(small);
  });

  it('refuses an unsigned pack and a signed pack that fails the schema', () => {
    const d = dir('a');
    const unsigned = join(d, 'unsigned.pack.json');
    writeFileSync(unsigned, JSON.stringify(tinyPack()));
    const bad = join(d, 'bad.pack.json');
    const pack = { ...tinyPack(), checks: [] } as Pack; // causes now name findings that do not exist
    writeFileSync(bad, JSON.stringify(signPack(pack, privateKey)));
    const r = load([d]);
    expect(r.loaded).toEqual([]);
    const why = new Map(r.refused.map((x) => [x.file, x.why]));
    expect(why.get(unsigned)).toMatch(/^not a signed pack/);
    expect(why.get(bad)).toMatch(
      /^not a valid pack: fixes\.0\.verify\.expect\.0 names no finding rule: tiny\.svc\.up; .*; and 1 more$/,
    );
  });
});

describe('pack folders', () => {
  it('finds the built-in folder of the checkout, or none', () => {
    const d = builtInPacksDir();
    if (d !== null) expect(d).toMatch(/build[/\\]packs[/\\]signed[/\\]$/);
  });

  it('loads the built-in packs before SVC_PACKS', () => {
    const dirs = packDirs('/etc/svc/packs');
    expect(dirs.at(-1)).toBe('/etc/svc/packs');
    expect(dirs.length).toBe(builtInPacksDir() === null ? 1 : 2);
  });
});

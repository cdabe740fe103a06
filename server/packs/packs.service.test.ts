import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newKey, tinyPack } from '../testing/packs/pack.fixture.js';
import { createPacksService } from './packs.service.js';
import { signPack } from './signing.js';

const { privateKey, trusted } = newKey();
let dir: string;
const logged: string[] = [];
const log = {
  info: (_o: object, msg: string) => logged.push(`info ${msg}`),
  warn: (_o: object, msg: string) => logged.push(`warn ${msg}`),
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'packs-svc-'));
  logged.length = 0;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const put = (name: string, body: string) => {
  writeFileSync(join(dir, name), body);
};

describe('createPacksService', () => {
  it('holds the loaded set and reloads it whole', () => {
    put('alpha.pack.json', JSON.stringify(signPack(tinyPack('alpha'), privateKey)));
    const packs = createPacksService({ dirs: [dir], log, trusted: [trusted] });
    expect(packs.list()).toEqual([
      expect.objectContaining({ id: 'alpha', version: 1, checks: 1, causes: 1, fixes: 1 }),
    ]);
    expect(packs.get('alpha')?.pack.title).toBe('Tiny alpha');
    expect(packs.get('beta')).toBeNull();

    put('beta.pack.json', JSON.stringify(signPack(tinyPack('beta'), privateKey)));
    put('broken.pack.json', '{');
    expect(packs.packs().map((p) => p.id)).toEqual(['alpha']); // nothing changes until reload
    const r = packs.reload();
    expect(r.loaded.map((p) => p.id)).toEqual(['alpha', 'beta']);
    expect(packs.packs().map((p) => p.id)).toEqual(['alpha', 'beta']);
    expect(packs.refused().map((x) => x.file)).toEqual([join(dir, 'broken.pack.json')]);
    expect(packs.dirs()).toEqual([{ dir, found: true, files: 3 }]);
    expect(logged).toContain('warn check pack refused');
  });

  it('refuses packs signed by an untrusted key by default', () => {
    put('alpha.pack.json', JSON.stringify(signPack(tinyPack('alpha'), privateKey)));
    const packs = createPacksService({ dirs: [dir], log });
    expect(packs.list()).toEqual([]);
    expect(packs.refused()[0]?.why).toMatch(/does not trust/);
  });
});

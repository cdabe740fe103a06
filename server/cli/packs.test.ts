import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import { newKey, tinyPack } from '../testing/packs/pack.fixture.js';
import { signPack } from '../packs/index.js';
import { packsCommand } from './packs.js';

const { privateKey, trusted } = newKey('test pack key');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'packs-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function run(positionals: string[], json = false) {
  const out: string[] = [];
  const err: string[] = [];
  const code = packsCommand(
    positionals,
    { json },
    { log: (l) => out.push(l), error: (l) => err.push(l) },
    {
      config: () => {
        throw new Error('not read when dirs are given');
      },
      dirs: () => [dir, join(dir, 'missing')],
      trusted: [trusted],
    },
  );
  return code.then((c) => ({ code: c, out, err }));
}

describe('svc-core packs list', () => {
  it('prints each pack with its counts and signer, and each refused file', async () => {
    writeFileSync(
      join(dir, 'a.pack.json'),
      JSON.stringify(signPack(tinyPack('alpha', 4), privateKey)),
    );
    writeFileSync(join(dir, 'b.pack.json'), 'nope');
    const r = await run(['list']);
    expect(r.code).toBe(1);
    expect(r.out[0]).toBe(`folder ${dir}: 2 pack files`);
    expect(r.out[1]).toBe(`folder ${join(dir, 'missing')}: missing`);
    expect(r.out[2]).toBe(
      `alpha v4  Tiny alpha  1 check, 1 cause, 1 fix; signed by test pack key (${trusted.id.slice(0, 16)}…); ${join(dir, 'a.pack.json')}`,
    );
    expect(r.out[3]).toMatch(new RegExp(`^refused ${join(dir, 'b.pack.json')}: not JSON`));
  });

  it('answers JSON with --json and exits 0 when nothing is refused', async () => {
    writeFileSync(
      join(dir, 'a.pack.json'),
      JSON.stringify(signPack(tinyPack('alpha'), privateKey)),
    );
    const r = await run(['list'], true);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out.join('\n')) as {
      packs: { id: string; signer: string }[];
      refused: unknown[];
    };
    expect(body.packs.map((p) => p.id)).toEqual(['alpha']);
    expect(body.packs[0]?.signer).toBe(trusted.id);
    expect(body.refused).toEqual([]);
  });

  it('reads SVC_PACKS from the configuration when no folders are given', async () => {
    const out: string[] = [];
    const code = await packsCommand(
      ['list'],
      { json: true },
      { log: (l) => out.push(l), error: () => undefined },
      { config: () => ({ files: { packs: dir } }) as unknown as Config, trusted: [trusted] },
    );
    expect([0, 1]).toContain(code); // the checkout's built-in packs, if signed, are refused here
    const body = JSON.parse(out.join('\n')) as { dirs: { dir: string }[] };
    expect(body.dirs.map((d) => d.dir)).toContain(dir);
  });

  it('is a usage error without list', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['show'])).code).toBe(2);
  });
});

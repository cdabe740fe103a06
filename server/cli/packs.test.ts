import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import { newKey, tinyPack } from '../testing/packs/pack.fixture.js';
import { signPack, type PackGate } from '../packs/index.js';
import { packsCommand } from './packs.js';

const { privateKey, trusted } = newKey('test pack key');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'packs-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const allOpen: PackGate = () => ({ opened: true });

function run(positionals: string[], json = false, opens: PackGate = allOpen) {
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
      opens,
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
      `alpha v4  Tiny alpha  1 check, 1 cause, 1 fix; signed by test pack key (${trusted.id.slice(0, 16)}…); ${join(dir, 'a.pack.json')}; opened: yes`,
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
      {
        config: () => ({ files: { packs: dir } }) as unknown as Config,
        trusted: [trusted],
        opens: allOpen,
      },
    );
    expect([0, 1]).toContain(code); // the checkout's built-in packs, if signed, are refused here
    const body = JSON.parse(out.join('\n')) as { dirs: { dir: string }[] };
    expect(body.dirs.map((d) => d.dir)).toContain(dir);
  });

  it('says which packs the licence does not open and why, and that an unsigned file is not opened', async () => {
    writeFileSync(
      join(dir, 'a.pack.json'),
      JSON.stringify(signPack(tinyPack('alpha'), privateKey)),
    );
    writeFileSync(join(dir, 'b.pack.json'), JSON.stringify(signPack(tinyPack('beta'), privateKey)));
    const { privateKey: stranger } = newKey('a stranger');
    writeFileSync(join(dir, 'c.pack.json'), JSON.stringify(signPack(tinyPack('gamma'), stranger)));
    const onlyAlpha: PackGate = (id) =>
      id === 'alpha' ? { opened: true } : { opened: false, why: 'not in licence.features.packs' };
    const r = await run(['list'], false, onlyAlpha);
    expect(r.code).toBe(1); // the stranger's file is refused
    expect(r.out.find((l) => l.startsWith('alpha '))).toMatch(/; opened: yes$/);
    expect(r.out.find((l) => l.startsWith('beta '))).toMatch(
      /; opened: no \(why: not in licence\.features\.packs\)$/,
    );
    expect(r.out.find((l) => l.startsWith('refused '))).toMatch(
      new RegExp(`^refused ${join(dir, 'c.pack.json')}: .*; opened: no \\(why: unsigned\\)$`),
    );
    const j = await run(['list'], true, onlyAlpha);
    const body = JSON.parse(j.out.join('\n')) as {
      packs: { id: string; opened: boolean; why: string | null }[];
      refused: { file: string; unsigned?: boolean }[];
    };
    expect(body.packs.map((p) => [p.id, p.opened, p.why])).toEqual([
      ['alpha', true, null],
      ['beta', false, 'not in licence.features.packs'],
    ]);
    expect(body.refused).toMatchObject([{ file: join(dir, 'c.pack.json'), unsigned: true }]);
  });

  it('is a usage error without list', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['show'])).code).toBe(2);
  });
});

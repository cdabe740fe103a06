import { describe, expect, it } from 'vitest';
import { packsCheck, type PacksCheckDeps } from './packs-check.js';
import type { PackSummary } from './packs.service.js';

const summary = (id: string, version = 1): PackSummary => ({
  id,
  version,
  title: id,
  file: `/p/${id}.pack.json`,
  sha256: '0'.repeat(64),
  signer: 'KEY',
  checks: 1,
  causes: 1,
  fixes: 0,
});

const deps = (
  over: Partial<{ [K in keyof PacksCheckDeps]: ReturnType<PacksCheckDeps[K]> }>,
): PacksCheckDeps => ({
  list: () => over.list ?? [],
  refused: () => over.refused ?? [],
  dirs: () => over.dirs ?? [{ dir: '/build/packs/signed', found: true, files: 0 }],
});

describe('Packs / signatures', () => {
  it('is ok when every pack loads', async () => {
    const r = await packsCheck(deps({ list: [summary('host'), summary('nginx', 2)] })).run();
    expect(r).toEqual({
      status: 'ok',
      detail: '2 packs loaded, signatures valid: host v1, nginx v2',
      hint: '',
    });
  });

  it('fails naming each refused file and why', async () => {
    const check = packsCheck(
      deps({
        list: [summary('host')],
        refused: [
          { file: '/etc/svc/packs/x.pack.json', why: 'not JSON: Unexpected token' },
          {
            file: '/etc/svc/packs/y.pack.json',
            why: 'signed by key ABC, which this build does not trust',
          },
        ],
      }),
    );
    const r = await check.run();
    expect(r.status).toBe('fail');
    expect(r.detail).toBe(
      '2 pack files refused: /etc/svc/packs/x.pack.json: not JSON: Unexpected token; /etc/svc/packs/y.pack.json: signed by key ABC, which this build does not trust; loaded host v1',
    );
    expect(r.hint).toMatch(/npm run packs/);
    expect(check.area).toBe('Packs');
    expect(check.name).toBe('signatures');
  });

  it('warns when no pack is loaded, naming where it looked', async () => {
    const r = await packsCheck(
      deps({ dirs: [{ dir: '/etc/svc/packs', found: false, files: 0 }] }),
    ).run();
    expect(r.status).toBe('warn');
    expect(r.detail).toBe(
      'no check packs loaded (looked in /etc/svc/packs (missing)): investigations cannot run checks',
    );
  });
});

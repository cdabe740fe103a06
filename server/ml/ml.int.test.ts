// ML artefacts end to end: a real server with SVC_ML_DIR, artefacts signed by `svc-core ml
// sign` (the bundle, in a child process) with the data folder's install key, their links
// suggested in the estate and confirmed through the routes; a changed file refused and named
// by the doctor and by `svc-core ml list`; with SVC_ML_TRUST, the install's signature alone
// is not enough.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, buildTestServer, type TestServer } from '../testing/test-server.js';
import { requireBundle, runCli } from '../testing/processes.js';

requireBundle();

interface Suggestions {
  suggestions: { id: string; from: string; to: string; evidence: string; score: number }[];
}
interface DoctorJson {
  checks: { area: string; check: string; status: string; detail: string; hint: string }[];
}

const artefact = (links: unknown[]) => ({
  artefact: { kind: 'relations', name: 'weekly-links', by: 'offline causal run', body: { links } },
});

describe('ML artefacts on a real server', () => {
  let s: TestServer;
  let mlDir: string;
  const trusted = generateKeyPairSync('ed25519');

  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    s.app.inject({ method, url, headers: bearer(ADMIN_TOKEN), ...(body ? { payload: body } : {}) });
  const suggestions = async () =>
    (await call('GET', '/v1/estate/suggestions')).json<Suggestions>().suggestions;
  const mlCheck = async () =>
    (await call('GET', '/v1/doctor?fresh=1'))
      .json<DoctorJson>()
      .checks.find((c) => c.check === 'ML artefacts');

  beforeAll(async () => {
    s = await buildTestServer();
    mlDir = join(s.env['SVC_DATA'] ?? '', 'ml'); // the default: <data>/ml
    mkdirSync(mlDir);
    const put = await call('PUT', '/v1/estate/overrides', {
      services: { api: { aliases: [] }, db: { aliases: [] }, cache: { aliases: [] } },
    });
    expect(put.statusCode, put.body).toBe(200);
  });
  afterAll(async () => {
    await s.cleanup();
  });

  it('suggests the links of an artefact this install signed, which a person confirms', async () => {
    const file = join(mlDir, 'links.json');
    writeFileSync(
      file,
      JSON.stringify(artefact([{ from: 'api', to: 'db', strength: 0.75, lag_s: 30 }])),
    );
    expect(await suggestions()).toEqual([]);
    expect(await mlCheck()).toMatchObject({ status: 'warn' });

    const signed = await runCli(s.env, ['ml', 'sign', file]);
    expect(signed, signed.stderr).toMatchObject({ code: 0 });
    const listed = await runCli(s.env, ['ml', 'list']);
    expect(listed).toMatchObject({
      code: 0,
      stdout: 'used  links.json: relations weekly-links, signed by this install\n',
    });
    const [found] = await suggestions();
    expect(found).toMatchObject({
      from: 'api',
      to: 'db',
      score: 0.75,
      evidence:
        'ML artefact weekly-links (links.json, signed by this install): db leads api by 30 s',
    });
    expect(await mlCheck()).toMatchObject({ status: 'ok' });

    const confirmed = await call('POST', '/v1/estate/suggestions/confirm', { id: found?.id });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(await suggestions()).toEqual([]);
  });

  it('refuses an artefact changed after signing: not suggested, named by the doctor and the CLI', async () => {
    const file = join(mlDir, 'cache.json');
    writeFileSync(file, JSON.stringify(artefact([{ from: 'api', to: 'cache', strength: 0.6 }])));
    expect((await runCli(s.env, ['ml', 'sign', file])).code).toBe(0);
    expect((await suggestions()).map((x) => x.to)).toEqual(['cache']);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"strength": 0.6', '"strength": 0.9'));
    expect(await suggestions()).toEqual([]);
    const check = await mlCheck();
    expect(check).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(
        'cache.json: the signature by this install does not match: the artefact changed after signing',
      ) as string,
    });
    const listed = await runCli(s.env, ['ml', 'list', '--json']);
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      refused: [
        { file: 'cache.json', why: expect.stringContaining('changed after signing') as string },
      ],
    });
  });

  it('with SVC_ML_TRUST, uses only what that key signed as well', async () => {
    await s.stop();
    const pem = trusted.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const trustFile = join(s.dir, 'ml-trust.pem');
    writeFileSync(trustFile, pem);
    const keyFile = join(s.dir, 'trainer-key.pem');
    writeFileSync(keyFile, trusted.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const env = { ...s.env, SVC_ML_TRUST: trustFile };
    s = await buildTestServer({ dir: s.dir, env });
    const file = join(mlDir, 'cache.json');
    writeFileSync(file, JSON.stringify(artefact([{ from: 'api', to: 'cache', strength: 0.6 }])));
    expect((await runCli(env, ['ml', 'sign', file])).code).toBe(0);
    expect(await suggestions()).toEqual([]);
    expect((await mlCheck())?.hint).toContain('have the SVC_ML_TRUST key holder sign it');
    const bad = await runCli(env, ['ml', 'sign', file, '--key', join(s.dir, 'absent.pem')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--key');
    expect((await runCli(env, ['ml', 'sign', file, '--key', keyFile])).code).toBe(0);
    expect((await suggestions()).map((x) => [x.to, x.evidence])).toEqual([
      [
        'cache',
        'ML artefact weekly-links (cache.json, signed by this install and SVC_ML_TRUST): cache leads api',
      ],
    ]);
    expect((await runCli(env, ['ml', 'frobnicate'])).code).toBe(2);
  });
});

// Design case 29 (Spacewalk): no bundled artefact expires. With the clock 20 years on the
// service still starts, takes the revocation list shipped with the build (seq 1) and applies
// it, and a licence issued then is installed; svc-core licence-verify reads the same list.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../install/index.js';
import { createFakeClock } from '../shared/clock.js';
import { createTestIssuer, licencePayload, productionInstall } from '../testing/licence/issuer.js';
import { requireBundle, runCli } from '../testing/processes.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../testing/test-server.js';

requireBundle();

const THIS = fingerprintOf('5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c', 'machine-id');
const LATER = new Date(Date.now() + 20 * 366 * 86_400_000).toISOString();
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

let s: TestServer | null = null;
afterEach(async () => {
  await s?.cleanup();
  s = null;
});

describe('the bundled revocation list, 20 years on', () => {
  it('the service starts, holds the bundled list (seq 1, copied to the data folder) and a licence issued then installs', async () => {
    s = await buildTestServer({ env: { SVC_TRIAL: '0' }, clock: createFakeClock(LATER) });
    expect((await s.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect(s.runtime.licence.revocations().seq).toBe(1);
    const issuer = createTestIssuer();
    const licence = issuer.licence(
      licencePayload(LATER, {
        installs: [productionInstall(THIS, LATER)],
      }),
    );
    const r = await s.app.inject({
      method: 'POST',
      url: '/v1/licence',
      headers: auth,
      payload: { licence },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect((await s.app.inject({ url: '/v1/status' })).json()).toMatchObject({
      mode: 'configuring',
    });

    const verify = await runCli(s.env, ['licence-verify', '--json']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({
      revocation: {
        seq: 1,
        status: 'not revoked',
        file: join(s.env['SVC_DATA'] ?? '', 'revocations.json'),
      },
    });
  });
});

// Two installs for the exchange's tests (licence.md §3.7): E, on the licence, in the default
// test data folder's machine id, and N, a new install with a machine id of its own; and a call
// helper that answers status and JSON body as the admin token.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprintOf } from '../../install/index.js';
import { ADMIN_TOKEN, type TestServer } from '../test-server.js';

/** What makeDataDir writes: E's machine id. */
export const E_MACHINE = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
export const N_MACHINE = '0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e';
export const E_FP = fingerprintOf(E_MACHINE, 'machine-id');
export const N_FP = fingerprintOf(N_MACHINE, 'machine-id');

/** A data folder for buildTestServer's `dir` whose machine id is `machineId`. */
export function hostWith(machineId: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-host-'));
  writeFileSync(join(dir, 'machine-id'), `${machineId}\n`);
  return dir;
}

export type Json = Record<string, unknown>;

/** A request as the admin token: the status and the JSON body ({} when empty). */
export async function adminCall(
  s: TestServer,
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
): Promise<{ status: number; body: Json }> {
  const r = await s.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(payload !== undefined && { payload: payload as Json }),
  });
  return { status: r.statusCode, body: r.body === '' ? {} : r.json<Json>() };
}
